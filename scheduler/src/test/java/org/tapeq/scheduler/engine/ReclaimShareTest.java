package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.lifecycle.ReclaimConfig;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeRequest;
import org.tapeq.scheduler.model.RemoveRequest;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.tape.sim.SimLibraryBuilder;

/**
 * A campaign of user work beside automatic reclamation (two or four repacks as background work) takes at most
 * {@code 1 + scheduler.backgroundShare} times its time alone plus one safe-point wait and unload of the drives the
 * repacks hold ({@link #YIELD_MILLIS}), while the reclamation goes on: both runs side by side in each test, on the
 * same library and catalog contents, in virtual time. Short campaigns (as many cartridges as drives) used to wait a
 * whole cartridge for the drive background work kept within its share (docs/scheduler.md, "How background work
 * shares drives").
 */
class ReclaimShareTest {

    private static final int DRIVES = 4;
    private static final double SHARE = 0.5; // 4 drives: background work keeps at most floor(4 * 0.5 / 1.5) = 1
    private static final int RECALL_CARTRIDGES = 24;
    private static final int FILES_PER_CARTRIDGE = 2;
    private static final String TARGET = "T00001L9";
    private static final String CAMPAIGN_FAMILY = "camp";
    private static final long FULL_MARGIN = MediaType.LTO9.capacityBytes() - 14_000_000L;
    /**
     * The additive term of the bound: a slice's safe point (a repack's 3 MB spool batch read or aggregate committed,
     * a verification's aggregate read: seconds here) plus unloading the cartridge it holds (rewind and unload take up
     * to 123.3 s in these runs on the simulated LTO-9) - the time a drive held by background work takes to be given
     * back; paid once, the drives yield together.
     */
    private static final long YIELD_MILLIS = 125_000;
    /** A generous interval between two safe points of a repack slice here (a 3 MB spool batch, a committed aggregate). */
    private static final long SAFE_POINT_SECONDS = 30;

    @TempDir
    Path dir;

    /** The user work arriving while the repacks run. */
    private enum Campaign { RECALL, FLUSH }

    /**
     * The background work: {@code sources} repacks and {@code verifies} verifications on at most {@code maxDrives}
     * drives, of which {@code holding} run a slice when the campaign arrives.
     */
    private record Background(int sources, int verifies, int maxDrives, int holding) {
    }

    /**
     * Two repacks on at most two drives; they take turns at the target, so one holds a drive, which the share let it
     * keep while user work waited.
     */
    private static final Background TWO = new Background(2, 0, 2, 1);
    /** The two repacks and four verifications allowed on all four drives, and holding them all. */
    private static final Background ALL = new Background(2, 4, DRIVES, DRIVES);

    /** What one run measured. */
    private record Run(long campaignMillis, RepackReport atStart, RepackReport atEnd, int runningAtStart,
                       SchedulerStatus.Background backgroundAtEnd) {
    }

    private static String recall(int i) {
        return String.format("R%05dL9", i);
    }

    private static String source(int i) {
        return String.format("S%05dL9", i + 1);
    }

    /** A flush campaign writes each cartridge {@code c} as storage group {@code wc}, family {@code campc}. */
    private static SchedulerConfig config(boolean reclaim, Background bg, int cartridges) {
        SchedulerConfig.Builder b = EngineFixture.testConfig().familyRule("cms:.*", CAMPAIGN_FAMILY);
        for (int c = 0; c < cartridges; c++) {
            b.familyRule("w" + c + ":.*", CAMPAIGN_FAMILY + c);
        }
        // every campaign cartridge is worth a mount at once: the campaign waits for drives, not for mount criteria
        return b.minMountFiles(1).minMountBytes(1)
                .quietMillis(0).repackSpoolBytes(3_000_000).fullMarginBytes(FULL_MARGIN)
                .maxBackgroundDrives(bg.maxDrives()).backgroundShare(SHARE)
                .reclaim(new ReclaimConfig(reclaim, 0.9, bg.sources(), 0, 60_000)).build();
    }

    /**
     * {@code bg.sources()} source cartridges, FULL with 16 files of which 2 are deleted (87.5 % live: below the 0.9
     * threshold), an empty target per source, and {@code cartridges} cartridges of family {@value #CAMPAIGN_FAMILY}
     * (which the repacks do not write). A recall campaign stages the {@link #FILES_PER_CARTRIDGE} files written on
     * each of them; a flush campaign writes as many files per cartridge onto them, each cartridge its own storage
     * group and family so that every cartridge is written at once. The campaign starts once the repacks run on every
     * drive they may use, at most 5 minutes after the deletes.
     */
    private Run run(Path where, boolean reclaim, int cartridges, Campaign kind, Background bg) throws IOException {
        try (EngineFixture f = EngineFixture.open(where, config(reclaim, bg, cartridges), (SimLibraryBuilder b) -> {
                    b.drives(DRIVES).robotArms(DRIVES); // an arm per drive: the campaign waits for drives
                    for (int i = 0; i < bg.sources(); i++) {
                        b.cartridge(source(i), MediaType.LTO9, 2_000_000_000L);
                        b.cartridge(target(i), MediaType.LTO9, 2_000_000_000L);
                    }
                    for (int i = 0; i < cartridges; i++) {
                        b.cartridge(recall(i), MediaType.LTO9, 2_000_000_000L);
                    }
                    for (int i = 0; i < bg.verifies(); i++) {
                        b.cartridge(verified(i), MediaType.LTO9, 2_000_000_000L);
                    }
                })) {
            for (int i = 0; i < bg.sources(); i++) {
                f.label("raw", source(i));
                f.flushAll(16 * i, 16, "atlas:raw@osm");
                assertEquals(CartridgeState.FULL, f.catalog.cartridge(source(i)).orElseThrow().state());
            }
            for (int i = 0; i < bg.verifies(); i++) {
                f.label("raw", verified(i));
                f.flushAll(500 + 16 * i, 16, "atlas:raw@osm"); // all live: no reclamation
            }
            List<TapeRequest> campaign = new ArrayList<>();
            for (int c = 0; c < cartridges; c++) {
                int first = 1000 + c * FILES_PER_CARTRIDGE;
                if (kind == Campaign.RECALL) {
                    f.label(CAMPAIGN_FAMILY, recall(c));
                    f.flushAll(first, FILES_PER_CARTRIDGE, "cms:raw@osm");
                    f.await(f.scheduler.disableCartridge(recall(c), "filled")); // the next files go to the next one
                    for (int i = first; i < first + FILES_PER_CARTRIDGE; i++) {
                        StageRequest s = f.stageRequest(i, where.resolve("staged").resolve(EngineFixture.pnfsid(i)));
                        Files.createDirectories(s.target().getParent());
                        campaign.add(s);
                    }
                } else {
                    f.label(CAMPAIGN_FAMILY + c, recall(c));
                    for (int i = first; i < first + FILES_PER_CARTRIDGE; i++) {
                        campaign.add(f.flushRequest(i, 900_000 + i, "w" + c, "w" + c + ":raw@osm"));
                    }
                }
            }
            for (int c = 0; c < cartridges && kind == Campaign.RECALL; c++) {
                f.await(f.scheduler.enableCartridge(recall(c)));
            }
            for (int i = 0; i < bg.sources(); i++) {
                f.label("raw", target(i));
                f.scheduler.remove(new RemoveRequest(90_000 + 2 * i, EngineFixture.pnfsid(16 * i), "atlas"));
                f.scheduler.remove(new RemoveRequest(90_001 + 2 * i, EngineFixture.pnfsid(16 * i + 1), "atlas"));
            }
            for (int i = 0; i < bg.verifies() && reclaim; i++) {
                f.scheduler.verifyCartridge(verified(i), 0);
            }
            for (int second = 0; second < 300; second++) {
                f.loop.runFor(1_000);
                if (reclaim && f.peekStatus().background().running() >= bg.holding()) {
                    break; // background work holds the drives it is to hold
                }
            }
            RepackReport atStart = repack(f);
            int runningAtStart = f.peekStatus().background().running();
            RepackReport[] atEnd = new RepackReport[1];
            int[] done = new int[1];
            f.alsoTell = (request, outcome) -> {
                if (++done[0] == campaign.size()) {
                    atEnd[0] = repack(f);
                }
            };
            long submitted = f.loop.now();
            for (TapeRequest r : campaign) {
                if (r instanceof StageRequest s) {
                    f.scheduler.stage(s);
                } else {
                    f.scheduler.flush((FlushRequest) r);
                }
            }
            f.loop.runUntilIdle();

            long last = 0;
            for (TapeRequest r : campaign) {
                Class<? extends Outcome> ok = kind == Campaign.RECALL ? Outcome.Staged.class : Outcome.Flushed.class;
                assertInstanceOf(ok, f.outcome(r), r.pnfsid());
                last = Math.max(last, f.finishedAt.get(r.id()));
            }
            if (reclaim) {
                for (int i = 0; i < bg.sources(); i++) {
                    assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(source(i)).orElseThrow().state(),
                            "the reclamation ends after the campaign");
                }
            }
            return new Run(last - submitted, atStart, atEnd[0], runningAtStart, f.peekStatus().background());
        }
    }

    private static String verified(int i) {
        return String.format("V%05dL9", i + 1);
    }

    private static String target(int i) {
        return String.format("T%05dL9", i + 1);
    }

    /** All repacks' progress as one report's counts (files and bytes moved, bytes spooled), or null if none. */
    private static RepackReport repack(EngineFixture f) {
        List<RepackReport> all = f.peekStatus().repacks();
        if (all.isEmpty()) {
            return null;
        }
        int files = 0;
        long bytes = 0;
        long spooled = 0;
        String state = "done";
        for (RepackReport r : all) {
            files += r.filesDone();
            bytes += r.bytesDone();
            spooled += r.spooledBytes();
            state = r.state().equals("done") ? state : r.state();
        }
        return new RepackReport("all", "raw", state, null, 0, 0, files, bytes, 0, 0, spooled, List.of(), false, 0,
                0, null, null);
    }

    /** The campaign alone and beside the reclamation. */
    private record Compared(Run alone, Run beside) {
    }

    /**
     * A short campaign (a cartridge per drive): every drive background work held when it arrived is given back at
     * its slice's next safe point - at the episode's start the budget lets no slice keep its drive - so the
     * campaign takes at most its time alone plus {@link #YIELD_MILLIS}, not {@code 1 + share} times it.
     */
    private static void assertEveryDriveGivenBack(String name, Compared c) {
        SchedulerStatus.Background b = c.beside().backgroundAtEnd();
        assertTrue(b.yields() >= c.beside().runningAtStart(), name + ": " + b.yields() + " yields, "
                + c.beside().runningAtStart() + " drives held when the campaign arrived");
        assertTrue(c.beside().campaignMillis() <= c.alone().campaignMillis() + YIELD_MILLIS, name + ": beside "
                + c.beside().campaignMillis() + " ms, alone " + c.alone().campaignMillis() + " ms + " + YIELD_MILLIS);
    }

    /** Runs the campaign alone and beside the reclamation, prints both, asserts the bound. */
    private Compared compare(String name, int cartridges, Campaign kind, Background bg) throws IOException {
        Run alone = run(dir.resolve(name + "-alone"), false, cartridges, kind, bg);
        Run beside = run(dir.resolve(name + "-beside"), true, cartridges, kind, bg);
        double bound = (1 + SHARE) * alone.campaignMillis() + YIELD_MILLIS;
        SchedulerStatus.Background b = beside.backgroundAtEnd();
        System.out.printf("%s campaign, %d cartridges on %d drives, %d repacks and %d verifications on up to %d drives (%d running"
                        + " when it arrived), backgroundShare %.2f: alone %.1f s, beside reclamation %.1f s (x%.2f; bound"
                        + " %.1f s = x%.2f + %.0f s); background slices %d, mounts %d, yields %d%n", kind, cartridges,
                DRIVES, bg.sources(), bg.verifies(), bg.maxDrives(), beside.runningAtStart(), SHARE, alone.campaignMillis() / 1000.0,
                beside.campaignMillis() / 1000.0, (double) beside.campaignMillis() / alone.campaignMillis(),
                bound / 1000, 1 + SHARE, YIELD_MILLIS / 1000.0, b.slices(), b.mounts(), b.yields());
        assertNull(alone.atStart(), "no reclamation in the run alone");
        assertNotEquals("done", beside.atStart().state(), "the reclamation runs when the campaign begins");
        assertTrue(beside.runningAtStart() >= bg.holding(), "background work holds " + bg.holding()
                + " drives when the campaign begins, not " + beside.runningAtStart());
        assertTrue(beside.campaignMillis() <= bound, name + ": beside " + beside.campaignMillis() + " ms, alone "
                + alone.campaignMillis() + " ms, bound " + (long) bound + " ms");
        return new Compared(alone, beside);
    }

    /** Many cartridges per drive: the share lets the reclamation go on during the campaign, within the bound. */
    @Test
    void longRecallCampaign_besideReclamation_withinTheShareAndTheReclamationGoesOn() throws IOException {
        Run beside = compare("long", RECALL_CARTRIDGES, Campaign.RECALL, TWO).beside();
        assertTrue(beside.atEnd().bytesDone() + beside.atEnd().spooledBytes()
                        > beside.atStart().bytesDone() + beside.atStart().spooledBytes(),
                "the reclamation went on during the campaign: " + beside.atStart() + " -> " + beside.atEnd());
        SchedulerStatus.Background b = beside.backgroundAtEnd();
        System.out.printf("long campaign's episode: background %d drive-s, user %d drive-s%n",
                b.episodeBackgroundSeconds(), b.episodeUserSeconds());
        // B <= s * U, give or take one safe-point interval per background drive (the budget is checked only there)
        assertTrue(b.episodeBackgroundSeconds() <= SHARE * b.episodeUserSeconds() + TWO.maxDrives() * SAFE_POINT_SECONDS,
                "background " + b.episodeBackgroundSeconds() + " drive-s, user " + b.episodeUserSeconds() + " drive-s");
    }

    /**
     * As many cartridges as drives: the drive the repacks hold is given back at its next safe point, so no campaign
     * cartridge waits for another one to end (it did while background work kept a drive within its share).
     */
    @Test
    void shortRecallCampaign_besideReclamation_withinTheBound() throws IOException {
        assertEveryDriveGivenBack("short", compare("short", DRIVES, Campaign.RECALL, TWO));
    }

    /** The same for a flush campaign writing a cartridge per drive. */
    @Test
    void shortFlushCampaign_besideReclamation_withinTheBound() throws IOException {
        compare("flush", DRIVES, Campaign.FLUSH, TWO);
    }

    /**
     * Background work holding all four drives when a short recall campaign arrives: every slice yields at its safe
     * point; while background work kept one within its share, a campaign cartridge waited for another to end.
     */
    @Test
    void shortRecallCampaign_backgroundOnEveryDrive_withinTheBound() throws IOException {
        compare("all-drives", DRIVES, Campaign.RECALL, ALL);
    }
}
