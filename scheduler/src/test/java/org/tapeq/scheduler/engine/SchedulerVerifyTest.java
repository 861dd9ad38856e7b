package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.Verification;
import org.tapeq.scheduler.engine.lifecycle.VerifyReport;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RemoveRequest;
import org.tapeq.scheduler.model.StageRequest;

/** Cartridge verification as background work, on the simulated library in virtual time. */
class SchedulerVerifyTest {

    private static final long CAPACITY = 2_000_000_000L;
    private static final String A = "A00001L9";
    private static final String B = "A00002L9";

    @TempDir
    Path dir;

    private static List<FlushRequest> flush(EngineFixture f, int first, int count, String storageClass)
            throws IOException {
        return f.flushAll(first, count, storageClass);
    }

    private static VerifyReport verification(EngineFixture f, String barcode) {
        return f.peekStatus().verifications().stream().filter(r -> r.barcode().equals(barcode)).findFirst()
                .orElseThrow();
    }

    @Test
    void verify_cleanCartridge_everyFileGoodRecordedInCatalogCartridgeStaysWritable() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 2, CAPACITY, A)) {
            f.label("raw", A);
            flush(f, 0, 20, "atlas:raw@osm");
            int aggregates = f.catalog.aggregates(A).size();
            assertTrue(aggregates >= 4, "aggregates: " + aggregates);

            VerifyReport queued = f.await(f.scheduler.verifyCartridge(A, 0));

            assertEquals(aggregates, queued.aggregatesTotal());
            VerifyReport done = verification(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(aggregates, done.aggregatesDone());
            assertEquals(20, done.filesGood());
            assertEquals(List.of(), done.bad());
            assertEquals(List.of(), done.unreadable());
            assertTrue(done.good());
            Verification recorded = f.catalog.lastVerification(A).orElseThrow();
            assertTrue(recorded.good(), String.valueOf(recorded));
            assertEquals(done.ended(), recorded.verifiedAt());
            assertEquals(CartridgeState.APPENDABLE, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(0, f.peekStatus().background().running());
        }
    }

    /** A file that came with an MD5 only is read but not compared: not counted good, and not "all good". */
    @Test
    void verify_fileWithoutAdler32_countedUncheckedNotGood_catalogSummarySaysSo() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, A)) {
            f.label("raw", A);
            FlushRequest plain = f.flushRequest(0, 5000, "ds", "atlas:raw@osm");
            FlushRequest other = f.flushRequest(1, 6000, "ds", "atlas:raw@osm");
            FlushRequest md5 = new FlushRequest(other.id(), other.pnfsid(), other.size(), other.storageClass(),
                    other.path(), null, other.group(), 0, 0, "md5:00112233445566778899aabbccddeeff", other.source());
            f.scheduler.flush(plain);
            f.scheduler.flush(md5);
            f.loop.runUntilIdle();

            f.await(f.scheduler.verifyCartridge(A, 0));

            VerifyReport done = verification(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(1, done.filesGood(), String.valueOf(done));
            assertEquals(1, done.filesUnchecked(), String.valueOf(done));
            Verification recorded = f.catalog.lastVerification(A).orElseThrow();
            assertEquals("no bad or unreadable file; 1 of 2 not checked (the catalog's checksum is not an Adler-32)",
                    recorded.summary());
            assertEquals(CartridgeState.APPENDABLE, f.catalog.cartridge(A).orElseThrow().state());
        }
    }

    @Test
    void verify_corruptMember_reportedBadCartridgeSuspectNamingIt() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, A)) {
            f.label("raw", A);
            List<FlushRequest> flushes = flush(f, 0, 12, "atlas:raw@osm");
            FileRecord victim = f.catalog.file(flushes.get(5).pnfsid()).orElseThrow();
            f.library.faults().corruptByte(A, victim.tapeFile(), victim.offset() + victim.size() / 2);

            f.await(f.scheduler.verifyCartridge(A, 0));

            VerifyReport done = verification(f, A);
            assertEquals("done", done.state());
            assertEquals(List.of(victim.pnfsid()), done.bad().stream().map(VerifyReport.FileResult::pnfsid).toList());
            assertEquals(11, done.filesGood());
            assertFalse(done.good());
            var cartridge = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.SUSPECT, cartridge.state());
            assertTrue(cartridge.reason().contains(victim.pnfsid()), cartridge.reason());
            Verification recorded = f.catalog.lastVerification(A).orElseThrow();
            assertEquals(1, recorded.filesBad());
            assertTrue(recorded.summary().contains(victim.pnfsid()), recorded.summary());
        }
    }

    @Test
    void verify_mediaErrorOnOneAggregate_itsFilesUnreadableRestGoodCartridgeSuspect() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, A)) {
            f.label("raw", A);
            flush(f, 0, 16, "atlas:raw@osm");
            int tapeFile = f.catalog.aggregates(A).get(1).tapeFile();
            List<String> onIt = f.catalog.files(A).stream().filter(r -> r.tapeFile() == tapeFile)
                    .map(FileRecord::pnfsid).toList();
            f.library.faults().mediaError(A, tapeFile);

            f.await(f.scheduler.verifyCartridge(A, 0));

            VerifyReport done = verification(f, A);
            assertEquals("done", done.state());
            assertEquals(onIt, done.unreadable().stream().map(VerifyReport.FileResult::pnfsid).toList());
            assertEquals(16 - onIt.size(), done.filesGood());
            assertEquals(List.of(), done.bad());
            assertEquals(CartridgeState.SUSPECT, f.catalog.cartridge(A).orElseThrow().state());
        }
    }

    @Test
    void verify_sample_readsThatManyAggregatesFirstAndLast() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, A)) {
            f.label("raw", A);
            flush(f, 0, 20, "atlas:raw@osm");
            int aggregates = f.catalog.aggregates(A).size();
            int lastTapeFile = f.catalog.aggregates(A).get(aggregates - 1).tapeFile();
            f.library.faults().mediaError(A, lastTapeFile); // the sample must reach the last one

            f.await(f.scheduler.verifyCartridge(A, 2));

            VerifyReport done = verification(f, A);
            assertTrue(done.sampled());
            assertEquals(2, done.aggregatesDone());
            assertFalse(done.unreadable().isEmpty());
            assertTrue(done.unreadable().stream().allMatch(r -> r.tapeFile() == lastTapeFile));
            assertTrue(f.catalog.lastVerification(A).orElseThrow().sampled());
        }
    }

    @Test
    void verify_unknownOrAlreadyRunning_refusedWithTheReason() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, A, B)) {
            f.label("raw", A, B);
            flush(f, 0, 4, "atlas:raw@osm");
            CompletionException unknown = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.verifyCartridge("NOPE01L9", 0)));
            assertTrue(unknown.getCause().getMessage().contains("NOPE01L9"), unknown.getMessage());
            CompletionException empty = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.verifyCartridge(B, 0)));
            assertTrue(empty.getCause().getMessage().contains("nothing to verify"), empty.getMessage());

            var first = f.scheduler.verifyCartridge(A, 0);
            var second = f.scheduler.verifyCartridge(A, 0);
            f.loop.runUntilIdle();
            assertEquals("queued", first.join().state());
            assertTrue(second.isCompletedExceptionally());
            CompletionException twice = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    second::join);
            assertTrue(twice.getCause().getMessage().contains("already being verified"), twice.getMessage());
            assertEquals("done", verification(f, A).state());
        }
    }

    /**
     * While a verification of a cartridge is queued or running, neither a relabel (even --force) nor a repack of it
     * starts: emptied or relabelled under it, the verification would find its files gone and mark it SUSPECT.
     */
    @Test
    void verify_queued_relabelAndRepackOfTheCartridgeRefusedUntilItEnds() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().repackSpoolBytes(3_000_000).build(),
                1, CAPACITY, A, B)) {
            f.label("raw", A);
            flush(f, 0, 4, "atlas:raw@osm");
            f.label("raw", B);
            f.scheduler.verifyCartridge(A, 0);
            f.loop.runFor(1);
            assertEquals("queued", verification(f, A).state());

            var repack = f.scheduler.repackCartridge(A, null);
            f.loop.runFor(1);
            for (int i = 0; i < 4; i++) { // every file removed: a relabel --force would now replace the tape
                f.scheduler.remove(new RemoveRequest(10_000 + i, EngineFixture.pnfsid(i), "atlas"));
            }
            f.loop.runFor(500);
            var relabel = f.scheduler.relabelCartridge(A, null, true);
            f.loop.runFor(1);
            for (var refused : List.of(relabel, repack)) {
                CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                        refused::join);
                assertTrue(e.getCause().getMessage().contains("a verification of the cartridge is queued or running"),
                        e.getMessage());
            }

            f.loop.runUntilIdle();
            assertFalse(List.of("queued", "running").contains(verification(f, A).state()));
            assertEquals(CartridgeState.APPENDABLE, f.catalog.cartridge(A).orElseThrow().state());
        }
    }

    @Test
    void verify_userRecallArrives_getsTheDriveAtTheNextAggregateThenVerificationResumes() throws IOException {
        // no remount guard: B was unloaded after its flush, and the recall is to wait only for the verification
        SchedulerConfig config = EngineFixture.testConfig().familyRule("cms:.*", "other").remountGuardMillis(0)
                .build();
        try (EngineFixture f = EngineFixture.open(dir, config, 1, CAPACITY, A, B)) {
            f.label("raw", A);
            f.label("other", B);
            flush(f, 0, 40, "atlas:raw@osm");
            List<FlushRequest> onB = flush(f, 100, 2, "cms:x@osm");
            assertEquals(B, f.catalog.file(onB.get(0).pnfsid()).orElseThrow().cartridge());
            int aggregates = f.catalog.aggregates(A).size();
            // a slow drive: over 10 s per aggregate, so the verification outlasts the recall's quiet time
            f.library.faults().slowDrive("drive0", 0.001);

            f.scheduler.verifyCartridge(A, 0);
            f.loop.runFor(60_000);
            VerifyReport before = verification(f, A);
            assertEquals("running", before.state(), String.valueOf(before));
            assertTrue(before.aggregatesDone() < aggregates, String.valueOf(before));

            AtomicReference<VerifyReport> atRecall = new AtomicReference<>();
            f.alsoTell = (request, outcome) -> atRecall.set(f.peekStatus().verifications().get(0));
            StageRequest recall = f.stageRequest(100, dir.resolve("staged-100"));
            f.scheduler.stage(recall);
            f.loop.runUntilIdle();

            assertInstanceOf(Outcome.Staged.class, f.outcome(recall));
            VerifyReport whenStaged = atRecall.get();
            assertTrue(whenStaged.aggregatesDone() < aggregates, "verification ran to its end first: " + whenStaged);
            assertTrue(whenStaged.aggregatesDone() > before.aggregatesDone(), String.valueOf(whenStaged));
            VerifyReport done = verification(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(aggregates, done.aggregatesDone());
            assertEquals(40, done.filesGood());
            assertTrue(f.finishedAt.get(recall.id()) < done.ended());
        }
    }

    @Test
    void verify_driveTakenDownDuringIt_resumesOnTheOtherDriveAtTheNextAggregate() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 2, CAPACITY, A)) {
            f.label("raw", A);
            flush(f, 0, 40, "atlas:raw@osm");
            int aggregates = f.catalog.aggregates(A).size();
            f.library.faults().slowDrive("drive0", 0.001);
            f.library.faults().slowDrive("drive1", 0.001);
            f.scheduler.verifyCartridge(A, 0);
            f.loop.runFor(60_000);
            String first = f.peekStatus().drives().stream().filter(d -> A.equals(d.cartridge())).findFirst()
                    .orElseThrow().id();
            VerifyReport before = verification(f, A);
            assertEquals("running", before.state(), String.valueOf(before));

            f.scheduler.driveDown(first, "test");
            f.loop.runUntilIdle();

            VerifyReport done = verification(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(aggregates, done.aggregatesDone());
            assertEquals(40, done.filesGood());
            assertTrue(f.peekStatus().drives().stream().anyMatch(d -> d.id().equals(first)
                    && d.state().equals("down")), "the verification ended on the other drive");
            assertEquals(CartridgeState.APPENDABLE, f.catalog.cartridge(A).orElseThrow().state());
        }
    }

    @Test
    void verify_cartridgeDisabledDuringIt_stopsAtTheNextAggregateAndResumesWhenEnabled() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, A)) {
            f.label("raw", A);
            flush(f, 0, 40, "atlas:raw@osm");
            int aggregates = f.catalog.aggregates(A).size();
            f.library.faults().slowDrive("drive0", 0.001);
            f.scheduler.verifyCartridge(A, 0);
            f.loop.runFor(60_000);
            assertEquals("running", verification(f, A).state());

            f.scheduler.disableCartridge(A, "test");
            f.loop.runUntilIdle();

            VerifyReport held = verification(f, A);
            assertEquals("queued", held.state(), String.valueOf(held));
            assertTrue(held.aggregatesDone() < aggregates, String.valueOf(held));
            assertEquals(1, f.peekStatus().background().waiting());

            f.scheduler.enableCartridge(A);
            f.loop.runUntilIdle();

            VerifyReport done = verification(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(aggregates, done.aggregatesDone());
        }
    }

    @Test
    void verify_recallExcludedFromTheVerifyingDrive_verifyingDriveYieldsAndRecallEndsFirst() throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().remountGuardMillis(0).build();
        try (EngineFixture f = EngineFixture.open(dir, config, 2, CAPACITY, A)) {
            f.label("raw", A);
            flush(f, 0, 40, "atlas:raw@osm");
            int aggregates = f.catalog.aggregates(A).size();
            StageRequest first = f.stageRequest(1, dir.resolve("staged-1"));
            f.scheduler.stage(first);
            for (int s = 0; s < 600 && f.outcome(first) == null; s++) {
                f.loop.runFor(1_000);
            }
            assertInstanceOf(Outcome.Staged.class, f.outcome(first));
            String holder = f.peekStatus().drives().stream().filter(d -> A.equals(d.cartridge())).findFirst()
                    .orElseThrow().id();
            f.library.faults().slowDrive("drive0", 0.001);
            f.library.faults().slowDrive("drive1", 0.001);
            f.library.faults().failNextDriveOps(holder, 1);
            StageRequest recall = f.stageRequest(0, dir.resolve("staged-0"));
            f.scheduler.stage(recall);
            f.loop.runFor(1_000);
            assertEquals(null, f.outcome(recall), "the recall failed once on " + holder + " and waits to retry");

            f.scheduler.verifyCartridge(A, 0);
            f.loop.runFor(1_000);
            assertTrue(f.peekStatus().drives().stream().anyMatch(d -> d.id().equals(holder)
                    && A.equals(d.cartridge())), "the verification runs on " + holder);
            f.loop.runUntilIdle();

            assertInstanceOf(Outcome.Staged.class, f.outcome(recall));
            VerifyReport done = verification(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(aggregates, done.aggregatesDone());
            assertTrue(f.finishedAt.get(recall.id()) < done.ended(), "the recall waited for the verification: "
                    + f.finishedAt.get(recall.id()) + " >= " + done.ended());
        }
    }

    @Test
    void verify_moreBadFilesThanListed_statusListsTheFirstCatalogKeepsEveryOneAcrossARestart() throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().build();
        java.util.Set<String> expected = new java.util.TreeSet<>();
        AtomicReference<String> corrupt = new AtomicReference<>();
        try (EngineFixture f = EngineFixture.open(dir, config, 1, CAPACITY, A)) {
            f.label("raw", A);
            List<FlushRequest> flushes = flush(f, 0, 24, "atlas:raw@osm");
            var aggregates = f.catalog.aggregates(A);
            for (int a = 0; a < aggregates.size() - 1; a++) {
                int tapeFile = aggregates.get(a).tapeFile();
                f.library.faults().mediaError(A, tapeFile);
                f.catalog.files(A).stream().filter(r -> r.tapeFile() == tapeFile)
                        .forEach(r -> expected.add(r.pnfsid()));
            }
            FileRecord victim = f.catalog.file(flushes.get(flushes.size() - 1).pnfsid()).orElseThrow();
            f.library.faults().corruptByte(A, victim.tapeFile(), victim.offset() + victim.size() / 2);
            expected.add(victim.pnfsid());
            corrupt.set(victim.pnfsid());
            assertTrue(expected.size() > VerifyReport.LISTED + 1, "files found: " + expected.size());

            f.await(f.scheduler.verifyCartridge(A, 0));

            VerifyReport done = verification(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(expected.size() - 1, done.filesUnreadable());
            assertEquals(1, done.filesBad());
            assertEquals(VerifyReport.LISTED, done.unreadable().size(), "status lists only the first");
        }
        try (EngineFixture restarted = EngineFixture.open(dir, config, 1, CAPACITY, A)) {
            Verification recorded = restarted.catalog.lastVerification(A).orElseThrow();
            assertEquals(expected, new java.util.TreeSet<>(recorded.findings().stream()
                    .map(Verification.Finding::pnfsid).toList()));
            assertEquals(List.of(corrupt.get()), recorded.findings().stream().filter(Verification.Finding::bad)
                    .map(Verification.Finding::pnfsid).toList());
        }
    }

    @Test
    void verify_tapeSwappedWhileAnotherCartridgeHadTheDrive_labelCheckedOnTheNewMountFailsNotSuspect()
            throws IOException {
        String c = "A00003L9";
        SchedulerConfig config = EngineFixture.testConfig().familyRule("cms:.*", "other").remountGuardMillis(0)
                .build();
        try (EngineFixture f = EngineFixture.open(dir, config, 1, CAPACITY, A, B, c)) {
            f.label("raw", A);
            f.label("other", B, c);
            flush(f, 0, 40, "atlas:raw@osm");
            flush(f, 100, 2, "cms:x@osm");
            f.library.faults().slowDrive("drive0", 0.001);
            f.scheduler.verifyCartridge(A, 0);
            f.loop.runFor(60_000);
            assertEquals("running", verification(f, A).state());

            // a recall of B takes the drive; A goes back to its slot, where its tape is mixed up with C's
            f.alsoTell = (request, outcome) -> f.library.swapTapes(A, c);
            StageRequest recall = f.stageRequest(100, dir.resolve("staged-100"));
            f.scheduler.stage(recall);
            f.loop.runUntilIdle();

            assertInstanceOf(Outcome.Staged.class, f.outcome(recall));
            VerifyReport done = verification(f, A);
            assertEquals("failed", done.state(), String.valueOf(done));
            assertTrue(done.error().contains("label"), done.error());
            assertEquals(0, done.filesUnreadable() + done.filesBad(), String.valueOf(done));
            assertEquals(CartridgeState.APPENDABLE, f.catalog.cartridge(A).orElseThrow().state());
        }
    }

    @Test
    void verify_backgroundWorkOff_refusedNamingTheKey() throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().maxBackgroundDrives(0).build();
        try (EngineFixture f = EngineFixture.open(dir, config, 1, CAPACITY, A)) {
            f.label("raw", A);
            flush(f, 0, 4, "atlas:raw@osm");
            CompletionException off = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.verifyCartridge(A, 0)));
            assertTrue(off.getCause().getMessage().contains("maxBackgroundDrives"), off.getMessage());
            assertEquals(0, f.peekStatus().background().waiting());
        }
    }

    @Test
    void cancelVerification_queuedBehindADisabledCartridge_endsAtOnceAndANewOneIsAccepted() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, A)) {
            f.label("raw", A);
            flush(f, 0, 8, "atlas:raw@osm");
            f.await(f.scheduler.disableCartridge(A, "test"));
            f.await(f.scheduler.verifyCartridge(A, 0));
            assertEquals("queued", verification(f, A).state());

            VerifyReport cancelled = f.await(f.scheduler.cancelVerification(A));

            assertEquals("cancelled", cancelled.state(), String.valueOf(cancelled));
            assertEquals(0, f.peekStatus().background().waiting());
            CompletionException none = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.cancelVerification(A)));
            assertTrue(none.getCause().getMessage().contains("no verification"), none.getMessage());
            f.await(f.scheduler.enableCartridge(A));
            assertEquals("queued", f.await(f.scheduler.verifyCartridge(A, 0)).state());
            assertEquals("done", verification(f, A).state());
        }
    }

    @Test
    void cancelVerification_running_stopsAtTheNextAggregateAndFreesTheDrive() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, A)) {
            f.label("raw", A);
            flush(f, 0, 40, "atlas:raw@osm");
            int aggregates = f.catalog.aggregates(A).size();
            f.library.faults().slowDrive("drive0", 0.001);
            f.scheduler.verifyCartridge(A, 0);
            f.loop.runFor(60_000);
            assertEquals("running", verification(f, A).state());

            f.scheduler.cancelVerification(A);
            f.loop.runUntilIdle();

            VerifyReport done = verification(f, A);
            assertEquals("cancelled", done.state(), String.valueOf(done));
            assertTrue(done.aggregatesDone() < aggregates, String.valueOf(done));
            assertEquals(0, f.peekStatus().background().running());
            assertEquals(CartridgeState.APPENDABLE, f.catalog.cartridge(A).orElseThrow().state());
        }
    }
}
