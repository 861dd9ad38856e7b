package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RemoveRequest;
import org.tapeq.scheduler.model.StageRequest;

/** Faults that start in the catalog (wrong checksum, wrong place) and removes. */
class SchedulerCatalogFaultTest {

    @TempDir
    Path dir;

    private static final long CAPACITY = 2_000_000_000L;

    private EngineFixture written(int n) throws IOException {
        EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 2, CAPACITY, "A00001L9");
        f.label("raw", "A00001L9");
        List<FlushRequest> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(f.flushRequest(i, 40_000 + i, "ds", "atlas:raw@osm"));
        }
        list.forEach(f.scheduler::flush);
        f.loop.runUntilIdle();
        list.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r)));
        return f;
    }

    /** Changes a file's catalog row behind the scheduler's back (as corruption or a wrong import would). */
    private void sql(String statement, String pnfsid) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("catalog.db"));
             PreparedStatement st = c.prepareStatement(statement)) {
            st.setString(1, pnfsid);
            assertEquals(1, st.executeUpdate());
        }
    }

    @Test
    void checksumMismatch_retriedThenFailsWithDataMismatch_othersStaged() throws Exception {
        try (EngineFixture f = written(3)) {
            String bad = EngineFixture.pnfsid(1);
            sql("UPDATE files SET checksum = 'adler32:00000000' WHERE pnfsid = ?", bad);
            List<StageRequest> stages = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                StageRequest s = f.stageRequest(i, dir.resolve("s" + i));
                stages.add(s);
                f.scheduler.stage(s);
            }
            f.loop.runUntilIdle();
            Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, f.outcome(stages.get(1)));
            assertEquals(FaultKind.CHECKSUM, failed.kind());
            assertEquals(ReturnCodes.DATA_MISMATCH, failed.returnCode());
            assertEquals(3, failed.attempts());
            assertTrue(failed.message().contains("adler32:00000000"), failed.message());
            assertInstanceOf(Outcome.Staged.class, f.outcome(stages.get(0)));
            assertInstanceOf(Outcome.Staged.class, f.outcome(stages.get(2)));
            assertEquals(3L, f.status().counters().get("faults_checksum"));
        }
    }

    @Test
    void sizeDiffersFromCatalog_failsAtOnceWithDataMismatch() throws Exception {
        try (EngineFixture f = written(1)) {
            StageRequest s = new StageRequest(700, EngineFixture.pnfsid(0), 39_999, "atlas:raw@osm", "/f0", "atlas",
                    null, 0, 0, dir.resolve("s0"));
            f.scheduler.stage(s);
            f.loop.runUntilIdle();
            Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, f.outcome(s));
            assertEquals(ReturnCodes.DATA_MISMATCH, failed.returnCode(), failed.toString());
            assertTrue(failed.message().contains("requested size 39999 but the catalog has 40000 bytes"),
                    failed.message());
        }
    }

    @Test
    void locationBeyondEndOfData_failsAtOnceNotOnTape() throws Exception {
        try (EngineFixture f = written(2)) {
            String lost = EngineFixture.pnfsid(0);
            sql("UPDATE files SET block_no = block_no + 1000000, offset_bytes = offset_bytes + 262144000000"
                    + " WHERE pnfsid = ?", lost);
            StageRequest s = f.stageRequest(0, dir.resolve("s0"));
            f.scheduler.stage(s);
            f.loop.runUntilIdle();
            Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, f.outcome(s));
            assertEquals(FaultKind.NOT_FOUND, failed.kind());
            assertEquals(ReturnCodes.NOT_ON_TAPE, failed.returnCode());
            assertEquals(1, failed.attempts(), "not retried");
        }
    }

    @Test
    void remove_logicalDeleteWithReclaimableSpace_unknownReportedAsAbsent() throws Exception {
        try (EngineFixture f = written(3)) {
            long reclaimableBefore = f.catalog.cartridge("A00001L9").orElseThrow().reclaimableBytes();
            List<RemoveRequest> removes = List.of(new RemoveRequest(900, EngineFixture.pnfsid(0), "atlas"),
                    new RemoveRequest(901, EngineFixture.pnfsid(2), "atlas"),
                    new RemoveRequest(902, EngineFixture.pnfsid(77), "atlas"));
            removes.forEach(f.scheduler::remove);
            f.loop.runUntilIdle();
            assertEquals(new Outcome.Removed(true), f.outcomes.get(900L));
            assertEquals(new Outcome.Removed(true), f.outcomes.get(901L));
            assertEquals(new Outcome.Removed(false), f.outcomes.get(902L));
            assertTrue(f.catalog.file(EngineFixture.pnfsid(0)).isEmpty());
            assertTrue(f.catalog.file(EngineFixture.pnfsid(1)).isPresent());
            assertEquals(reclaimableBefore + 40_000 + 40_002,
                    f.catalog.cartridge("A00001L9").orElseThrow().reclaimableBytes());
            StageRequest s = f.stageRequest(0, dir.resolve("gone"));
            f.scheduler.stage(s);
            f.loop.runUntilIdle();
            assertEquals(ReturnCodes.NOT_ON_TAPE, assertInstanceOf(Outcome.Failed.class, f.outcome(s)).returnCode());
        }
    }
}
