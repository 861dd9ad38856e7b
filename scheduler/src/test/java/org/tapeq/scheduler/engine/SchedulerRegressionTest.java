package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;

/**
 * Scenarios from a review of the engine's state machine; each once left a request stuck forever or a drive
 * miscounted. Every test ends with the request finished.
 */
class SchedulerRegressionTest {
    @TempDir
    Path dir;
    static final long CAP = 2_000_000_000L;
    static final long GB = 1_000_000_000L;

    /** A: a drive switching away from a cartridge whose reads are in backoff once orphaned that queue. */
    @Test
    void switchAway_fromCartridgeWithReadsInBackoff_keepsItsQueue() throws Exception {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAP, "A00001L9", "A00002L9")) {
            f.label("raw", "A00001L9", "A00002L9");
            FlushRequest r0 = f.flushRequest(0, 50_000, "x", "atlas:raw@osm");
            f.scheduler.flush(r0);
            f.loop.runUntilIdle();
            String c1 = f.catalog.file(r0.pnfsid()).orElseThrow().cartridge();
            String c2 = c1.equals("A00001L9") ? "A00002L9" : "A00001L9";
            f.await(f.scheduler.disableCartridge(c1, "x"));
            FlushRequest r1 = f.flushRequest(1, 50_000, "y", "atlas:raw@osm");
            f.scheduler.flush(r1);
            f.loop.runUntilIdle();
            assertEquals(c2, f.catalog.file(r1.pnfsid()).orElseThrow().cartridge());
            f.await(f.scheduler.enableCartridge(c1));
            f.await(f.scheduler.driveDown("drive0", "unload"));
            f.await(f.scheduler.driveUp("drive0"));
            f.loop.runFor(7_200_000);
            f.library.faults().mediaError(c1, f.catalog.file(r0.pnfsid()).orElseThrow().tapeFile());
            Files.createDirectories(dir.resolve("staged"));
            StageRequest s0 = f.stageRequest(0, "atlas", 1);
            StageRequest s1 = f.stageRequest(1, "atlas", 0);
            f.scheduler.stage(s0);
            f.scheduler.stage(s1);
            f.loop.runFor(86_400_000L);
            assertNotNull(f.outcome(s0), "stage of the backed-off read never ended");
            assertInstanceOf(Outcome.Staged.class, f.outcome(s1));
        }
    }

    /** C: a family write whose mount failed (robot) once leaked its writer claim and was never written. */
    @Test
    void familyWrite_mountFails_writtenAfterRetry() throws Exception {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAP, "A00001L9")) {
            f.label("raw", "A00001L9");
            f.await(f.scheduler.driveDown("drive0", "unload"));
            f.await(f.scheduler.driveUp("drive0"));
            f.loop.runFor(7_200_000);
            f.library.faults().failNextRobotMoves(1);
            FlushRequest r = f.flushRequest(5, 50_000, "z", "atlas:raw@osm");
            f.scheduler.flush(r);
            f.loop.runFor(86_400_000L);
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r), "flush after a failed mount");
        }
    }

    /** B: a DRIVE fault on append once left the drive counted as writing; with maxWriteDrives=1 no write ran again. */
    @Test
    void writeDriveFault_withWriteCap_laterWritesStillRun() throws Exception {
        SchedulerConfig cfg = EngineFixture.testConfig().maxWriteDrives(1).build();
        try (EngineFixture f = EngineFixture.open(dir, cfg, 1, CAP, "A00001L9")) {
            f.label("raw", "A00001L9");
            FlushRequest r0 = f.flushRequest(3, 50_000, "z", "atlas:raw@osm");
            f.scheduler.flush(r0);
            f.loop.runFor(200_000);
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r0));
            f.library.faults().failNextDriveOps("drive0", 1);
            FlushRequest r1 = f.flushRequest(4, 50_000, "z", "atlas:raw@osm");
            f.scheduler.flush(r1);
            f.loop.runFor(200_000);
            FlushRequest r2 = f.flushRequest(5, 50_000, "z", "atlas:raw@osm");
            f.scheduler.flush(r2);
            f.loop.runFor(86_400_000L);
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r1), "retried flush");
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r2), "later flush");
        }
    }

    /** D: an aggregate bound to a cartridge that no longer had room for it was once never written (mount churn). */
    @Test
    void boundAggregate_noLongerFits_writtenElsewhere() throws Exception {
        SchedulerConfig cfg = SchedulerConfig.builder().checkLabels(false).aggregateBytes(GB).build();
        try (EngineFixture f = EngineFixture.open(dir, cfg, false, b -> {
            b.drives(1);
            b.cartridge("A00001L9", MediaType.LTO9, 18_000 * GB);
            b.cartridge("A00002L9", MediaType.LTO9, 18_000 * GB);
        })) {
            f.label("atlas:raw@osm", "A00001L9", "A00002L9");
            FlushRequest small = f.sizedFlush(1, GB, "d", "atlas");
            f.scheduler.flush(small);
            f.loop.runUntilIdle();
            FlushRequest big1 = f.sizedFlush(2, 10_000 * GB, "d", "atlas");
            FlushRequest big2 = f.sizedFlush(3, 10_000 * GB, "d", "atlas");
            f.scheduler.flush(big1);
            f.scheduler.flush(big2);
            f.loop.runFor(3 * 86_400_000L);
            assertInstanceOf(Outcome.Flushed.class, f.outcome(big1));
            assertInstanceOf(Outcome.Flushed.class, f.outcome(big2), "second aggregate written elsewhere");
            assertTrue(f.library.stats().mounts() < 10, "no mount churn: " + f.library.stats().mounts());
        }
    }

    /** E: two stage requests for one file in one pass: the second once got a "short read". */
    @Test
    void twoStagesOfOneFile_inOnePass_bothStaged() throws Exception {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAP, "A00001L9")) {
            f.label("raw", "A00001L9");
            FlushRequest r = f.flushRequest(7, 50_000, "z", "atlas:raw@osm");
            f.scheduler.flush(r);
            f.loop.runUntilIdle();
            StageRequest a = f.stageRequest(7, dir.resolve("a7"));
            StageRequest b = f.stageRequest(7, dir.resolve("b7"));
            f.scheduler.stage(a);
            f.scheduler.stage(b);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(a));
            assertInstanceOf(Outcome.Staged.class, f.outcome(b));
        }
    }

    /** F: an unload failed (robot) while switching to B; the drive once counted as free and B was orphaned. */
    @Test
    void unloadFails_whileSwitching_reservedQueueStillServed() throws Exception {
        String[] carts = {"A00001L9", "A00002L9", "A00003L9"};
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAP, carts)) {
            f.label("raw", carts);
            String[] where = new String[3];
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < i; j++) {
                    f.await(f.scheduler.disableCartridge(where[j], "x"));
                }
                FlushRequest r = f.flushRequest(i, 50_000, "d" + i, "atlas:raw@osm");
                f.scheduler.flush(r);
                f.loop.runUntilIdle();
                where[i] = f.catalog.file(r.pnfsid()).orElseThrow().cartridge();
                for (int j = 0; j < i; j++) {
                    f.await(f.scheduler.enableCartridge(where[j]));
                }
            }
            f.loop.runFor(7_200_000);
            Files.createDirectories(dir.resolve("staged"));
            // mount where[0] and read it, keep it in the drive
            StageRequest s0 = f.stageRequest(0, "atlas", 0);
            f.scheduler.stage(s0);
            f.loop.runFor(200_000);
            f.library.faults().failNextRobotMoves(1);
            StageRequest s1 = f.stageRequest(1, "atlas", 2);
            StageRequest s2 = f.stageRequest(2, "atlas", 0);
            f.scheduler.stage(s1);
            f.scheduler.stage(s2);
            f.loop.runFor(86_400_000L);
            assertInstanceOf(Outcome.Staged.class, f.outcome(s1), "s1 after a failed unload");
            assertInstanceOf(Outcome.Staged.class, f.outcome(s2));
        }
    }

    /** G: a read to retry on another drive once waited for the idle unload and the remount guard. */
    @Test
    void readFailure_retriedOnOtherDriveAfterBackoff_notAfterGuard() throws Exception {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 2, CAP, "A00001L9")) {
            f.label("raw", "A00001L9");
            FlushRequest r = f.flushRequest(0, 50_000, "d", "atlas:raw@osm");
            f.scheduler.flush(r);
            f.loop.runUntilIdle();
            f.loop.runFor(7_200_000);
            int tf = f.catalog.file(r.pnfsid()).orElseThrow().tapeFile();
            f.library.faults().mediaError("A00001L9", tf);
            StageRequest s = f.stageRequest(0, dir.resolve("g0"));
            long t0 = f.loop.now();
            f.scheduler.stage(s);
            for (int i = 0; i < 1000 && f.peekStatus().counters().getOrDefault("faults_media", 0L) == 0L; i++) {
                f.loop.runFor(1000);
            }
            long tFail = f.loop.now();
            assertTrue(tFail > t0, "the read failed once");
            f.library.faults().clearMediaError("A00001L9", tf);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            long after = f.finishedAt.get(s.id()) - tFail;
            assertTrue(after < 600_000, "retried on the other drive " + after / 1000 + " s after the failure");
        }
    }
}
