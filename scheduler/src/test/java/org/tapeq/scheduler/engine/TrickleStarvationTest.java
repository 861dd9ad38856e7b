package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.engine.lifecycle.VerifyReport;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.tape.sim.SimLibraryBuilder;

/**
 * A steady trickle of recalls on one drive, a recall every {@value #RECALL_EVERY_MILLIS} ms (a little under the
 * default {@code backgroundHoldoff}), each taking the drive for a short while: a verification queued meanwhile
 * still completes during the trickle. It did not with the default holdoff while every recall that took the last free
 * drive counted as user work waiting and extended the episode during which idle drives were refused to background
 * work: the verification stayed at 1 of 14 aggregates for the whole two hours (docs/scheduler.md, "How background
 * work shares drives").
 */
class TrickleStarvationTest {

    private static final long RECALL_EVERY_MILLIS = 280_000;
    private static final int RECALLS = 26;
    private static final long VERIFY_AT_MILLIS = 1_100_000;
    private static final String VERIFIED = "V00001L9";

    @TempDir
    Path dir;

    /** When the verification was done, in ms after the first recall, or -1 if not by the trickle's end. */
    private long verificationDoneAfter(String name, long holdoffMillis) throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().familyRule("cms:.*", "camp")
                .minMountFiles(1).minMountBytes(1).quietMillis(0)
                .maxBackgroundDrives(1).backgroundHoldoffMillis(holdoffMillis).build(); // share 0, the default
        Path where = dir.resolve(name);
        try (EngineFixture f = EngineFixture.open(where, config, (SimLibraryBuilder b) -> {
            b.drives(1).robotArms(1);
            for (String c : new String[] {VERIFIED, "V00002L9", "R00001L9", "R00002L9", "R00003L9"}) {
                b.cartridge(c, MediaType.LTO9, 2_000_000_000L);
            }
        })) {
            f.label("raw", VERIFIED);
            f.flushAll(0, 64, "atlas:raw@osm");
            f.label("raw", "V00002L9");
            f.await(f.scheduler.disableCartridge(VERIFIED, "filled"));
            f.flushAll(100, 64, "atlas:raw@osm");
            f.await(f.scheduler.enableCartridge(VERIFIED));
            List<String> recalled = List.of("R00001L9", "R00002L9", "R00003L9");
            for (int c = 0; c < recalled.size(); c++) {
                f.label("camp", recalled.get(c));
                f.flushAll(1000 + 100 * c, 20, "cms:raw@osm");
                f.await(f.scheduler.disableCartridge(recalled.get(c), "filled"));
            }
            for (String r : recalled) {
                f.await(f.scheduler.enableCartridge(r));
            }
            long start = f.loop.now();
            f.loop.schedule(VERIFY_AT_MILLIS, () -> f.scheduler.verifyCartridge(VERIFIED, 0));
            List<StageRequest> stages = new ArrayList<>();
            for (int k = 0; k < RECALLS; k++) {
                int file = 1000 + 100 * (k % recalled.size()) + k / recalled.size();
                StageRequest s = f.stageRequest(file, where.resolve("staged").resolve(k + "-" + EngineFixture.pnfsid(file)));
                Files.createDirectories(s.target().getParent());
                stages.add(s);
                f.loop.schedule(RECALL_EVERY_MILLIS * k, () -> f.scheduler.stage(s));
            }
            long trickleEnd = start + RECALL_EVERY_MILLIS * (RECALLS - 1);
            long done = -1;
            String progress = "not queued";
            while (f.loop.now() < trickleEnd && done < 0) {
                f.loop.runFor(10_000);
                for (VerifyReport v : f.peekStatus().verifications()) {
                    if (v.barcode().equals(VERIFIED)) {
                        progress = v.state() + " " + v.aggregatesDone() + "/" + v.aggregatesTotal();
                        done = v.state().equals("done") ? f.loop.now() - start : -1;
                    }
                }
            }
            SchedulerStatus.Background bg = f.peekStatus().background();
            System.out.printf("%s: verification %s at %.0f min (trickle ends at %.0f min); slices %d, mounts %d,"
                    + " yields %d%n", name, progress, (f.loop.now() - start) / 60_000.0,
                    (trickleEnd - start) / 60_000.0, bg.slices(), bg.mounts(), bg.yields());
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid());
            }
            return done;
        }
    }

    @Test
    void trickleOfRecalls_defaultHoldoff_verificationCompletesDuringTheTrickle() throws IOException {
        long done = verificationDoneAfter("holdoff-default", SchedulerConfig.DEFAULT_BACKGROUND_HOLDOFF_MILLIS);
        assertTrue(done > 0, "the verification completes while the recalls go on");
    }

    @Test
    void trickleOfRecalls_noHoldoff_verificationCompletesDuringTheTrickle() throws IOException {
        long done = verificationDoneAfter("holdoff-0", 0);
        assertTrue(done > 0, "the verification completes while the recalls go on");
    }
}
