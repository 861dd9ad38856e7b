package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;

/**
 * Issue item "library offline for a while during mounts ends with the library back in use without an operator",
 * at the engine: the robot answers every move with a fault (as a changer that is NOT READY) while stages wait for
 * mounts; mounts pause after {@code robotErrorLimit} faults and are tried again after the backoff, and once the
 * robot answers again every stage completes, no drive is down, the pause is over.
 */
class SchedulerRobotOfflineTest {

    private static final long CAPACITY = 2_000_000_000L;
    private static final long STEP = 1000;

    @TempDir
    Path dir;

    @Test
    void robotOffline_whileStagesWaitForMounts_libraryBackInUseWithoutAnOperator() throws Exception {
        SchedulerConfig config = EngineFixture.testConfig().build();
        try (EngineFixture f = EngineFixture.open(dir, config, 2, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            List<FlushRequest> flushes = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                FlushRequest r = f.flushRequest(i, 100_000, "ds", "atlas:raw@osm");
                flushes.add(r);
                f.scheduler.flush(r);
            }
            for (FlushRequest r : flushes) {
                runUntilAnswered(f, r);
                assertInstanceOf(Outcome.Flushed.class, f.outcome(r));
            }
            f.await(f.scheduler.unloadIdleDrives());
            f.loop.runFor(300_000);
            assertTrue(f.peekStatus().drives().stream().allMatch(d -> d.cartridge() == null), "drives empty");

            f.library.faults().failRobot(); // offline: every mount fails at the robot
            long robotFaults = f.peekStatus().counters().getOrDefault("faults_robot", 0L);
            List<StageRequest> stages = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                StageRequest s = f.stageRequest(i, dir.resolve("staged-" + i));
                stages.add(s);
                f.scheduler.stage(s);
            }
            boolean paused = false;
            for (int i = 0; i < 3_600 && !paused; i++) {
                f.loop.runFor(STEP);
                paused = f.peekStatus().robot() != null;
            }
            assertTrue(paused, "mounts paused after robot faults: " + f.peekStatus().counters());
            assertTrue(f.peekStatus().counters().get("faults_robot") - robotFaults >= config.robotErrorLimit());
            f.loop.runFor(10 * config.retryBackoffMillis()); // offline for a while: several pauses
            for (StageRequest s : stages) {
                assertNull(f.outcome(s), "no stage fails while the library is offline");
            }

            f.library.faults().restoreRobot(); // back online; nobody runs drive up or anything else
            for (StageRequest s : stages) {
                runUntilAnswered(f, s);
                assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.toString());
            }
            SchedulerStatus st = f.peekStatus();
            assertNull(st.robot(), "the pause is over");
            assertFalse(st.drives().stream().anyMatch(d -> d.state().equals("down")), st.drives().toString());
            assertNotNull(st.counters().get("mounts"));
            assertEquals(0, st.attention().stream().filter(c -> c.state().equals("suspect")).count());
        }
    }

    /** Runs the loop a second at a time until {@code r} has its outcome (at most a day of virtual time). */
    private static void runUntilAnswered(EngineFixture f, org.tapeq.scheduler.model.TapeRequest r) {
        for (int i = 0; i < 86_400 && f.outcome(r) == null; i++) {
            f.loop.runFor(STEP);
        }
    }
}
