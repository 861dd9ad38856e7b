package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;

/**
 * Requests that cannot be served at all (every drive out of service, no appendable cartridge for a family) are
 * counted in the status, by reason and since when, and fail with a retriable code once that has lasted
 * {@code blockedLimit}. In virtual time.
 */
class SchedulerBlockedTest {

    private static final long CAPACITY = 2_000_000_000L;
    private static final long LIMIT = 3_600_000;
    private static final long MINUTE = 60_000;

    @TempDir
    Path dir;

    private static EngineFixture fixture(Path dir) throws IOException {
        return EngineFixture.open(dir, EngineFixture.testConfig().blockedLimitMillis(LIMIT).build(), 2, CAPACITY,
                "A00001L9", "A00002L9");
    }

    @Test
    void everyDriveOutOfService_requestsCountedThenFailRetriablyAfterTheLimit_servedAgainWhenADriveReturns()
            throws IOException {
        try (EngineFixture f = fixture(dir)) {
            f.label("raw", "A00001L9");
            List<FlushRequest> written = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                written.add(f.flushRequest(i, 50_000 + i, "ds", "atlas:raw@osm"));
            }
            written.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            written.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r)));
            f.scheduler.driveDown("drive0", "maintenance");
            f.scheduler.driveDown("drive1", "maintenance");
            f.loop.runFor(10 * MINUTE);
            assertEquals(0, f.peekStatus().blocked().get("no_drive").requests());

            List<StageRequest> stages = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                StageRequest s = f.stageRequest(i, dir.resolve("st-" + i));
                stages.add(s);
                f.scheduler.stage(s);
            }
            f.loop.runFor(MINUTE);
            SchedulerStatus.Blocked blocked = f.peekStatus().blocked().get("no_drive");
            assertEquals(3, blocked.requests());
            assertTrue(blocked.since() > 0);
            assertEquals(0, f.peekStatus().blocked().get("no_cartridge").requests());
            stages.forEach(s -> assertNull(f.outcome(s), "still waiting before the limit"));

            f.loop.runUntil(blocked.since() + LIMIT - 1);
            stages.forEach(s -> assertNull(f.outcome(s), "still waiting just before the limit"));
            f.loop.runUntil(blocked.since() + LIMIT);
            for (StageRequest s : stages) {
                Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, f.outcome(s));
                assertEquals(ReturnCodes.FAILED, failed.returnCode());
                assertTrue(failed.message().contains("every drive has been out of service for 1 h 0 min"),
                        failed.message());
            }
            assertEquals(0, f.peekStatus().blocked().get("no_drive").requests());

            StageRequest during = f.stageRequest(3, dir.resolve("st-3"));
            f.scheduler.stage(during);
            f.loop.runFor(MINUTE);
            assertEquals(ReturnCodes.FAILED, assertInstanceOf(Outcome.Failed.class, f.outcome(during)).returnCode(),
                    "a request arriving while the outage lasts fails at once");

            f.scheduler.driveUp("drive1");
            f.loop.runFor(MINUTE);
            assertEquals(0, f.peekStatus().blocked().get("no_drive").since());
            StageRequest after = f.stageRequest(0, dir.resolve("st-again"));
            f.scheduler.stage(after);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(after));
        }
    }

    @Test
    void noAppendableCartridgeForAFamily_flushesFailRetriablyAfterTheLimit_othersUnaffected() throws IOException {
        try (EngineFixture f = fixture(dir)) {
            List<FlushRequest> flushes = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                flushes.add(f.flushRequest(i, 50_000 + i, "ds", "atlas:raw@osm"));
            }
            flushes.forEach(f.scheduler::flush);
            f.loop.runFor(5 * MINUTE); // the aggregate closes after a minute; no cartridge of family raw
            SchedulerStatus.Blocked blocked = f.peekStatus().blocked().get("no_cartridge");
            assertEquals(2, blocked.requests());
            assertTrue(blocked.since() > 0);
            assertEquals(0, f.peekStatus().blocked().get("no_drive").requests());
            flushes.forEach(r -> assertNull(f.outcome(r)));

            f.loop.runUntil(blocked.since() + LIMIT);
            for (FlushRequest r : flushes) {
                Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, f.outcome(r));
                assertEquals(ReturnCodes.FAILED, failed.returnCode());
                assertTrue(failed.message().contains("no appendable cartridge of family raw for 1 h 0 min"),
                        failed.message());
            }
            assertEquals(0, f.peekStatus().blocked().get("no_cartridge").requests());

            f.label("raw", "A00001L9");
            FlushRequest later = f.flushRequest(9, 50_009, "ds", "atlas:raw@osm");
            f.scheduler.flush(later);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Flushed.class, f.outcome(later));
        }
    }

    @Test
    void limitZero_requestsWaitForever() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().blockedLimitMillis(0).build(), 1,
                CAPACITY, "A00001L9")) {
            FlushRequest r = f.flushRequest(0, 50_000, "ds", "atlas:raw@osm");
            f.scheduler.flush(r);
            f.loop.runFor(48 * 60 * MINUTE);
            assertNull(f.outcome(r));
            assertEquals(1, f.peekStatus().blocked().get("no_cartridge").requests());
        }
    }
}
