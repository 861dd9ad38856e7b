package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;

/** The hold of a daemon that stepped down because its site lease may have lapsed. */
class SchedulerLeaseTest {

    private static final long CAPACITY = 2_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void holdWork_noMountWriteOrAnswerUntilResumed_thenAllFlushed() throws Exception {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            f.await(f.scheduler.unloadIdleDrives());
            f.await(f.scheduler.holdWork("site lease not renewed for 25 s"));
            long mounts = f.library.stats().mounts();
            long appends = f.library.stats().appends();
            List<FlushRequest> flushes = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                flushes.add(f.flushRequest(i, 40_000 + i, "ds", "atlas:raw@osm"));
            }
            flushes.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();

            assertEquals(mounts, f.library.stats().mounts(), "mounted while held");
            assertEquals(appends, f.library.stats().appends(), "wrote while held");
            assertTrue(f.outcomes.isEmpty(), "answered while held: " + f.outcomes);
            assertEquals("site lease not renewed for 25 s", f.await(f.scheduler.workHeld()).orElseThrow());

            f.await(f.scheduler.resumeWork());
            f.loop.runUntilIdle();
            flushes.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r)));
            assertTrue(f.await(f.scheduler.workHeld()).isEmpty());
        }
    }
}
