package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.queue.Ticket;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;

/** Each fault class, cancellation, labels and status reasons, on a simulated library with real bytes. */
class SchedulerFaultTest {

    @TempDir
    Path dir;

    private static final long CAPACITY = 2_000_000_000L;

    private static List<FlushRequest> flushAll(EngineFixture f, int n, int datasets) throws IOException {
        List<FlushRequest> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(f.flushRequest(i, 50_000 + i, "ds" + (i % datasets), "atlas:raw@osm"));
        }
        list.forEach(f.scheduler::flush);
        f.loop.runUntilIdle();
        list.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid()));
        return list;
    }

    private static List<StageRequest> stageAll(EngineFixture f, int n) {
        List<StageRequest> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StageRequest s = f.stageRequest(i, f.dir.resolve("st-" + i));
            list.add(s);
            f.scheduler.stage(s);
        }
        f.loop.runUntilIdle();
        return list;
    }

    @Test
    void mediaError_failsAfterMaxAttemptsWithNotOnTape_cartridgeSuspect_otherFilesStaged() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 2, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 10, 2);
            int badFile = f.catalog.file(EngineFixture.pnfsid(0)).orElseThrow().tapeFile();
            f.library.faults().mediaError("A00001L9", badFile);
            List<StageRequest> stages = stageAll(f, 10);
            for (StageRequest s : stages) {
                FileRecord where = f.catalog.file(s.pnfsid()).orElseThrow();
                if (where.tapeFile() == badFile) {
                    Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, f.outcome(s));
                    assertEquals(FaultKind.MEDIA, failed.kind());
                    assertEquals(ReturnCodes.NOT_ON_TAPE, failed.returnCode());
                    assertEquals(3, failed.attempts());
                    assertTrue(failed.message().contains(s.pnfsid()) && failed.message().contains("A00001L9"),
                            failed.message());
                } else {
                    assertInstanceOf(Outcome.Staged.class, f.outcome(s));
                }
            }
            assertEquals(CartridgeState.SUSPECT, f.catalog.cartridge("A00001L9").orElseThrow().state());
            SchedulerStatus st = f.status();
            assertTrue(st.attention().stream().anyMatch(c -> c.barcode().equals("A00001L9")
                    && c.reason().contains("read error")), st.attention().toString());
        }
    }

    @Test
    void driveFailure_mountRetriedOnOtherDrive_driveTakenOutOfService() throws IOException {
        SchedulerConfig c = EngineFixture.testConfig().driveErrorLimit(1).build();
        try (EngineFixture f = EngineFixture.open(dir, c, 2, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 6, 1);
            for (String d : List.of("drive0", "drive1")) {
                f.await(f.scheduler.driveDown(d, "unload"));
                f.await(f.scheduler.driveUp(d));
            }
            f.library.faults().failDrive("drive0");
            List<StageRequest> stages = stageAll(f, 6);
            stages.forEach(s -> assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid()));
            SchedulerStatus st = f.status();
            SchedulerStatus.DriveStatus d0 = st.drives().stream().filter(d -> d.id().equals("drive0")).findFirst()
                    .orElseThrow();
            assertEquals("down", d0.state());
            assertTrue(d0.reason().contains("consecutive errors"), d0.reason());
            assertEquals(1L, st.counters().get("faults_drive"));
            assertTrue(f.library.stats().drives().get("drive1").readMillis() > 0, "drive1 did the reading");
        }
    }

    @Test
    void robotFailure_mountRetriedAfterBackoff() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 4, 1);
            f.await(f.scheduler.driveDown("drive0", "unload"));
            f.await(f.scheduler.driveUp("drive0"));
            f.loop.runFor(2_000_000);
            f.library.faults().failNextRobotMoves(1);
            long t0 = f.loop.now();
            List<StageRequest> stages = stageAll(f, 4);
            stages.forEach(s -> assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid()));
            SchedulerStatus st = f.status();
            assertEquals(1L, st.counters().get("faults_robot"));
            assertTrue(f.finishedAt.get(stages.get(0).id()) - t0 >= 10_000, "retried after the backoff");
            // The status keeps the fault itself: when, where, what and why.
            assertEquals(1, st.recentFaults().size(), st.recentFaults().toString());
            SchedulerStatus.Fault fault = st.recentFaults().get(0);
            assertEquals("robot", fault.kind());
            assertEquals("drive0", fault.drive());
            assertEquals("A00001L9", fault.cartridge());
            assertTrue(fault.reason().startsWith("mount failed: "), fault.reason());
            assertTrue(fault.at() >= t0 && fault.at() < f.finishedAt.get(stages.get(0).id()), "at " + fault.at());
        }
    }

    @Test
    void tapeFull_closesCartridge_writingContinuesOnNext() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().aggregateBytes(300_000).build(),
                b -> b.drives(1).cartridge("A00001L9", MediaType.LTO9, 2_000_000)
                        .cartridge("A00002L9", MediaType.LTO9, CAPACITY))) {
            f.label("raw", "A00001L9", "A00002L9");
            List<FlushRequest> list = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                list.add(f.flushRequest(i, 200_000, "ds", "atlas:raw@osm"));
            }
            list.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            list.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid()));
            assertEquals(CartridgeState.FULL, f.catalog.cartridge("A00001L9").orElseThrow().state());
            long onSecond = list.stream()
                    .filter(r -> f.catalog.file(r.pnfsid()).orElseThrow().cartridge().equals("A00002L9")).count();
            assertTrue(onSecond > 0 && onSecond < 20, "writing continued on the next cartridge: " + onSecond);

            // The short tape file the full cartridge kept is not imported by a rebuild: its manifest lists
            // members that are not all there, and those files live on the second cartridge.
            Map<String, FileRecord> before = new HashMap<>();
            list.forEach(r -> before.put(r.pnfsid(), f.catalog.file(r.pnfsid()).orElseThrow()));
            Scheduler.RebuildReport report = f.await(f.scheduler.rebuildCartridge("A00001L9"));
            assertEquals(1, report.skipped().size(), report.toString());
            assertTrue(report.skipped().get(0).contains("cut short"), report.skipped().toString());
            list.forEach(r -> assertEquals(before.get(r.pnfsid()), f.catalog.file(r.pnfsid()).orElseThrow()));

            List<StageRequest> stages = stageAll(f, 20);
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid());
                assertArrayEquals(Files.readAllBytes(f.dir.resolve("src").resolve(s.pnfsid())),
                        Files.readAllBytes(s.target()));
            }
        }
    }

    @Test
    void flushSource_missingOrWrongSize_failsAloneWithDataMismatch() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            FlushRequest good = f.flushRequest(1, 1000, "ds", "atlas:raw@osm");
            FlushRequest missing = f.flushRequest(2, 1000, "ds", "atlas:raw@osm");
            Files.delete(missing.source());
            FlushRequest wrongSize = f.flushRequest(3, 1000, "ds", "atlas:raw@osm");
            Files.write(wrongSize.source(), new byte[10]);
            List.of(good, missing, wrongSize).forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Flushed.class, f.outcome(good));
            for (FlushRequest bad : List.of(missing, wrongSize)) {
                Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, f.outcome(bad));
                assertEquals(FaultKind.SOURCE, failed.kind());
                assertEquals(ReturnCodes.DATA_MISMATCH, failed.returnCode());
                assertTrue(failed.message().contains(bad.source().toString()), failed.message());
                assertTrue(f.catalog.file(bad.pnfsid()).isEmpty());
            }
        }
    }

    @Test
    void stage_unknownFile_failsAtOnceNotOnTape() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            StageRequest s = f.stageRequest(99, dir.resolve("x"));
            f.scheduler.stage(s);
            f.loop.runUntilIdle();
            Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, f.outcome(s));
            assertEquals(ReturnCodes.NOT_ON_TAPE, failed.returnCode());
            assertEquals(0L, f.status().counters().get("mounts"));
        }
    }

    @Test
    void cancel_queuedStageAndBufferedFlush_endCancelledWithoutTapeWork() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().quietMillis(60_000).build(), 1,
                CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 3, 1);
            f.await(f.scheduler.driveDown("drive0", "unload"));
            f.await(f.scheduler.driveUp("drive0"));
            f.loop.runFor(2_000_000);
            long mounts = f.status().counters().get("mounts");
            StageRequest s = f.stageRequest(0, dir.resolve("c0"));
            Ticket t = f.scheduler.stage(s);
            f.loop.runFor(1000); // queued, waiting for the quiet time
            f.scheduler.cancel(t);
            FlushRequest buffered = f.flushRequest(50, 1000, "other", "atlas:raw@osm");
            Ticket ft = f.scheduler.flush(buffered);
            f.loop.runFor(1000);
            f.scheduler.cancel(ft);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Cancelled.class, f.outcome(s));
            assertInstanceOf(Outcome.Cancelled.class, f.outcome(buffered));
            assertEquals(mounts, f.status().counters().get("mounts"), "nothing was mounted for them");
            assertFalse(Files.exists(s.target()));
            assertTrue(f.catalog.file(buffered.pnfsid()).isEmpty());
            assertEquals(0, f.status().queueCount());
        }
    }

    @Test
    void cancel_duringRead_readFinishesThenCancelled() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().quietMillis(0).build(), 1,
                CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 3, 1);
            f.library.faults().slowDrive("drive0", 0.0001); // 40 kB/s: the read takes over a second
            StageRequest s = f.stageRequest(0, dir.resolve("c0"));
            Ticket t = f.scheduler.stage(s);
            // Run until the read has started.
            for (int i = 0; i < 100_000 && f.outcome(s) == null
                    && f.peekStatus().drives().stream().noneMatch(d -> d.activity().startsWith("reading")); i++) {
                f.loop.runFor(100);
            }
            assertEquals(null, f.outcome(s), "still reading when cancelled");
            f.scheduler.cancel(t);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Cancelled.class, f.outcome(s));
            assertEquals(1L, f.status().counters().get("stages_cancelled"));
        }
    }

    @Test
    void unlabelledCartridges_neverWritten_flushWaitsWithReasonUntilLabelled() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().aggregateWaitMillis(1000).build(),
                1, CAPACITY, "A00001L9")) {
            FlushRequest r = f.flushRequest(1, 1000, "ds", "atlas:raw@osm");
            f.scheduler.flush(r);
            f.loop.runFor(3_600_000);
            assertEquals(null, f.outcome(r));
            SchedulerStatus st = f.peekStatus(); // not f.status(): running the loop idle would reach blockedLimit
            SchedulerStatus.QueueStatus q = st.queues().stream()
                    .filter(x -> x.name().equals("family:raw")).findFirst().orElseThrow();
            assertNotNull(q.reason());
            assertTrue(q.reason().contains("no appendable cartridge"), q.reason());
            f.label("raw", "A00001L9");
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r));
        }
    }

    @Test
    void restart_afterCrashBeforeCommit_reflushAppendsAfterOrphanAndRebuildPrefersLatest() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 3, 1);
        }
        // A "crash": the tape file is written but the catalog never hears of it. Simulated by writing the
        // aggregate with a catalog that refuses commits.
        try (EngineFixture f = EngineFixture.openWithFailingCommits(dir, EngineFixture.testConfig().build(), 1,
                CAPACITY, "A00001L9")) {
            FlushRequest r = f.flushRequest(10, 5000, "late", "atlas:raw@osm");
            f.scheduler.flush(r);
            f.loop.runUntilIdle();
            Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, f.outcome(r));
            assertEquals(FaultKind.CATALOG, failed.kind());
            assertEquals(ReturnCodes.FAILED, failed.returnCode(), "dCache retries the flush");
            assertTrue(f.catalog.file(r.pnfsid()).isEmpty(), "not acknowledged, not recorded");
        }
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            int filesBefore = f.catalog.cartridge("A00001L9").orElseThrow().tapeFiles();
            FlushRequest retry = f.flushRequest(10, 5000, "late", "atlas:raw@osm");
            f.scheduler.flush(retry);
            f.loop.runUntilIdle();
            FileRecord where = assertInstanceOf(Outcome.Flushed.class, f.outcome(retry)).location();
            assertEquals(filesBefore + 2, where.tapeFile(), "appended after the orphaned tape file, not over it");
            Scheduler.RebuildReport report = f.await(f.scheduler.rebuildCartridge("A00001L9"));
            assertEquals(filesBefore + 2, report.tapeFiles());
            assertEquals(where, f.catalog.file(retry.pnfsid()).orElseThrow());
            StageRequest s = f.stageRequest(10, dir.resolve("s10"));
            f.scheduler.stage(s);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            assertArrayEquals(Files.readAllBytes(retry.source()), Files.readAllBytes(s.target()));
        }
    }
}
