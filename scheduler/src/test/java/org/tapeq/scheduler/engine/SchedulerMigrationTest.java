package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.lifecycle.MigrationReport;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.RemoveRequest;
import org.tapeq.scheduler.engine.lifecycle.ReclaimConfig;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.tape.sim.SimLibraryBuilder;

/**
 * Media migration (LTO-8 to LTO-9) on a simulated library with one drive of each generation, real bytes, in
 * virtual time. The simulated LTO-8 drive refuses LTO-9 cartridges, so a mount the dispatcher should not have
 * chosen shows in {@code incompatibleMounts}.
 */
class SchedulerMigrationTest {

    private static final long CAPACITY = 2_000_000_000L;
    private static final List<String> LTO8 = List.of("A00001L8", "A00002L8", "A00003L8");
    private static final String L9A = "B00001L9";
    private static final String L9B = "B00002L9";
    private static final int PER_CARTRIDGE = 6;

    @TempDir
    Path dir;

    private EngineFixture open() throws IOException {
        return EngineFixture.open(dir, EngineFixture.testConfig().repackSpoolBytes(3_000_000).build(),
                SchedulerMigrationTest::library);
    }

    private static void library(SimLibraryBuilder b) {
        b.drive("lto8", DriveType.LTO8).drive("lto9", DriveType.LTO9);
        for (String barcode : LTO8) {
            b.cartridge(barcode, MediaType.LTO8, CAPACITY);
        }
        b.cartridge(L9A, MediaType.LTO9, CAPACITY).cartridge(L9B, MediaType.LTO9, CAPACITY);
    }

    /** Six files on each LTO-8 cartridge, then the LTO-9 cartridges labelled for the same family. */
    private static List<FlushRequest> fill(EngineFixture f) throws IOException {
        return fill(f, LTO8, L9A, L9B);
    }

    /** Six files on each of {@code sources}, then {@code targets} labelled for the same family. */
    private static List<FlushRequest> fill(EngineFixture f, List<String> sources, String... targets)
            throws IOException {
        List<FlushRequest> flushed = new ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            f.label("raw", sources.get(i));
            flushed.addAll(f.flushAll(i * PER_CARTRIDGE, PER_CARTRIDGE, "atlas:raw@osm"));
            f.await(f.scheduler.disableCartridge(sources.get(i), "test: fill the next one"));
        }
        for (String barcode : sources) {
            f.await(f.scheduler.enableCartridge(barcode));
            assertEquals(PER_CARTRIDGE, f.catalog.files(barcode).size(), barcode);
        }
        f.label("raw", targets);
        return flushed;
    }

    private static MigrationReport migration(EngineFixture f) {
        List<MigrationReport> all = f.peekStatus().migrations();
        return all.get(all.size() - 1);
    }

    /** Runs the loop a second at a time until the migration report satisfies {@code until}. */
    private static MigrationReport runUntil(EngineFixture f, java.util.function.Predicate<MigrationReport> until) {
        for (int step = 0; step < 200_000; step++) {
            f.loop.runFor(1_000);
            MigrationReport r = migration(f);
            if (until.test(r)) {
                return r;
            }
        }
        throw new AssertionError("migration never reached the condition: " + migration(f));
    }

    /** Every file staged from where the catalog has it now (an LTO-9 cartridge), byte-identical to its source. */
    private void assertAllOnLto9ByteIdentical(EngineFixture f, List<FlushRequest> flushed) throws IOException {
        assertAllOnLto9ByteIdentical(f, flushed, LTO8);
    }

    private void assertAllOnLto9ByteIdentical(EngineFixture f, List<FlushRequest> flushed, List<String> sources)
            throws IOException {
        List<StageRequest> stages = new ArrayList<>();
        for (FlushRequest r : flushed) {
            String on = f.catalog.file(r.pnfsid()).orElseThrow().cartridge();
            assertTrue(on.endsWith("L9"), r.pnfsid() + " is on " + on);
            int i = Integer.parseInt(r.pnfsid().substring(r.pnfsid().length() - 6), 16);
            StageRequest s = f.stageRequest(i, dir.resolve("staged").resolve(r.pnfsid()));
            Files.createDirectories(s.target().getParent());
            stages.add(s);
            f.scheduler.stage(s);
        }
        f.loop.runUntilIdle();
        for (int k = 0; k < stages.size(); k++) {
            StageRequest s = stages.get(k);
            assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid());
            assertArrayEquals(Files.readAllBytes(flushed.get(k).source()), Files.readAllBytes(s.target()),
                    s.pnfsid());
        }
        for (String barcode : sources) {
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(barcode).orElseThrow().state(), barcode);
            assertEquals(List.of(), f.catalog.files(barcode), barcode);
        }
    }

    @Test
    void migrate_movesEveryLto8CartridgeOntoLto9_stagedBackByteIdentical_lto8DriveNeverGivenLto9() throws IOException {
        try (EngineFixture f = open()) {
            List<FlushRequest> flushed = fill(f);
            long liveBytes = flushed.stream().mapToLong(FlushRequest::size).sum();

            MigrationReport started = f.await(f.scheduler.migrate("LTO8", "LTO-9", null));

            assertEquals(LTO8.size(), started.cartridgesTotal());
            assertTrue(started.bytesTotal() >= liveBytes, started.bytesTotal() + " < " + liveBytes);
            MigrationReport done = migration(f);
            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(3, done.cartridgesDone());
            assertEquals(0, done.cartridgesFailed());
            assertNull(done.current());
            assertEquals(LTO8, done.results().stream().map(MigrationReport.CartridgeResult::barcode).toList());
            assertTrue(done.results().stream().allMatch(MigrationReport.CartridgeResult::emptied));
            assertAllOnLto9ByteIdentical(f, flushed);
            assertEquals(RepackJob.DONE, f.catalog.migrationJobs().get(0).state());
            assertEquals(0, f.library.incompatibleMounts(), "a cartridge was offered to a drive that cannot read it");
        }
    }

    @Test
    void migrate_etaFromTheMeasuredRate_isPresentAndNearTheActualEnd() throws IOException {
        try (EngineFixture f = open()) {
            fill(f);
            long start = f.loop.now();
            f.scheduler.migrate("LTO-8", "LTO-9", "raw");
            MigrationReport half = runUntil(f, r -> r.bytesDone() * 2 >= r.bytesTotal());
            long now = f.loop.now();

            assertTrue(half.rateBytesPerSecond() > 0, String.valueOf(half));
            assertTrue(half.etaMillis() > now, String.valueOf(half));
            // measured, not nominal: moves, mounts, reads and writes make it far below one drive's 400 MB/s
            assertTrue(half.rateBytesPerSecond() < MediaType.LTO9.rateBytesPerSecond(), String.valueOf(half));
            assertEquals(half.bytesDone() * 1000 / (now - start), half.rateBytesPerSecond(),
                    half.rateBytesPerSecond() / 100.0, "bytes moved over time taken so far");
            MigrationReport done = runUntil(f, MigrationReport::hasEnded);

            long predicted = half.etaMillis() - now;
            long actual = done.ended() - now;
            assertTrue(predicted > actual / 3 && predicted < actual * 3,
                    "predicted " + predicted + " ms left, took " + actual + " ms");
            assertEquals(done.ended(), done.etaMillis());
        }
    }

    @Test
    void migrate_restartInTheMiddle_resumesAndMovesEverything() throws IOException {
        List<FlushRequest> flushed;
        try (EngineFixture f = open()) {
            flushed = fill(f);
            f.scheduler.migrate("LTO8", "LTO9", null);
            MigrationReport atCrash = runUntil(f, r -> r.cartridgesDone() >= 1 && r.current() != null
                    && f.catalog.files(r.current()).size() < PER_CARTRIDGE);
            assertEquals(RepackJob.RUNNING, f.catalog.migrationJobs().get(0).state(), String.valueOf(atCrash));
        } // no orderly stop, as at kill -9

        try (EngineFixture f = open()) {
            f.loop.runUntilIdle();

            MigrationReport done = migration(f);
            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(3, done.cartridgesDone(), String.valueOf(done));
            assertAllOnLto9ByteIdentical(f, flushed);
            assertEquals(RepackJob.DONE, f.catalog.migrationJobs().get(0).state());
            assertEquals(0, f.library.incompatibleMounts());
        }
    }

    @Test
    void migrate_cancel_stopsAfterTheCurrentCartridgeWork_leavesTheRestInPlace() throws IOException {
        try (EngineFixture f = open()) {
            fill(f);
            f.scheduler.migrate("LTO8", "LTO9", null);
            runUntil(f, r -> r.cartridgesDone() >= 1 && r.current() != null);

            MigrationReport cancelled = f.await(f.scheduler.cancelMigration());

            MigrationReport end = migration(f);
            assertEquals(RepackJob.CANCELLED, end.state(), String.valueOf(end));
            assertTrue(end.cartridgesDone() >= 1 && end.cartridgesDone() < 3, String.valueOf(end));
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(LTO8.get(0)).orElseThrow().state());
            assertEquals(PER_CARTRIDGE, f.catalog.files(LTO8.get(2)).size(), "the last one was never started");
            assertEquals(RepackJob.CANCELLED, f.catalog.migrationJobs().get(0).state());
            assertNotNull(f.catalog.migrationJobs().get(0).summary());
            CompletionException none = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.cancelMigration()));
            assertInstanceOf(IllegalArgumentException.class, none.getCause());
            assertNotNull(cancelled);
        }
    }

    @Test
    void migrate_refused_withoutTargetMedia_orTwiceAtOnce() throws IOException {
        try (EngineFixture f = open()) {
            for (int i = 0; i < LTO8.size(); i++) {
                f.label("raw", LTO8.get(i));
            }
            f.flushAll(0, 2, "atlas:raw@osm");
            CompletionException noTarget = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.migrate("LTO8", "LTO9", null)));
            assertTrue(noTarget.getCause().getMessage().contains("no LTO-9 cartridge is labelled for family raw"),
                    noTarget.getCause().getMessage());
            CompletionException unknown = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.migrate("LTO5", "LTO9", null)));
            assertTrue(unknown.getCause().getMessage().contains("unknown media type 'LTO5'"));
        }
    }

    @Test
    void migrate_emptyLabelledLto8CartridgeOfTheFamily_closedToo_flushesDuringTheMigrationLandOnLto9()
            throws IOException {
        try (EngineFixture f = open()) {
            f.label("raw", LTO8.get(0));
            f.flushAll(0, PER_CARTRIDGE, "atlas:raw@osm");
            f.label("raw", LTO8.get(2), L9A, L9B); // LTO8.get(2): labelled for the family, nothing on it
            assertEquals(CartridgeState.APPENDABLE, f.catalog.cartridge(LTO8.get(2)).orElseThrow().state());

            f.scheduler.migrate("LTO-8", "LTO-9", "raw");
            f.loop.runFor(1_000);
            assertEquals(CartridgeState.FULL, f.catalog.cartridge(LTO8.get(2)).orElseThrow().state(),
                    "the empty LTO-8 cartridge of the family is closed for writing");
            CompletionException relabel = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.relabelCartridge(LTO8.get(2), null, true)));
            assertTrue(relabel.getCause().getMessage().contains("migration"), relabel.getMessage());
            f.flushAll(100, PER_CARTRIDGE, "atlas:raw@osm");
            runUntil(f, MigrationReport::hasEnded);
            f.loop.runUntilIdle();

            for (String barcode : LTO8) {
                assertEquals(List.of(), f.catalog.files(barcode), barcode + " still holds live files");
            }
            assertEquals(2 * PER_CARTRIDGE, f.catalog.files(L9A).size() + f.catalog.files(L9B).size());
        }
    }

    @Test
    void migrate_catalogDoesNotRecordIt_refused_nothingStarted_cartridgesReopened() throws IOException {
        FailingCallCatalog failing = new FailingCallCatalog();
        try (EngineFixture f = EngineFixture.openCatalogWrapped(dir, EngineFixture.testConfig()
                .repackSpoolBytes(3_000_000).build(), failing::wrap, SchedulerMigrationTest::library)) {
            fill(f);
            List<CartridgeState> before = LTO8.stream()
                    .map(b -> f.catalog.cartridge(b).orElseThrow().state()).toList();
            failing.fail("putMigrationJob");

            CompletionException refused = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.migrate("LTO8", "LTO9", null)));

            assertTrue(refused.getCause().getMessage().contains("did not record"), refused.getMessage());
            assertEquals(List.of(), f.peekStatus().migrations(), "no migration runs that a restart would forget");
            assertEquals(List.of(), f.catalog.repackJobs());
            assertEquals(before, LTO8.stream().map(b -> f.catalog.cartridge(b).orElseThrow().state()).toList(),
                    "the cartridges closed for it are open again");
            for (String barcode : LTO8) {
                assertEquals(PER_CARTRIDGE, f.catalog.files(barcode).size(), barcode);
            }
        }
    }

    @Test
    void migrate_nextCartridgeUnderAManualRepack_waitsForIt_thenContinues() throws IOException {
        try (EngineFixture f = open()) {
            List<FlushRequest> flushed = fill(f);
            var manual = f.scheduler.repackCartridge(LTO8.get(0), null); // by hand, before the migration
            var started = f.scheduler.migrate("LTO8", "LTO9", null);
            f.loop.runFor(1_000);
            assertTrue(started.isDone() && !started.isCompletedExceptionally());
            assertNotNull(manual);
            assertEquals(LTO8.get(0), migration(f).current(), "the migration waits for the repack by hand");

            MigrationReport done = runUntil(f, MigrationReport::hasEnded);

            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(LTO8.size(), done.cartridgesDone(), String.valueOf(done));
            assertEquals(0, done.cartridgesFailed(), String.valueOf(done));
            RepackJob first = f.catalog.repackJobs().stream().filter(j -> j.source().equals(LTO8.get(0)))
                    .findFirst().orElseThrow();
            assertNull(first.targetMedia(), "cartridge 1 was emptied by the repack by hand, not repacked twice");
            assertAllOnLto9ByteIdentical(f, flushed);
        }
    }

    @Test
    void migrate_startedAsAManualRepackOfTheSameCartridgeEnds_noCartridgeFailed_everythingMoved()
            throws IOException {
        try (EngineFixture f = open()) {
            List<FlushRequest> flushed = fill(f);
            f.scheduler.repackCartridge(LTO8.get(0), "raw", "LTO9");
            // run the repack by hand up to its last commit, then ask for the migration in the same loop turn
            while (!f.catalog.files(LTO8.get(0)).isEmpty()) {
                f.loop.runFor(100);
            }
            RepackReport manual = f.peekStatus().repacks().get(0);
            var started = f.scheduler.migrate("LTO8", "LTO9", null);

            MigrationReport done = runUntil(f, MigrationReport::hasEnded);

            assertTrue(started.isDone() && !started.isCompletedExceptionally(), String.valueOf(manual));
            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(0, done.cartridgesFailed(), String.valueOf(done));
            assertAllOnLto9ByteIdentical(f, flushed);
        }
    }

    @Test
    void migrate_reclamationOn_leavesTheMigratedCartridgesToTheMigration() throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().repackSpoolBytes(3_000_000)
                .reclaim(new ReclaimConfig(true, 0.9, 2, 0, 60_000)).build();
        try (EngineFixture f = EngineFixture.open(dir, config, SchedulerMigrationTest::library)) {
            fill(f);
            f.scheduler.migrate("LTO8", "LTO9", null);
            f.loop.runFor(1_000);
            // files 0..1 of each LTO-8 cartridge removed: 4 of 6 live, below 0.9, and the migration closed them
            for (int i = 0; i < LTO8.size(); i++) {
                for (int k = 0; k < 2; k++) {
                    f.scheduler.remove(new RemoveRequest(10_000 + i * 10 + k,
                            EngineFixture.pnfsid(i * PER_CARTRIDGE + k), "atlas"));
                }
            }

            MigrationReport done = runUntil(f, MigrationReport::hasEnded);

            assertEquals(0, f.peekStatus().reclaim().started(),
                    "reclamation repacked a cartridge the migration is moving");
            for (RepackJob j : f.catalog.repackJobs()) {
                assertEquals("LTO-9", j.targetMedia(), j.source() + " repacked by the migration");
            }
            assertEquals(LTO8.size(), done.cartridgesDone(), String.valueOf(done));
        }
    }

    /**
     * Makes {@code barcode} appendable for family raw in the engine, as any path that does so behind the migration's
     * back would (a tapeq label read at the first mount of a cartridge the catalog did not know, a relabel that
     * failed and reopened its cartridge).
     */
    private static void reopen(EngineFixture f, String barcode) {
        f.loop.execute(() -> {
            Engine engine = f.scheduler.engineForTests();
            CartridgeRecord c = engine.cartridges.get(barcode);
            engine.queues.updateCartridge(new CartridgeRecord(c.barcode(), c.mediaType(), "raw",
                    CartridgeState.APPENDABLE, c.capacityBytes(), c.usedBytes(), c.reclaimableBytes(), c.tapeFiles(),
                    c.mountCount(), c.lastMount(), c.disabled(), "reopened"));
        });
        f.loop.runFor(1);
    }

    @Test
    void migrate_lto8CartridgeAppendableMeanwhile_neverARepackTarget() throws IOException {
        String late = "A00009L8"; // sorts first: the old choice among equally empty targets
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().repackSpoolBytes(3_000_000)
                .build(), b -> {
            library(b);
            b.cartridge(late, MediaType.LTO8, CAPACITY);
        })) {
            List<FlushRequest> flushed = fill(f);
            f.scheduler.migrate("LTO8", "LTO9", null);
            f.loop.runFor(1_000);
            reopen(f, late);
            runUntil(f, r -> !f.catalog.files(L9A).isEmpty());
            f.scheduler.repackCartridge(L9A, null); // by hand, onto any media of the family

            runUntil(f, MigrationReport::hasEnded);
            f.loop.runUntilIdle();

            assertTrue(f.peekStatus().repacks().stream().anyMatch(r -> r.source().equals(L9A) && r.filesDone() > 0),
                    String.valueOf(f.peekStatus().repacks()));
            assertEquals(List.of(), f.catalog.files(late), "a repack wrote to the media being migrated off");
            assertAllOnLto9ByteIdentical(f, flushed);
        }
    }

    @Test
    void migrate_labelOfAnOldMediaCartridgeForTheFamily_refusedNamingTheMigration_allowedForAnotherOrAfter()
            throws IOException {
        String late = "A00009L8";
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().repackSpoolBytes(3_000_000)
                .build(), b -> {
            library(b);
            b.cartridge(late, MediaType.LTO8, CAPACITY);
        })) {
            fill(f);
            f.scheduler.migrate("LTO-8", "LTO-9", "raw");
            MigrationReport started = runUntil(f, r -> r.current() != null);

            CompletionException refused = assertThrows(CompletionException.class,
                    () -> f.await(f.scheduler.labelCartridge(late, "raw", false)));
            String why = refused.getCause().getMessage();
            assertInstanceOf(IllegalStateException.class, refused.getCause());
            assertTrue(why.contains("label " + late) && why.contains("migration " + started.id())
                    && why.contains("raw") && why.contains("LTO-8"), why);
            assertEquals(CartridgeState.UNKNOWN, f.catalog.cartridge(late).orElseThrow().state());
            f.label("other", late); // another family's cartridges are not migrated

            runUntil(f, MigrationReport::hasEnded);
            f.label("raw", late);
            assertEquals("raw", f.catalog.cartridge(late).orElseThrow().family());
        }
    }

    @Test
    void migrate_lto8CartridgeAppendableMeanwhile_newFlushesOfTheFamilyNeverWrittenToIt() throws IOException {
        try (EngineFixture f = open()) {
            fill(f);
            String last = LTO8.get(2); // migrated last, the fullest cartridge of the family
            int tapeFilesBefore = f.catalog.cartridge(last).orElseThrow().tapeFiles();
            f.scheduler.migrate("LTO8", "LTO9", null);
            f.loop.runFor(1_000);
            reopen(f, last);

            List<FlushRequest> late = f.flushAll(100, PER_CARTRIDGE, "atlas:raw@osm");
            runUntil(f, MigrationReport::hasEnded);

            for (FlushRequest r : late) {
                Outcome.Flushed done = assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid());
                assertTrue(List.of(L9A, L9B).contains(done.location().cartridge()), r.pnfsid() + " written to "
                        + done.location().cartridge() + ", media being migrated off");
            }
            assertEquals(tapeFilesBefore, f.catalog.cartridge(last).orElseThrow().tapeFiles(),
                    "tape files written to " + last + " during the migration");
        }
    }

    /** The engine's copy of a cartridge does not follow deletes: closing one from it must not undo them. */
    @Test
    void migrate_afterDeletes_closingAndDisablingKeepTheReclaimableBytes() throws IOException {
        try (EngineFixture f = open()) {
            List<FlushRequest> flushed = fill(f);
            for (int i = 0; i < LTO8.size(); i++) {
                f.scheduler.remove(new RemoveRequest(10_000 + i, flushed.get(i * PER_CARTRIDGE).pnfsid(), "atlas"));
            }
            f.loop.runUntilIdle();
            List<Long> reclaimable = new ArrayList<>();
            for (int i = 0; i < LTO8.size(); i++) {
                long removed = flushed.get(i * PER_CARTRIDGE).size();
                assertEquals(removed, f.catalog.cartridge(LTO8.get(i)).orElseThrow().reclaimableBytes(), LTO8.get(i));
                reclaimable.add(removed);
            }

            f.await(f.scheduler.disableCartridge(LTO8.get(0), "test"));
            f.await(f.scheduler.enableCartridge(LTO8.get(0)));
            assertEquals(reclaimable.get(0), f.catalog.cartridge(LTO8.get(0)).orElseThrow().reclaimableBytes());
            f.scheduler.migrate("LTO8", "LTO9", null);
            runUntil(f, r -> r.current() != null);

            String last = LTO8.get(2); // closed by the migration, not repacked yet
            CartridgeRecord closed = f.catalog.cartridge(last).orElseThrow();
            assertEquals(CartridgeState.FULL, closed.state(), String.valueOf(closed));
            assertEquals(reclaimable.get(2), closed.reclaimableBytes(), String.valueOf(closed));
        }
    }

    // Several drives: four LTO-9 drives (they read LTO-8), four LTO-8 sources, four LTO-9 targets.
    private static final List<String> FOUR_LTO8 = List.of("A00001L8", "A00002L8", "A00003L8", "A00004L8");
    private static final String[] FOUR_LTO9 = {"B00001L9", "B00002L9", "B00003L9", "B00004L9"};

    /**
     * Four LTO-9 drives, {@link #FOUR_LTO8} and {@link #FOUR_LTO9}: with real bytes on small cartridges, or
     * ({@code bytes} false) a size-only library of full-size cartridges and the default spool, where streaming
     * outweighs the robot's exchanges as it does with real data volumes.
     */
    private EngineFixture openFourDrives(Path at, int migrationRepacks, boolean bytes) throws IOException {
        SchedulerConfig.Builder config = EngineFixture.testConfig().maxBackgroundDrives(4)
                .migrationRepacks(migrationRepacks);
        config = bytes ? config.repackSpoolBytes(3_000_000)
                : config.repackSpoolBytes(SchedulerConfig.DEFAULT_REPACK_SPOOL_BYTES).checkLabels(false);
        return EngineFixture.open(at, config.build(), bytes, b -> {
            for (int i = 1; i <= 4; i++) {
                b.drive("lto9-" + i, DriveType.LTO9);
            }
            FOUR_LTO8.forEach(barcode -> b.cartridge(barcode, MediaType.LTO8, bytes ? CAPACITY
                    : MediaType.LTO8.capacityBytes()));
            for (String barcode : FOUR_LTO9) {
                b.cartridge(barcode, MediaType.LTO9, bytes ? CAPACITY : MediaType.LTO9.capacityBytes());
            }
        });
    }

    /** Twenty 10 GB files (size-only) on each of {@link #FOUR_LTO8}, then {@link #FOUR_LTO9} labelled. */
    private static void fillSized(EngineFixture f) {
        int n = 0;
        for (String barcode : FOUR_LTO8) {
            f.label("raw", barcode);
            List<FlushRequest> flushes = new ArrayList<>();
            for (int i = 0; i < 20; i++, n++) {
                flushes.add(f.sizedFlush(n, 10_000_000_000L, "ds" + n % 2, "atlas"));
            }
            flushes.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            flushes.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid()));
            f.await(f.scheduler.disableCartridge(barcode, "test: fill the next one"));
        }
        for (String barcode : FOUR_LTO8) {
            f.await(f.scheduler.enableCartridge(barcode));
        }
        f.label("raw", FOUR_LTO9);
    }

    /** What a migration on four drives did: its loop time, the most repacks in flight and on drives at once. */
    private record Observed(MigrationReport half, long halfAt, MigrationReport done, long millis, int maxMoving,
                            int maxActive) {
    }

    /**
     * Runs a migration of {@link #FOUR_LTO8} to its end, a second at a time, checking at each step that no two
     * running repacks write to one target.
     */
    private static Observed migrateFour(EngineFixture f) {
        long start = f.loop.now();
        f.scheduler.migrate("LTO8", "LTO9", null);
        int maxMoving = 0;
        int maxActive = 0;
        MigrationReport half = null;
        long halfAt = 0;
        for (int step = 0; step < 200_000; step++) {
            f.loop.runFor(1_000);
            MigrationReport r = migration(f);
            maxMoving = Math.max(maxMoving, r.moving().size());
            List<String> targets = new ArrayList<>();
            int active = 0;
            for (RepackReport p : f.peekStatus().repacks()) {
                if (!p.hasEnded() && p.target() != null) {
                    assertTrue(!targets.contains(p.target()), "two repacks write to " + p.target() + ": "
                            + f.peekStatus().repacks());
                    targets.add(p.target());
                }
                active += !p.hasEnded() && ("reading".equals(p.state()) || "writing".equals(p.state())) ? 1 : 0;
            }
            maxActive = Math.max(maxActive, active);
            if (half == null && r.bytesDone() * 2 >= r.bytesTotal()) {
                half = r;
                halfAt = f.loop.now();
            }
            if (r.hasEnded()) {
                return new Observed(half, halfAt, r, r.ended() - start, maxMoving, maxActive);
            }
        }
        throw new AssertionError("migration never ended: " + migration(f));
    }

    @Test
    void migrate_fourDrivesFourCartridges_repacksSeveralAtOnce_eachOnItsOwnTarget_muchFasterThanOneAtATime()
            throws IOException {
        Observed one;
        try (EngineFixture f = openFourDrives(dir.resolve("one"), 1, false)) {
            fillSized(f);
            one = migrateFour(f);
            assertEquals(RepackJob.DONE, one.done().state(), String.valueOf(one.done()));
            assertEquals(1, one.maxMoving(), "migrationRepacks: 1 keeps one repack in flight");
        }
        try (EngineFixture f = openFourDrives(dir.resolve("parallel"), 0, false)) {
            fillSized(f);
            Observed par = migrateFour(f);

            MigrationReport done = par.done();
            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(4, done.cartridgesDone(), String.valueOf(done));
            assertEquals(List.of(), done.moving());
            System.out.printf("migration of 4 cartridges on 4 drives: one repack at a time %d s, several %d s"
                    + " (at most %d in flight, %d reading or writing)%n", one.millis() / 1000, par.millis() / 1000,
                    par.maxMoving(), par.maxActive());
            assertTrue(par.maxMoving() >= 3, "repacks in flight at once: " + par.maxMoving());
            assertTrue(par.maxActive() >= 3, "repacks on a drive at once: " + par.maxActive());
            // four drives, four cartridges: ideally a quarter of the time; well under half allows for the
            // repacks' start and the migration's look every 10 s
            assertTrue(par.millis() < one.millis() / 2, "several at once took " + par.millis() + " ms, one at a"
                    + " time " + one.millis() + " ms");
            // the estimate counts every repack in flight: bytes moved over time so far, and near the real end
            MigrationReport half = par.half();
            long elapsed = par.halfAt() - (done.started());
            assertEquals(half.bytesDone() * 1000 / elapsed, half.rateBytesPerSecond(),
                    half.rateBytesPerSecond() / 100.0, String.valueOf(half));
            long predicted = half.etaMillis() - par.halfAt();
            long actual = done.ended() - par.halfAt();
            assertTrue(predicted > actual / 3 && predicted < actual * 3,
                    "predicted " + predicted + " ms left, took " + actual + " ms");
            assertEquals(done.bytesDone(), done.results().stream()
                    .mapToLong(MigrationReport.CartridgeResult::bytesMoved).sum());
            for (String barcode : FOUR_LTO8) {
                assertEquals(List.of(), f.catalog.files(barcode), barcode);
            }
        }
    }

    @Test
    void migrate_fourDrives_restartWithSeveralRepacksInFlight_resumesEveryOne_movesEverything() throws IOException {
        List<FlushRequest> flushed;
        List<String> inFlight;
        try (EngineFixture f = openFourDrives(dir, 0, true)) {
            flushed = fill(f, FOUR_LTO8, FOUR_LTO9);
            f.scheduler.migrate("LTO8", "LTO9", null);
            MigrationReport atCrash = runUntil(f, r -> r.moving().size() >= 3 && r.moving().stream()
                    .filter(b -> f.catalog.files(b).size() < PER_CARTRIDGE).count() >= 2);
            inFlight = f.catalog.repackJobs().stream().filter(RepackJob::unfinished).map(RepackJob::source).toList();
            assertTrue(inFlight.size() >= 2 && atCrash.moving().containsAll(inFlight),
                    "unfinished in the catalog at the crash: " + inFlight + ", " + atCrash);
        } // no orderly stop, as at kill -9

        try (EngineFixture f = openFourDrives(dir, 0, true)) {
            f.loop.runUntilIdle();

            MigrationReport done = migration(f);
            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(4, done.cartridgesDone(), String.valueOf(done));
            for (String barcode : inFlight) { // this run's repacks: each was resumed and emptied its cartridge
                RepackReport resumed = f.peekStatus().repacks().stream().filter(r -> r.source().equals(barcode))
                        .findFirst().orElseThrow(() -> new AssertionError(barcode + " was not resumed"));
                assertTrue(resumed.emptied(), String.valueOf(resumed));
            }
            assertAllOnLto9ByteIdentical(f, flushed, FOUR_LTO8);
            assertEquals(RepackJob.DONE, f.catalog.migrationJobs().get(0).state());
        }
    }

    /**
     * During a migration the periodic verification still verifies the old-media cartridges it has not reached
     * (their copies are the only ones until then), only not the one being repacked; the migration leaves a
     * cartridge under verification until that ends, then empties it too.
     */
    @Test
    void migration_periodicVerification_verifiesOldCartridgesNotYetReached_migrationWaitsForIt() throws IOException {
        SchedulerConfig.Builder config = EngineFixture.testConfig().repackSpoolBytes(3_000_000).migrationRepacks(1);
        try (EngineFixture f = EngineFixture.open(dir, config.build(), SchedulerMigrationTest::library)) {
            fill(f);
            f.scheduler.migrate("LTO8", "LTO9", null);
            f.loop.runFor(1_000); // the migration and the repack of its first cartridge are recorded; then a kill -9
            assertEquals(List.of(LTO8.get(0)), f.catalog.repackJobs().stream().map(RepackJob::source).toList());
        }

        try (EngineFixture f = EngineFixture.openTimed(dir, config.verifyPerWeek(1).build(),
                SchedulerMigrationTest::library)) {
            var policy = f.peekStatus().verifyPolicy();
            assertEquals(2, policy.eligible(), String.valueOf(policy)); // not the one being repacked
            assertEquals(LTO8.get(1), policy.lastStarted(), String.valueOf(policy));

            MigrationReport done = runUntil(f, r -> !RepackJob.RUNNING.equals(r.state()));
            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(LTO8, done.results().stream().filter(MigrationReport.CartridgeResult::emptied)
                    .map(MigrationReport.CartridgeResult::barcode).sorted().toList(), String.valueOf(done));
            assertTrue(f.catalog.lastVerification(LTO8.get(1)).isPresent(), "verified before it was emptied");
        }
    }

    /** A cartridge under verification when the migration reaches it is repacked once the verification has ended. */
    @Test
    void migration_cartridgeUnderVerification_repackedAfterItNotFailed() throws IOException {
        try (EngineFixture f = open()) {
            fill(f);
            f.scheduler.verifyCartridge(LTO8.get(0), 0);
            f.loop.runFor(1);
            f.scheduler.migrate("LTO8", "LTO9", null);

            MigrationReport done = runUntil(f, r -> !RepackJob.RUNNING.equals(r.state()));
            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(LTO8, done.results().stream().filter(MigrationReport.CartridgeResult::emptied)
                    .map(MigrationReport.CartridgeResult::barcode).sorted().toList(), String.valueOf(done));
            assertTrue(f.catalog.lastVerification(LTO8.get(0)).isPresent(), "verified before it was emptied");
        }
    }

    /**
     * A crash after the cartridges were closed for a migration but before its record reached the catalog leaves
     * them closed with no migration: the next start reopens them. One closed by a recorded (here: cancelled)
     * migration stays closed, as documented.
     */
    @Test
    void migrate_crashBeforeItsRecord_closedCartridgesReopenedAtTheNextStart() throws IOException {
        try (EngineFixture f = open()) {
            fill(f);
            for (String barcode : LTO8) {
                CartridgeRecord c = f.catalog.cartridge(barcode).orElseThrow();
                assertEquals(CartridgeState.APPENDABLE, c.state(), String.valueOf(c));
                // as the closes left them, the migration's record not written: then a kill -9
                f.catalog.putCartridge(c.withState(CartridgeState.FULL, "closed for writing: being migrated to LTO-9"));
            }
        }

        try (EngineFixture f = open()) {
            for (String barcode : LTO8) {
                CartridgeRecord c = f.catalog.cartridge(barcode).orElseThrow();
                assertEquals(CartridgeState.APPENDABLE, c.state(), String.valueOf(c));
                assertNull(c.reason(), String.valueOf(c));
            }
            f.scheduler.migrate("LTO8", "LTO9", null);
            f.loop.runFor(1_000);
            f.await(f.scheduler.cancelMigration());
        }

        try (EngineFixture f = open()) {
            long closed = LTO8.stream().filter(b -> f.catalog.cartridge(b).orElseThrow().state()
                    == CartridgeState.FULL).count();
            assertTrue(closed >= 2, "the cartridges the cancelled migration did not reach stay closed");
        }
    }

    /**
     * Two repacks and one target: the second waits for a target; a cancel ends it at once, not at its next look
     * for a target.
     */
    @Test
    void migrate_repackWaitingForATarget_cancelEndsItAtOnce() throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().repackSpoolBytes(3_000_000).maxBackgroundDrives(2)
                .build();
        try (EngineFixture f = EngineFixture.open(dir, config, SchedulerMigrationTest::library)) {
            fill(f, LTO8, L9A);
            f.scheduler.migrate("LTO8", "LTO9", null);
            runUntil(f, r -> f.peekStatus().repacks().stream()
                    .anyMatch(p -> "waiting for a target".equals(p.state())));
            String waiting = f.peekStatus().repacks().stream()
                    .filter(p -> "waiting for a target".equals(p.state())).findFirst().orElseThrow().source();

            f.scheduler.cancelRepack(waiting);
            f.loop.runFor(1);

            RepackReport r = f.peekStatus().repacks().stream().filter(p -> p.source().equals(waiting))
                    .findFirst().orElseThrow();
            assertEquals(RepackJob.CANCELLED, r.state(), String.valueOf(r));
        }
    }
}
