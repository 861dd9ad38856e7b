package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.tape.ForwardingLibrary;

/** Cartridge repack as background work, on the simulated library (real bytes) in virtual time. */
class SchedulerRepackTest {

    private static final long CAPACITY = 2_000_000_000L;
    private static final String A = "A00001L9";
    private static final String B = "A00002L9";
    private static final String C = "A00003L9";
    private static final String D = "A00004L9";

    @TempDir
    Path dir;

    /** A spool of about three files, so a repack of 20 files runs in several read/write batches. */
    private static SchedulerConfig.Builder config() {
        return EngineFixture.testConfig().repackSpoolBytes(3_000_000);
    }

    private static List<FlushRequest> flush(EngineFixture f, int first, int count, String storageClass)
            throws IOException {
        return f.flushAll(first, count, storageClass);
    }

    private static RepackReport repack(EngineFixture f, String barcode) {
        return f.peekStatus().repacks().stream().filter(r -> r.source().equals(barcode)).findFirst().orElseThrow();
    }

    /** Stages every file from wherever the catalog has it now and compares it with the bytes flushed. */
    private void stageAllByteIdentical(EngineFixture f, List<Integer> ids) throws IOException {
        f.stageAllByteIdentical(ids);
    }

    private static List<Integer> range(int first, int count) {
        List<Integer> ids = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            ids.add(i);
        }
        return ids;
    }

    /** Every live file in the catalog, by pnfsid (the catalog keeps one live row per file). */
    private static Map<String, FileRecord> live(EngineFixture f) {
        Map<String, FileRecord> all = new HashMap<>();
        f.catalog.forEachFile(r -> assertTrue(all.put(r.pnfsid(), r) == null, "twice: " + r.pnfsid()));
        return all;
    }

    @Test
    void repack_mostlyLive_everyFileMovedOffStagedByteIdentical_sourceEmpty_datasetsKeptTogether()
            throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config().repackSpoolBytes(8_000_000).build(), 1, CAPACITY, A,
                B, C)) {
            // B holds dataset ds0 (one file), C dataset ds7 (three, the fuller); A gets 20 files of ds0 and ds1
            f.label("raw", B);
            flush(f, 100, 1, "atlas:raw@osm"); // dataset ds0
            f.await(f.scheduler.disableCartridge(B, "test"));
            f.label("raw", A);
            flush(f, 0, 20, "atlas:raw@osm");
            f.await(f.scheduler.disableCartridge(A, "test"));
            f.label("raw", C);
            List<FlushRequest> onC = new ArrayList<>();
            for (int i = 200; i < 203; i++) {
                onC.add(f.flushRequest(i, 900_000, "ds7", "atlas:raw@osm"));
            }
            onC.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            assertEquals(C, f.catalog.file(onC.get(0).pnfsid()).orElseThrow().cartridge());
            f.await(f.scheduler.enableCartridge(A));
            f.await(f.scheduler.enableCartridge(B));
            CartridgeRecord aBefore = f.catalog.cartridge(A).orElseThrow();
            Map<String, FileRecord> before = live(f);
            assertEquals(20, f.catalog.files(A).size());
            long aFileBytes = f.catalog.files(A).stream().mapToLong(FileRecord::size).sum();

            RepackReport queued = f.await(f.scheduler.repackCartridge(A, null));

            assertEquals(20, queued.filesTotal());
            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(20, done.filesDone());
            assertEquals(done.bytesTotal(), done.bytesDone());
            assertEquals(0, done.filesFailed());
            assertTrue(done.emptied());
            assertEquals(List.of(), f.catalog.files(A));
            CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.EMPTY, a.state());
            assertEquals(aBefore.usedBytes(), a.usedBytes());
            assertEquals(aBefore.reclaimableBytes() + aFileBytes, a.reclaimableBytes(),
                    "every byte of A's files is reclaimable");
            Map<String, FileRecord> after = live(f);
            assertEquals(before.keySet(), after.keySet());
            for (int i = 0; i < 20; i++) {
                FileRecord r = after.get(EngineFixture.pnfsid(i));
                assertNotEquals(A, r.cartridge());
                assertEquals(before.get(r.pnfsid()).checksum(), r.checksum());
                assertEquals(before.get(r.pnfsid()).dataset(), r.dataset());
            }
            // co-location: the files of one dataset went to one cartridge, ds0 to B which held it already (C, the
            // fuller, would be first otherwise)
            Set<String> ds0 = new HashSet<>();
            Set<String> ds1 = new HashSet<>();
            for (int i = 0; i < 20; i++) {
                (i % 2 == 0 ? ds0 : ds1).add(after.get(EngineFixture.pnfsid(i)).cartridge());
            }
            assertEquals(Set.of(B), ds0);
            assertEquals(1, ds1.size(), String.valueOf(ds1));
            for (String t : List.of(B, C)) {
                for (AggregateRecord agg : f.catalog.aggregates(t)) {
                    assertTrue(agg.dataset() != null, "an aggregate without a dataset on " + t);
                }
            }
            // one live row per file cannot show a file written twice; the aggregates can: 20 moved + B's 1 + C's 3
            int members = 0;
            for (String t : List.of(B, C)) {
                members += f.catalog.aggregates(t).stream().mapToInt(AggregateRecord::memberCount).sum();
            }
            assertEquals(24, members, "aggregate members on B and C");
            assertEquals(RepackJob.DONE, f.catalog.repackJobs().get(0).state());
            assertFalse(Files.exists(dir.resolve("spool").resolve(A)), "spool directory left behind");
            stageAllByteIdentical(f, range(0, 20));
        }
    }

    @Test
    void repack_sparseCartridge_liveFilesMovedDeletedOnesStayDeleted() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config().aggregateBytes(6_000_000).build(), 1, CAPACITY, A,
                B)) {
            f.label("raw", A);
            flush(f, 0, 24, "atlas:raw@osm");
            f.label("raw", B);
            // keep the first and last member of each aggregate: a third of each span is live
            List<String> deleted = new ArrayList<>();
            List<Integer> kept = new ArrayList<>();
            for (AggregateRecord agg : f.catalog.aggregates(A)) {
                List<FileRecord> members = f.catalog.files(A).stream().filter(r -> r.tapeFile() == agg.tapeFile())
                        .toList();
                for (int m = 0; m < members.size(); m++) {
                    if (m == 0 || m == members.size() - 1) {
                        kept.add(Integer.parseInt(members.get(m).pnfsid(), 16));
                    } else {
                        deleted.add(members.get(m).pnfsid());
                    }
                }
            }
            assertTrue(deleted.size() >= kept.size(), deleted + " / " + kept);
            f.catalog.delete(deleted, EngineFixture.START);

            f.await(f.scheduler.repackCartridge(A, "raw"));

            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(kept.size(), done.filesDone());
            assertTrue(done.emptied());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            for (String id : deleted) {
                assertEquals(java.util.Optional.empty(), f.catalog.file(id), "deleted file back: " + id);
            }
            assertEquals(kept.size(), f.catalog.files(B).size());
            stageAllByteIdentical(f, kept);
        }
    }

    @Test
    void repack_userRecallArrives_getsTheDriveAtTheNextBoundaryThenRepackFinishes() throws IOException {
        SchedulerConfig c = config().familyRule("cms:.*", "other").remountGuardMillis(0).build();
        try (EngineFixture f = EngineFixture.open(dir, c, 1, CAPACITY, A, B, D)) {
            f.label("raw", A);
            f.label("other", D);
            flush(f, 0, 20, "atlas:raw@osm");
            List<FlushRequest> onD = flush(f, 100, 2, "cms:x@osm");
            assertEquals(D, f.catalog.file(onD.get(0).pnfsid()).orElseThrow().cartridge());
            f.label("raw", B);
            f.library.faults().slowDrive("drive0", 0.001); // seconds per file: the repack outlasts a quiet time

            f.scheduler.repackCartridge(A, null);
            f.loop.runFor(60_000);
            RepackReport before = repack(f, A);
            assertNotEquals("done", before.state(), String.valueOf(before));

            AtomicReference<RepackReport> atRecall = new AtomicReference<>();
            f.alsoTell = (request, outcome) -> atRecall.set(repack(f, A));
            StageRequest recall = f.stageRequest(100, dir.resolve("staged-100"));
            f.scheduler.stage(recall);
            f.loop.runUntilIdle();

            assertInstanceOf(Outcome.Staged.class, f.outcome(recall));
            assertTrue(atRecall.get().filesDone() < 20, "the repack ran to its end first: " + atRecall.get());
            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(20, done.filesDone());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
        }
    }

    @Test
    void repack_mediaErrorOnTheSource_thoseFilesStayAndAreReported_restMoved_sourceSuspect() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config().repackSpoolBytes(8_000_000).build(), 1, CAPACITY, A,
                B)) {
            f.label("raw", A);
            flush(f, 0, 16, "atlas:raw@osm");
            f.label("raw", B);
            int tapeFile = f.catalog.aggregates(A).get(1).tapeFile();
            List<String> onIt = f.catalog.files(A).stream().filter(r -> r.tapeFile() == tapeFile)
                    .map(FileRecord::pnfsid).toList();
            f.library.faults().mediaError(A, tapeFile);

            f.await(f.scheduler.repackCartridge(A, null));

            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(onIt.size(), done.filesFailed());
            assertEquals(16 - onIt.size(), done.filesDone());
            assertEquals(onIt, done.failed().stream().map(r -> r.pnfsid()).toList());
            assertFalse(done.emptied());
            CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.SUSPECT, a.state());
            assertEquals(onIt, f.catalog.files(A).stream().map(FileRecord::pnfsid).toList());
            assertEquals(16 - onIt.size(), f.catalog.files(B).size());
            RepackJob job = f.catalog.repackJobs().get(0);
            assertEquals(RepackJob.DONE, job.state());
            assertEquals(onIt.size(), job.filesFailed());
            assertTrue(job.summary().contains(onIt.get(0)), job.summary());
        }
    }

    @Test
    void repack_targetFullThenBadReadBack_aggregateWrittenElsewhere_everyFileByteIdentical() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config().build(), 1, CAPACITY, A, B, C, D)) {
            f.label("raw", A);
            flush(f, 0, 12, "atlas:raw@osm");
            f.label("raw", B, C, D);
            // the fullest first: B is chosen first (all empty: by barcode); its first append reports a full tape
            f.library.faults().tapeFullOnNextAppend(B);
            // C's first tape file after its label reads back with one byte changed: a write fault found by the check
            f.library.faults().corruptByte(C, 1, 1_000_000);

            f.await(f.scheduler.repackCartridge(A, null));

            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(12, done.filesDone());
            assertEquals(CartridgeState.FULL, f.catalog.cartridge(B).orElseThrow().state());
            assertEquals(CartridgeState.SUSPECT, f.catalog.cartridge(C).orElseThrow().state());
            assertEquals(List.of(), f.catalog.files(B));
            assertEquals(List.of(), f.catalog.files(C));
            assertEquals(12, f.catalog.files(D).size());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            stageAllByteIdentical(f, range(0, 12));
        }
    }

    @Test
    void repack_restartInTheMiddle_resumesWithoutLossOrDuplicates() throws IOException {
        List<FlushRequest> flushed;
        int doneBeforeCrash;
        try (EngineFixture f = EngineFixture.open(dir, config().build(), 1, CAPACITY, A, B)) {
            f.label("raw", A);
            flushed = flush(f, 0, 20, "atlas:raw@osm");
            f.label("raw", B);
            f.scheduler.repackCartridge(A, null);
            // run until some files are moved, some are in the spool, and some are still to be read
            for (int step = 0; step < 100_000; step++) {
                f.loop.runFor(1_000);
                RepackReport r = repack(f, A);
                if (r.filesDone() >= 6 && r.spooledFiles() > 0) {
                    break;
                }
            }
            RepackReport atCrash = repack(f, A);
            doneBeforeCrash = atCrash.filesDone();
            assertTrue(doneBeforeCrash > 0 && doneBeforeCrash < 20, String.valueOf(atCrash));
            assertTrue(atCrash.spooledFiles() > 0, String.valueOf(atCrash));
            assertEquals(RepackJob.RUNNING, f.catalog.repackJobs().get(0).state());
        } // no orderly stop: what the loop had not done is lost, as at kill -9

        try (EngineFixture f = EngineFixture.open(dir, config().build(), 1, CAPACITY, A, B)) {
            f.loop.runUntilIdle();

            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(20, done.filesDone());
            assertEquals(20, done.filesTotal());
            Map<String, FileRecord> live = live(f);
            for (FlushRequest r : flushed) {
                assertEquals(B, live.get(r.pnfsid()).cartridge(), r.pnfsid());
            }
            // each file is a member of exactly one aggregate on B: none was committed twice
            int members = f.catalog.aggregates(B).stream().mapToInt(AggregateRecord::memberCount).sum();
            assertEquals(20, members, "aggregate members on " + B);
            assertEquals(20, f.catalog.files(B).size());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(RepackJob.DONE, f.catalog.repackJobs().get(0).state());
            assertFalse(Files.exists(dir.resolve("spool").resolve(A)));
            stageAllByteIdentical(f, range(0, 20));
        }
    }

    @Test
    void repack_refusedWithTheReason_cancelEndsItKeepingWhatMoved() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config().build(), 1, CAPACITY, A, B, C)) {
            f.label("raw", A);
            flush(f, 0, 12, "atlas:raw@osm");
            CompletionException noTarget = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.repackCartridge(A, null)));
            assertTrue(noTarget.getCause().getMessage().contains("no other cartridge is labelled for family raw"),
                    noTarget.getMessage());
            CompletionException unknown = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.repackCartridge("NOPE01L9", null)));
            assertTrue(unknown.getCause().getMessage().contains("NOPE01L9"), unknown.getMessage());
            f.label("raw", B);
            CompletionException noFamily = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.repackCartridge(C, null)));
            assertTrue(noFamily.getCause().getMessage().contains("--to FAMILY"), noFamily.getMessage());

            f.library.faults().slowDrive("drive0", 0.001);
            var first = f.scheduler.repackCartridge(A, null);
            var second = f.scheduler.repackCartridge(A, null);
            f.loop.runFor(1_000);
            assertTrue(first.isDone() && !first.isCompletedExceptionally());
            CompletionException twice = assertThrows(CompletionException.class, second::join);
            assertTrue(twice.getCause().getMessage().contains("already being repacked"), twice.getMessage());
            for (int step = 0; step < 100_000 && repack(f, A).filesDone() == 0; step++) {
                f.loop.runFor(1_000);
            }

            f.await(f.scheduler.cancelRepack(A));
            f.loop.runUntilIdle();

            RepackReport cancelled = repack(f, A);
            assertEquals("cancelled", cancelled.state(), String.valueOf(cancelled));
            assertTrue(cancelled.filesDone() > 0 && cancelled.filesDone() < 12, String.valueOf(cancelled));
            assertEquals(cancelled.filesDone(), f.catalog.files(B).size());
            assertEquals(12 - cancelled.filesDone(), f.catalog.files(A).size());
            assertEquals(RepackJob.CANCELLED, f.catalog.repackJobs().get(0).state());
            assertFalse(Files.exists(dir.resolve("spool").resolve(A)));
            CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.FULL, a.state(), "a cartridge being repacked is closed for writing");
            assertTrue(a.reason().contains("being repacked"), a.reason());
        }
    }

    @Test
    void repack_spoolCannotBeWritten_stopsAsFailedFilesStayOnTheSourceWhichIsNotSuspect() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config().build(), 1, CAPACITY, A, B)) {
            f.label("raw", A);
            flush(f, 0, 8, "atlas:raw@osm");
            f.label("raw", B);
            var queued = f.scheduler.repackCartridge(A, null);
            f.loop.runFor(1); // queued, its spool directory open; the drive is still mounting A
            assertTrue(queued.isDone());
            String first = f.catalog.files(A).get(0).pnfsid();
            // where the first file's partial copy goes, something no process can write as a file (root included)
            Files.createDirectories(dir.resolve("spool").resolve(A).resolve(first + ".part").resolve("x"));
            f.loop.runUntilIdle();

            RepackReport r = repack(f, A);
            assertEquals("failed", r.state(), String.valueOf(r));
            assertTrue(r.error().contains("the spool cannot keep"), r.error());
            assertEquals(0, r.filesFailed(), "the disk's problem is not the files'");
            assertEquals(8, f.catalog.files(A).size());
            assertEquals(CartridgeState.FULL, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(RepackJob.FAILED, f.catalog.repackJobs().get(0).state());
        }
    }

    @Test
    void repack_targetDisabledMidway_nextAggregatesGoToAnotherTarget() throws IOException {
        // batches of several aggregates: B is disabled with aggregates of the batch still to write to it
        try (EngineFixture f = EngineFixture.open(dir, config().repackSpoolBytes(8_000_000).build(), 1, CAPACITY,
                A, B, C)) {
            f.label("raw", A);
            flush(f, 0, 12, "atlas:raw@osm");
            f.label("raw", B, C);
            f.await(f.scheduler.retune(new Tuning(2_000_000, 10_000, 60_000, 3, 14_400_000))); // two files each
            f.scheduler.repackCartridge(A, null);
            for (int step = 0; step < 100_000 && f.catalog.files(B).isEmpty(); step++) {
                f.loop.runFor(1_000);
            }
            int onB = f.catalog.files(B).size();
            assertTrue(onB > 0 && onB < 12, "on B: " + onB);

            f.await(f.scheduler.disableCartridge(B, "operator"));
            f.loop.runUntilIdle();

            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(12, done.filesDone());
            // the aggregate being written when B was disabled may complete there; nothing after it
            int finalB = f.catalog.files(B).size();
            assertTrue(finalB <= onB + 2, "written to a disabled cartridge: " + onB + " then " + finalB);
            assertEquals(12 - finalB, f.catalog.files(C).size());
            assertTrue(f.catalog.files(C).size() >= 6, "C: " + f.catalog.files(C).size());
            f.await(f.scheduler.enableCartridge(B)); // a disabled cartridge is not read either
            stageAllByteIdentical(f, range(0, 12));
        }
    }

    @Test
    void repack_cartridgeWhoseFilesWereAllRemoved_becomesEmptyWithoutAMount() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config().build(), 1, CAPACITY, A, B)) {
            f.label("raw", A);
            List<FlushRequest> flushes = flush(f, 0, 6, "atlas:raw@osm");
            f.label("raw", B);
            f.catalog.delete(flushes.stream().map(FlushRequest::pnfsid).toList(), EngineFixture.START);
            long mounts = f.catalog.cartridge(A).orElseThrow().mountCount();

            f.await(f.scheduler.repackCartridge(A, null));

            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(0, done.filesTotal());
            assertTrue(done.emptied());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(mounts, f.catalog.cartridge(A).orElseThrow().mountCount());
        }
    }
    /** A read-back that delivers nothing (a filemark at once) or stops halfway is a write fault: nothing commits. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 2})
    void repack_readBackShortOrEmpty_writeFaultNotCommitted_filesWrittenElsewhere(int divisor) throws IOException {
        AtomicReference<ShortReadBacks> lib = new AtomicReference<>();
        try (EngineFixture f = EngineFixture.openWrapped(dir, config().build(), l -> {
            lib.set(new ShortReadBacks(l, n -> divisor == 0 ? 0 : n / divisor));
            return lib.get();
        }, 1, CAPACITY, A, B, C)) {
            f.label("raw", A);
            flush(f, 0, 8, "atlas:raw@osm");
            f.label("raw", B, C);
            lib.get().arm(1);

            f.await(f.scheduler.repackCartridge(A, null));

            assertEquals(1, lib.get().shortened());
            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(8, done.filesDone());
            // B (chosen first) was written but its read-back came back short: no file of A committed there
            assertEquals(List.of(), f.catalog.files(B));
            assertEquals(8, f.catalog.files(C).size());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            stageAllByteIdentical(f, range(0, 8));
        }
    }
    /**
     * A flush whose append to A began before A's repack was asked for commits after the repack found nothing to
     * move: A must not be EMPTY while that file is live on it, and the repack must say the file is left.
     */
    @Test
    void repack_appendToTheSourceUnderWay_sourceNotEmptyWhileItsFileIsLive() throws IOException {
        AtomicReference<Runnable> held = new AtomicReference<>();
        try (EngineFixture f = EngineFixture.openWrapped(dir, config().build(),
                l -> new ForwardingLibrary(l) {
                    @Override // the engine's appends (buffered tape marks, its default)
                    public void appendBuffered(String drive, org.tapeq.scheduler.tape.TapeFileSource source,
                                       org.tapeq.scheduler.tape.Completion<org.tapeq.scheduler.tape.WrittenFile> done) {
                        held.set(() -> l.appendBuffered(drive, source, done));
                    }
                }, 1, CAPACITY, A, B)) {
            f.label("raw", B);
            f.await(f.scheduler.disableCartridge(B, "test")); // the flush goes to A
            f.label("raw", A);
            FlushRequest r = f.flushRequest(0, 900_000, "ds0", "atlas:raw@osm");
            f.scheduler.flush(r);
            f.loop.runUntilIdle();
            assertTrue(held.get() != null, "the append to A is under way");
            f.await(f.scheduler.enableCartridge(B));

            f.await(f.scheduler.repackCartridge(A, null));
            assertNotEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            f.loop.execute(held.get());
            f.loop.runUntilIdle();

            assertInstanceOf(Outcome.Flushed.class, f.outcome(r));
            assertEquals(A, f.catalog.file(r.pnfsid()).orElseThrow().cartridge());
            assertNotEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertFalse(done.emptied());
            assertTrue(done.error() != null && done.error().contains("1 live files still on " + A),
                    String.valueOf(done));
        }
    }
    /** A spool copy left by a run that was killed, damaged meanwhile, fails its check: it is read again from tape. */
    @Test
    void repack_resumedSpoolCopyFailsItsCheck_readAgainFromTheSource_everyFileMoved() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config().build(), 1, CAPACITY, A, B)) {
            f.label("raw", A);
            flush(f, 0, 20, "atlas:raw@osm");
            f.label("raw", B);
            f.scheduler.repackCartridge(A, null);
            for (int step = 0; step < 100_000; step++) {
                f.loop.runFor(1_000);
                if (repack(f, A).spooledFiles() > 0) {
                    break;
                }
            }
            assertTrue(repack(f, A).spooledFiles() > 0, String.valueOf(repack(f, A)));
        } // no orderly stop, as at kill -9
        int damaged = 0;
        try (var copies = Files.list(dir.resolve("spool").resolve(A))) {
            for (Path p : copies.filter(p -> !p.getFileName().toString().endsWith(".part")).toList()) {
                byte[] bytes = Files.readAllBytes(p);
                bytes[bytes.length / 2] ^= 0x5a;
                Files.write(p, bytes);
                damaged++;
            }
        }
        assertTrue(damaged > 0, "no whole copy in the spool");

        try (EngineFixture f = EngineFixture.open(dir, config().build(), 1, CAPACITY, A, B)) {
            f.loop.runUntilIdle();

            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(0, done.filesFailed(), String.valueOf(done));
            assertEquals(20, f.catalog.files(B).size());
            assertEquals(20, f.catalog.aggregates(B).stream().mapToInt(AggregateRecord::memberCount).sum());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            stageAllByteIdentical(f, range(0, 20));
        }
    }

    /**
     * A size-only library (the simulator's) reports what it read but delivers no bytes: the repack counts each
     * file read as spooled without a copy and writes it from the catalog's record, so it runs to the end there too.
     */
    @Test
    void repack_sizeOnlyLibrary_everyFileMovedWithoutSpoolCopies_sourceEmpty_filesStageFromTheTarget()
            throws IOException {
        SchedulerConfig c = config().checkLabels(false).build();
        try (EngineFixture f = EngineFixture.open(dir, c, false, b -> b.drives(1)
                .cartridge(A, MediaType.LTO9, CAPACITY).cartridge(B, MediaType.LTO9, CAPACITY))) {
            f.label("raw", A);
            List<FlushRequest> flushes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                flushes.add(f.sizedFlush(i, 900_000 + i, "ds" + (i % 2), "atlas"));
            }
            flushes.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            assertEquals(20, f.catalog.files(A).size());
            f.label("raw", B);

            f.await(f.scheduler.repackCartridge(A, null));

            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(20, done.filesDone());
            assertEquals(0, done.filesFailed());
            assertTrue(done.emptied());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(20, f.catalog.files(B).size());
            assertFalse(Files.exists(dir.resolve("spool").resolve(A)), "no spool left");
            List<StageRequest> stages = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                stages.add(f.sizedStage(i, "atlas", 0, 0));
            }
            stages.forEach(f.scheduler::stage);
            f.loop.runUntilIdle();
            for (int i = 0; i < 20; i++) {
                assertEquals(900_000 + i, assertInstanceOf(Outcome.Staged.class, f.outcome(stages.get(i))).bytes());
            }
        }
    }

    @Test
    void repack_twoAtOnce_eachWritesToATargetOfItsOwn_bothEmptied() throws IOException {
        SchedulerConfig c = config().maxBackgroundDrives(4).build();
        try (EngineFixture f = EngineFixture.open(dir, c, 4, CAPACITY, A, B, C, D)) {
            f.label("raw", A);
            flush(f, 0, 8, "atlas:raw@osm");
            f.await(f.scheduler.disableCartridge(A, "test: fill B next"));
            f.label("raw", B);
            flush(f, 100, 8, "atlas:raw@osm");
            f.await(f.scheduler.enableCartridge(A));
            f.label("raw", C, D);
            f.scheduler.repackCartridge(A, null);
            f.scheduler.repackCartridge(B, null);

            int both = 0;
            for (int step = 0; step < 100_000; step++) {
                f.loop.runFor(1_000);
                List<RepackReport> all = f.peekStatus().repacks();
                if (all.size() == 2 && all.stream().allMatch(RepackReport::hasEnded)) {
                    break;
                }
                if (all.size() == 2 && all.get(0).target() != null && all.get(1).target() != null) {
                    both++;
                    assertTrue(!all.get(0).target().equals(all.get(1).target()), "both repacks write to "
                            + all.get(0).target() + " at " + f.loop.now());
                }
            }

            assertTrue(both > 0, "the two repacks never wrote at the same time");
            assertTrue(repack(f, A).emptied(), String.valueOf(repack(f, A)));
            assertTrue(repack(f, B).emptied(), String.valueOf(repack(f, B)));
            List<Integer> ids = range(0, 8);
            ids.addAll(range(100, 8));
            stageAllByteIdentical(f, ids);
        }
    }
}
