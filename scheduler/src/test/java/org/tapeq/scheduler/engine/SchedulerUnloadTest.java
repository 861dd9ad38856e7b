package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeRequest;

/** {@link Scheduler#unloadIdleDrives()}: what tapeq loadtest uses to start a measured recall with empty drives. */
class SchedulerUnloadTest {

    @TempDir
    Path dir;

    private static final long CAPACITY = 2_000_000_000L;
    private static final long STEP = 1000;

    @Test
    void unloadIdleDrives_idleCartridge_unloadedAtOnce_andMountedAgainWithoutRemountGuard() throws Exception {
        SchedulerConfig config = EngineFixture.testConfig().build();
        try (EngineFixture f = EngineFixture.open(dir, config, 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            f.loop.runFor(config.remountGuardMillis()); // the guard after the label's own unload has passed
            FlushRequest r = f.flushRequest(0, 50_000, "ds", "atlas:raw@osm");
            f.scheduler.flush(r);
            runUntilAnswered(f, r);
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r));
            assertEquals("A00001L9", drive0(f).cartridge(), "the written cartridge stays in the drive");
            long unmounts = f.peekStatus().counters().get("unmounts");

            CompletableFuture<Map<String, String>> unloading = f.scheduler.unloadIdleDrives();
            f.loop.runFor(STEP);
            assertEquals(Map.of("drive0", "A00001L9"), unloading.getNow(null));
            f.loop.runFor(120_000); // rewind, unload and the robot's move; far below the idle unmount time
            assertNull(drive0(f).cartridge());
            assertEquals("empty", drive0(f).state());
            assertEquals(unmounts + 1, f.peekStatus().counters().get("unmounts"));
            assertTrue(config.idleUnmountMillis() > f.loop.now() - f.finishedAt.get(r.id()),
                    "unloaded before the idle time would have done it");

            long asked = f.loop.now();
            StageRequest s = f.stageRequest(0, dir.resolve("staged-0"));
            f.scheduler.stage(s);
            runUntilAnswered(f, s);
            assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            // the quiet time, a mount and the read; the remount guard would hold the queue for 30 minutes
            assertTrue(f.finishedAt.get(s.id()) - asked < config.quietMillis() + 300_000,
                    "an unload on request sets no remount guard: staged after "
                            + (f.finishedAt.get(s.id()) - asked) / 1000 + " s");
        }
    }

    @Test
    void unloadIdleDrives_driveReading_leftAlone() throws Exception {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            FlushRequest r = f.flushRequest(0, 200_000, "ds", "atlas:raw@osm");
            f.scheduler.flush(r);
            runUntilAnswered(f, r);
            f.library.faults().slowDrive("drive0", 0.0001); // the read takes seconds
            StageRequest s = f.stageRequest(0, dir.resolve("staged-0"));
            f.scheduler.stage(s);
            for (int i = 0; i < 100_000 && !drive0(f).activity().startsWith("reading"); i++) {
                f.loop.runFor(100);
            }
            assertEquals("busy", drive0(f).state());

            CompletableFuture<Map<String, String>> unloading = f.scheduler.unloadIdleDrives();
            f.loop.runFor(100);
            assertEquals(Map.of(), unloading.getNow(null), "a drive at work keeps its cartridge");
            runUntilAnswered(f, s);
            assertInstanceOf(Outcome.Staged.class, f.outcome(s));
        }
    }

    private static SchedulerStatus.DriveStatus drive0(EngineFixture f) {
        return f.peekStatus().drives().stream().filter(d -> d.id().equals("drive0")).findFirst().orElseThrow();
    }

    /** Runs the loop a second at a time until {@code r} has its outcome (at most a day of virtual time). */
    private static void runUntilAnswered(EngineFixture f, TapeRequest r) {
        for (int i = 0; i < 86_400 && f.outcome(r) == null; i++) {
            f.loop.runFor(STEP);
        }
    }
}
