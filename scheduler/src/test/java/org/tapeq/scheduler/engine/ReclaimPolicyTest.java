package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.lifecycle.ReclaimConfig;
import org.tapeq.scheduler.engine.lifecycle.ReclaimStatus;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.RemoveRequest;

/** The automatic reclamation policy on the simulated library (real bytes) in virtual time. */
class ReclaimPolicyTest {

    private static final long CAPACITY = 2_000_000_000L;
    /**
     * The simulation reports no cartridge memory, so the scheduler keeps the media type's nominal capacity: a
     * margin of all but 14 MB closes a cartridge once 16 files of about 900 kB (four aggregates) are on it.
     */
    private static final long FULL_MARGIN = MediaType.LTO9.capacityBytes() - 14_000_000L;
    private static final String A = "A00001L9";
    private static final String B = "A00002L9";
    private static final String C = "A00003L9";
    private static final String D = "A00004L9";
    private static final long INTERVAL = 60_000;
    private static final long WEEK = 7L * 24 * 3600 * 1000;

    @TempDir
    Path dir;

    private static SchedulerConfig.Builder config(boolean enabled) {
        return EngineFixture.testConfig().repackSpoolBytes(3_000_000).fullMarginBytes(FULL_MARGIN)
                .reclaim(new ReclaimConfig(enabled, 0.3, 2, 0, INTERVAL));
    }

    private static void remove(EngineFixture f, int first, int count) {
        for (int i = first; i < first + count; i++) {
            f.scheduler.remove(new RemoveRequest(10_000 + i, EngineFixture.pnfsid(i), "atlas"));
        }
    }

    private static ReclaimStatus reclaim(EngineFixture f) {
        return f.await(f.scheduler.reclaim().status());
    }

    /** A FULL with 16 files, B FULL with 16 files, C labelled and empty: the target. */
    private static void fill(EngineFixture f) throws IOException {
        f.label("raw", A);
        f.flushAll(0, 16, "atlas:raw@osm");
        f.label("raw", B);
        f.flushAll(16, 16, "atlas:raw@osm");
        f.label("raw", C);
        assertEquals(CartridgeState.FULL, f.catalog.cartridge(A).orElseThrow().state());
        assertEquals(CartridgeState.FULL, f.catalog.cartridge(B).orElseThrow().state());
        assertEquals(16, f.catalog.files(A).size());
    }

    @Test
    void reclaim_belowThresholdAfterDeletes_repackedAutomaticallyAndEmpty_oneAboveLeftAlone() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(true).build(), 1, CAPACITY, A, B, C)) {
            fill(f);
            assertEquals(0, reclaim(f).started(), "nothing is sparse yet");

            remove(f, 0, 12); // A: 4 of 16 files live, 25 % < 30 %
            remove(f, 16, 8); // B: 8 of 16 live, 50 %
            f.loop.runUntilIdle();

            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(List.of(), f.catalog.files(A));
            List<String> movedToC = f.catalog.files(C).stream().map(FileRecord::pnfsid).sorted().toList();
            assertEquals(List.of(EngineFixture.pnfsid(12), EngineFixture.pnfsid(13), EngineFixture.pnfsid(14),
                    EngineFixture.pnfsid(15)), movedToC);
            assertEquals(CartridgeState.FULL, f.catalog.cartridge(B).orElseThrow().state());
            assertEquals(8, f.catalog.files(B).size(), "B is above the threshold: left alone");
            ReclaimStatus s = reclaim(f);
            assertEquals("on", s.state());
            assertEquals(1, s.started());
            assertEquals(0, s.queued());
            assertEquals(0, s.candidates());
            assertEquals(List.of(A), f.catalog.repackJobs().stream().map(RepackJob::source).toList());
        }
    }

    @Test
    void reclaim_disabled_sparseCartridgeLeftAlone() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(false).build(), 1, CAPACITY, A, B, C)) {
            fill(f);
            remove(f, 0, 12);
            f.loop.runUntilIdle();

            assertEquals(CartridgeState.FULL, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(4, f.catalog.files(A).size());
            assertEquals("off", reclaim(f).state());
            assertEquals(List.of(), f.catalog.repackJobs());
        }
    }

    @Test
    void reclaim_paused_startsNothing_pauseSurvivesRestart_resumeRepacks() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(true).build(), 1, CAPACITY, A, B, C)) {
            fill(f);
            ReclaimStatus paused = f.await(f.scheduler.reclaim().pause("recall campaign"));
            assertEquals("paused", paused.state());

            remove(f, 0, 12);
            f.loop.runUntilIdle();

            assertEquals(CartridgeState.FULL, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(4, f.catalog.files(A).size());
            ReclaimStatus s = reclaim(f);
            assertEquals(List.of(A), s.listed(), "A is a candidate, but nothing starts while paused");
            assertEquals(0, s.started());
            assertEquals(List.of(), f.catalog.repackJobs());
        }
        try (EngineFixture f = EngineFixture.open(dir, config(true).build(), 1, CAPACITY, A, B, C)) {
            f.loop.runUntilIdle();
            ReclaimStatus s = reclaim(f);
            assertEquals("paused", s.state(), "the pause is in the catalog");
            assertEquals("recall campaign", s.reason());
            assertEquals(List.of(A), s.listed());
            assertEquals(4, f.catalog.files(A).size());

            ReclaimStatus resumed = f.await(f.scheduler.reclaim().resume());

            assertEquals("on", resumed.state());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(4, f.catalog.files(C).size());
            assertEquals(1, reclaim(f).started());
        }
        try (EngineFixture f = EngineFixture.open(dir, config(true).build(), 1, CAPACITY, A, B, C)) {
            f.loop.runUntilIdle();
            assertEquals("on", reclaim(f).state(), "the resume is in the catalog too");
        }
    }

    @Test
    void reclaim_suspectAfterVerification_goodFilesMoved_badOnesStay_leftToTheOperator() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(true).build(), 1, CAPACITY, A, B)) {
            f.label("raw", A);
            f.flushAll(0, 8, "atlas:raw@osm"); // A stays APPENDABLE: not a candidate by its live fraction
            f.label("raw", B);
            int tapeFile = f.catalog.aggregates(A).get(1).tapeFile();
            List<String> bad = f.catalog.files(A).stream().filter(r -> r.tapeFile() == tapeFile)
                    .map(FileRecord::pnfsid).sorted().toList();
            f.library.faults().mediaError(A, tapeFile);
            assertEquals(0, reclaim(f).started());

            f.await(f.scheduler.verifyCartridge(A, 0)); // finds the unreadable files: A becomes SUSPECT

            assertEquals(CartridgeState.SUSPECT, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(bad, f.catalog.files(A).stream().map(FileRecord::pnfsid).sorted().toList(),
                    "only the unreadable files stay on A");
            assertEquals(8 - bad.size(), f.catalog.files(B).size());
            RepackReport r = f.peekStatus().repacks().get(0);
            assertEquals(bad.size(), r.filesFailed());
            ReclaimStatus s = reclaim(f);
            assertEquals(1, s.started(), "not started again and again");
            assertEquals(List.of(A), s.needOperator());
            assertEquals(0, s.candidates());
        }
    }

    @Test
    void reclaim_maxRepacks_boundsTheRepacksStartedAtOnce() throws IOException {
        SchedulerConfig one = config(true).reclaim(new ReclaimConfig(true, 0.6, 1, 0, INTERVAL)).build();
        try (EngineFixture f = EngineFixture.open(dir, one, 1, CAPACITY, A, B, C)) {
            fill(f);
            remove(f, 0, 12);
            remove(f, 16, 8);
            f.loop.runFor(INTERVAL + 1_000); // the look after the deletes, and its repack queued

            ReclaimStatus s = f.peekStatus().reclaim();
            assertEquals(1, s.queued());
            assertEquals(1, f.peekStatus().repacks().size(), "one repack at a time");
            assertEquals(A, f.peekStatus().repacks().get(0).source(), "the emptiest first");

            f.loop.runUntilIdle();

            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(B).orElseThrow().state());
            assertEquals(2, reclaim(f).started());
            assertEquals(12, f.catalog.files(C).size(), "4 from A and 8 from B");
        }
    }

    @Test
    void reclaim_youngSparseCartridgeWaiting_repackEndStillStartsTheNextOldOne() throws IOException {
        SchedulerConfig oneAtATime = config(true).reclaim(new ReclaimConfig(true, 0.3, 1, WEEK, INTERVAL)).build();
        try (EngineFixture f = EngineFixture.open(dir, oneAtATime, 1, CAPACITY, A, B, C, D)) {
            f.label("raw", A);
            f.flushAll(0, 16, "atlas:raw@osm");
            f.label("raw", B);
            f.flushAll(16, 16, "atlas:raw@osm");
            f.loop.runFor(WEEK + INTERVAL); // A and B are old enough now
            f.label("raw", D);
            f.flushAll(32, 16, "atlas:raw@osm"); // D is young: its look is due in a week
            f.label("raw", C);
            assertEquals(CartridgeState.FULL, f.catalog.cartridge(D).orElseThrow().state());

            remove(f, 0, 12); // each 4 of 16 files live, 25 % < 30 %
            remove(f, 16, 12);
            remove(f, 32, 12);
            f.loop.runFor(INTERVAL + 1_000);
            assertEquals(1, f.peekStatus().repacks().size(), "one repack at a time");
            String first = f.peekStatus().repacks().get(0).source();
            String second = first.equals(A) ? B : A;
            long stop = f.loop.now() + WEEK / 2; // virtual time: step until the first repack ended
            while (f.catalog.cartridge(first).orElseThrow().state() != CartridgeState.EMPTY && f.loop.now() < stop) {
                f.loop.runFor(1_000);
            }
            assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(first).orElseThrow().state());

            f.loop.runFor(INTERVAL + 1_000); // the look after that repack ended, well before D is old enough

            assertTrue(f.peekStatus().repacks().stream().anyMatch(r -> r.source().equals(second)),
                    "the second old cartridge starts within an interval of the first ending");
            assertEquals(4, f.catalog.files(D).size(), "D is still too young");
        }
    }

    @Test
    void reclaim_repackRefused_notCountedAsStarted() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(true).build(), 1, CAPACITY, A)) {
            f.label("raw", A);
            f.flushAll(0, 16, "atlas:raw@osm"); // A FULL, the only cartridge of its family: nowhere to repack to
            assertEquals(CartridgeState.FULL, f.catalog.cartridge(A).orElseThrow().state());

            remove(f, 0, 12);
            f.loop.runUntilIdle();

            ReclaimStatus s = reclaim(f);
            assertEquals(0, s.started(), "a refused repack is not a started one");
            assertEquals(CartridgeState.FULL, f.catalog.cartridge(A).orElseThrow().state());
        }
    }

    @Test
    void reclaim_cartridgeBeingRelabelled_notRepacked() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config(true).build(), 1, CAPACITY, A, B, C)) {
            fill(f);
            f.await(f.scheduler.reclaim().pause("test"));
            remove(f, 0, 16); // A: nothing live, FULL
            f.loop.runUntilIdle();
            assertEquals(List.of(), f.catalog.repackJobs());

            f.scheduler.relabelCartridge(A, null, true);
            f.scheduler.reclaim().resume(); // looks at once, while the relabel of A is queued
            f.loop.runUntilIdle();

            assertEquals(List.of(), f.catalog.repackJobs(), "reclamation repacked a cartridge being relabelled");
            assertEquals(CartridgeState.APPENDABLE, f.catalog.cartridge(A).orElseThrow().state());
            assertEquals(0, reclaim(f).started());
        }
    }
}
