package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RemoveRequest;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.tape.sim.SimLibraryBuilder;

/**
 * A recall campaign of many cartridges per drive beside automatic reclamation takes at most
 * {@code 1 + scheduler.backgroundShare} times its time alone, while the reclamation goes on during it: both runs in one test, on the same library and catalog
 * contents, in virtual time.
 */
class ReclaimShareTest {

    private static final int DRIVES = 4;
    private static final double SHARE = 0.5; // 4 drives: background work keeps floor(4 * 0.5 / 1.5) = 1
    private static final int RECALL_CARTRIDGES = 24;
    private static final int FILES_PER_CARTRIDGE = 2;
    private static final String SOURCE = "S00001L9";
    private static final String SOURCE2 = "S00002L9";
    private static final String TARGET = "T00001L9";
    private static final long FULL_MARGIN = MediaType.LTO9.capacityBytes() - 14_000_000L;

    @TempDir
    Path dir;

    /** What one run measured. */
    private record Run(long campaignMillis, RepackReport atStart, RepackReport atEnd, int atStartBackground) {
    }

    private static String recall(int i) {
        return String.format("R%05dL9", i);
    }

    private static SchedulerConfig config(boolean reclaim) {
        // every recall cartridge is worth a mount at once: the campaign waits for drives, not for mount criteria
        return EngineFixture.testConfig().minMountFiles(1).minMountBytes(1).quietMillis(0)
                .repackSpoolBytes(3_000_000).fullMarginBytes(FULL_MARGIN)
                .maxBackgroundDrives(2).backgroundShare(SHARE)
                .reclaim(new ReclaimConfig(reclaim, 0.9, 2, 0, 60_000)).build();
    }

    /**
     * Two source cartridges, FULL with 16 files of which 2 are deleted (87.5 % live: below the 0.9 threshold;
     * two repacks at once, two background drives, of which the share lets one stay while the campaign waits),
     * {@code recallCartridges} cartridges of {@link #FILES_PER_CARTRIDGE} files each, and an empty target; then
     * the campaign stages every file of the recall cartridges at once, 5 minutes after the deletes.
     */
    private Run run(Path where, boolean reclaim, int recallCartridges) throws IOException {
        try (EngineFixture f = EngineFixture.open(where, config(reclaim), (SimLibraryBuilder b) -> {
            b.drives(DRIVES).robotArms(DRIVES); // an arm per drive: the campaign waits for drives, not for the robot
            b.cartridge(SOURCE, MediaType.LTO9, 2_000_000_000L);
            b.cartridge(SOURCE2, MediaType.LTO9, 2_000_000_000L);
            b.cartridge(TARGET, MediaType.LTO9, 2_000_000_000L);
            for (int i = 0; i < recallCartridges; i++) {
                b.cartridge(recall(i), MediaType.LTO9, 2_000_000_000L);
            }
        })) {
            f.label("raw", SOURCE);
            f.flushAll(0, 16, "atlas:raw@osm");
            f.label("raw", SOURCE2);
            f.flushAll(16, 16, "atlas:raw@osm");
            assertEquals(CartridgeState.FULL, f.catalog.cartridge(SOURCE).orElseThrow().state());
            assertEquals(CartridgeState.FULL, f.catalog.cartridge(SOURCE2).orElseThrow().state());
            List<Integer> campaign = new ArrayList<>();
            for (int c = 0; c < recallCartridges; c++) {
                f.label("raw", recall(c));
                int first = 100 + c * FILES_PER_CARTRIDGE;
                f.flushAll(first, FILES_PER_CARTRIDGE, "atlas:raw@osm");
                f.await(f.scheduler.disableCartridge(recall(c), "filled"));
                for (int i = first; i < first + FILES_PER_CARTRIDGE; i++) {
                    campaign.add(i);
                }
            }
            f.label("raw", TARGET);
            for (int c = 0; c < recallCartridges; c++) {
                f.await(f.scheduler.enableCartridge(recall(c)));
            }
            f.scheduler.remove(new RemoveRequest(90_000, EngineFixture.pnfsid(0), "atlas"));
            f.scheduler.remove(new RemoveRequest(90_001, EngineFixture.pnfsid(1), "atlas"));
            f.scheduler.remove(new RemoveRequest(90_002, EngineFixture.pnfsid(16), "atlas"));
            f.scheduler.remove(new RemoveRequest(90_003, EngineFixture.pnfsid(17), "atlas"));
            f.loop.runFor(5 * 60_000);

            RepackReport atStart = repack(f);
            SchedulerStatus.Background bg = f.peekStatus().background();
            int background = bg.running() + bg.waiting();
            List<StageRequest> stages = new ArrayList<>();
            for (int i : campaign) {
                StageRequest s = f.stageRequest(i, where.resolve("staged").resolve(EngineFixture.pnfsid(i)));
                Files.createDirectories(s.target().getParent());
                stages.add(s);
            }
            RepackReport[] atEnd = new RepackReport[1];
            int[] staged = new int[1];
            f.alsoTell = (request, outcome) -> {
                if (request instanceof StageRequest && ++staged[0] == stages.size()) {
                    atEnd[0] = repack(f);
                }
            };
            long submitted = f.loop.now();
            stages.forEach(f.scheduler::stage);
            f.loop.runUntilIdle();

            long last = 0;
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid());
                last = Math.max(last, f.finishedAt.get(s.id()));
            }
            if (reclaim) {
                assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(SOURCE).orElseThrow().state(),
                        "the reclamation ends after the campaign");
                assertEquals(CartridgeState.EMPTY, f.catalog.cartridge(SOURCE2).orElseThrow().state());
            }
            return new Run(last - submitted, atStart, atEnd[0], background);
        }
    }

    /** Both repacks' progress as one report's counts (files and bytes moved, bytes spooled), or null if none. */
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
        return new RepackReport("both", "raw", state, null, 0, 0, files, bytes, 0, 0, spooled, List.of(), false, 0,
                0, null, null);
    }

    @Test
    void recallCampaign_besideReclamation_finishesWithinTheShareOfItsTimeAlone() throws IOException {
        Run alone = run(dir.resolve("alone"), false, RECALL_CARTRIDGES);
        Run beside = run(dir.resolve("beside"), true, RECALL_CARTRIDGES);

        System.out.printf("recall campaign of %d files on %d cartridges, %d drives, backgroundShare %.2f: alone %.1f s,"
                        + " beside reclamation %.1f s (x%.3f; bound x%.2f); repack files moved during it: %d -> %d%n",
                RECALL_CARTRIDGES * FILES_PER_CARTRIDGE, RECALL_CARTRIDGES, DRIVES, SHARE,
                alone.campaignMillis() / 1000.0, beside.campaignMillis() / 1000.0,
                (double) beside.campaignMillis() / alone.campaignMillis(), 1 + SHARE,
                beside.atStart().filesDone(), beside.atEnd().filesDone());
        assertEquals(null, alone.atStart(), "no reclamation in the run alone");
        assertNotEquals("done", beside.atStart().state(), "the reclamation runs when the campaign begins");
        assertEquals(2, beside.atStartBackground(), "two repacks running or waiting for a drive when the campaign"
                + " begins (two background drives allowed, one while user work waits)");
        assertTrue(beside.atEnd().bytesDone() + beside.atEnd().spooledBytes()
                        > beside.atStart().bytesDone() + beside.atStart().spooledBytes(),
                "the reclamation went on during the campaign: " + beside.atStart() + " -> " + beside.atEnd());
        assertTrue(beside.campaignMillis() <= (1 + SHARE) * alone.campaignMillis(),
                "beside " + beside.campaignMillis() + " ms, alone " + alone.campaignMillis() + " ms");
    }

    /**
     * Work comes in whole cartridges: 4 recall cartridges on 4 drives, one of which background work keeps, leave
     * the fourth cartridge waiting for a drive, so the factor alone does not bound the delay (docs/scheduler.md
     * states the fixed terms). Prints both times side by side; asserts the factor is exceeded, which the docs
     * used to deny.
     */
    @Test
    void recallCampaign_asManyCartridgesAsDrives_delayedBeyondTheFactorAlone() throws IOException {
        Run alone = run(dir.resolve("alone"), false, DRIVES);
        Run beside = run(dir.resolve("beside"), true, DRIVES);

        System.out.printf("recall campaign of %d cartridges on %d drives, backgroundShare %.2f: alone %.1f s, beside"
                        + " reclamation %.1f s (x%.3f; factor x%.2f)%n",
                DRIVES, DRIVES, SHARE, alone.campaignMillis() / 1000.0, beside.campaignMillis() / 1000.0,
                (double) beside.campaignMillis() / alone.campaignMillis(), 1 + SHARE);
        assertNotEquals("done", beside.atStart().state(), "the reclamation runs when the campaign begins");
        assertTrue(beside.campaignMillis() > (1 + SHARE) * alone.campaignMillis(), "a whole cartridge waits: beside "
                + beside.campaignMillis() + " ms, alone " + alone.campaignMillis() + " ms");
    }
}
