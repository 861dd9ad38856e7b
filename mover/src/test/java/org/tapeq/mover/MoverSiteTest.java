package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.testing.support.Poll;

/**
 * The engine driving a simulated library through two movers over real gRPC on 127.0.0.1: flush and stage
 * byte-identical, fencing of an older lease epoch, and a mover lost in the middle of a campaign.
 */
class MoverSiteTest {

    @TempDir
    Path dir;

    @Test
    void flushesAndStagesThroughTwoMoversByteIdentical() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001", "A00002", "A00003", "A00004")) {
            site.label("raw", "A00001", "A00002", "A00003", "A00004");
            List<FlushRequest> flushes = site.flush(1, 24);
            site.awaitOutcomes(flushes);
            for (FlushRequest f : flushes) {
                assertInstanceOf(Outcome.Flushed.class, site.outcomes.get(f.id()), f.pnfsid());
            }
            List<StageRequest> stages = site.stage(1, 24);
            site.awaitOutcomes(stages);
            for (int i = 1; i <= 24; i++) {
                assertInstanceOf(Outcome.Staged.class, site.outcomes.get(stages.get(i - 1).id()), "file " + i);
                assertArrayEquals(Files.readAllBytes(site.source(i)), Files.readAllBytes(site.staged(i)), "file " + i);
            }
            assertTrue(site.drivesUsed.stream().allMatch(d -> d.matches("drive[0-3]")), "" + site.drivesUsed);
            assertEquals(0, site.movers[0].refusals() + site.movers[1].refusals());
        }
    }

    @Test
    void aCommandWithAnOlderEpochIsRefusedAndTheDeposedSchedulersFlushIsNotAcknowledged() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001", "A00002")) {
            site.label("raw", "A00001", "A00002");
            site.awaitOutcomes(site.flush(1, 2));
            successorProbes(site);
            // the deposed scheduler (still at epoch 1) writes directly: refused with a clear error
            TapeFault refused = assertInstanceOf(TapeFault.class, appendOnDrive0(site));
            assertTrue(refused.getMessage().contains("epoch 2 has taken the site over"), refused.getMessage());
            // and through its engine: the flush is tried, refused, and never acknowledged
            long before = site.movers[0].refusals() + site.movers[1].refusals();
            List<FlushRequest> late = site.flush(10, 1);
            Poll.until("the deposed scheduler's commands for the late flush were refused",
                    () -> site.movers[0].refusals() + site.movers[1].refusals() >= before + 2);
            assertFalse(site.outcomes.get(late.get(0).id()) instanceof Outcome.Flushed,
                    "a flush of the deposed scheduler was acknowledged");
            assertTrue(site.catalog.files(List.of(late.get(0).pnfsid())).isEmpty(),
                    "the deposed scheduler recorded the late file");
        }
    }

    @Test
    void aRestartedMoverStillRefusesTheDeposedSchedulersEpoch() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001", "A00002")) {
            site.label("raw", "A00001", "A00002");
            successorProbes(site);
            site.movers[0].close();
            site.startMover(0);
            assertEquals(2, site.movers[0].newestEpoch(), "the restarted mover forgot the successor's epoch");
            // the deposed scheduler (epoch 1) reaches the restarted m1 again: its append is refused, not run
            // Its channel may still hold the connection to the stopped m1 (the watch need not have seen the quick
            // restart): a call on it fails as unreachable without reaching any mover, and the next one reconnects.
            Object answer = Poll.value("the restarted m1 answers the deposed scheduler", Poll.DEFAULT, () -> {
                Object a = appendOnDrive0(site);
                return a instanceof TapeFault f && f.getMessage().contains("unreachable") ? null : a;
            });
            TapeFault refused = assertInstanceOf(TapeFault.class, answer, "the append of epoch 1 ran: " + answer);
            assertTrue(refused.getMessage().contains("epoch 2 has taken the site over"), refused.getMessage());
            assertEquals(2, site.movers[0].newestEpoch());
        }
    }

    @Test
    void aCorruptEpochFileFailsTheMoverStartNamingTheFile() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001")) {
            site.movers[0].close();
            Path file = site.moverState(0).resolve(EpochFence.FILE);
            Files.writeString(file, "not-a-number\n");
            IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> site.startMover(0));
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("corrupt"), e.getMessage());
        }
    }

    @Test
    void anEpochFileOfAnotherSiteFailsTheMoverStartNamingTheFile() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001")) {
            Poll.until("m1 has seen epoch 1", () -> site.movers[0].newestEpoch() == 1);
            site.movers[0].close();
            Path file = site.moverState(0).resolve(EpochFence.FILE);
            site.moverIdentity[0] = new SiteIdentity("desy", MoverSiteFixture.SITE.token());
            IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> site.startMover(0),
                    "a mover of site desy started on the fencing epoch of site gridka");
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("'gridka'")
                    && e.getMessage().contains("'desy'"), e.getMessage());
            site.moverIdentity[0] = MoverSiteFixture.SITE;
            site.startMover(0); // its own site's file is read back
            assertEquals(1, site.movers[0].newestEpoch());
        }
    }

    @Test
    void aSiteNameTheEpochFileWouldNotKeepFailsTheMoverStartNamingIt() throws Exception {
        for (String name : List.of("grid ka", "gridk\u00e4")) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, () -> EpochFence.open("m1", name, dir),
                    "site '" + name + "' accepted, though the epoch file cannot keep it");
            assertTrue(e.getMessage().contains("'" + name + "'") && e.getMessage().contains(EpochFence.FILE),
                    e.getMessage());
        }
        assertEquals(0, EpochFence.open("m1", "gridka.de-1", dir).newest());
    }

    @Test
    void anEpochFileOfTheFirstFormatIsReadAndGetsItsSiteAtTheNextEpoch() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001")) {
            site.movers[0].close();
            Path file = site.moverState(0).resolve(EpochFence.FILE);
            Files.writeString(file, "1\n"); // written by a mover before the site was kept
            site.startMover(0);
            assertEquals(1, site.movers[0].newestEpoch());
            site.epoch.set(2);
            Poll.until("m1 has seen epoch 2", () -> site.movers[0].newestEpoch() == 2);
            assertEquals("gridka 2", Files.readString(file).strip());
        }
    }

    @Test
    void aMoverLostMidCampaignTakesItsDrivesOutAndIsUsedAgainWhenBack() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001", "A00002", "A00003", "A00004")) {
            site.label("raw", "A00001", "A00002", "A00003", "A00004");
            List<FlushRequest> flushes = site.flush(1, 40);
            Poll.until("some flushes done and a drive of m2 used",
                    () -> site.outcomes.size() >= 5 && site.drivesUsed.stream().anyMatch(
                            MoverSiteFixture.M2_DRIVES::contains));
            site.movers[1].close();
            for (String d : MoverSiteFixture.M2_DRIVES) {
                Poll.until(d + " out of service for its mover", Duration.ofSeconds(30),
                        () -> String.valueOf(site.drive(d).reason()).contains("mover m2 unreachable"));
            }
            site.awaitOutcomes(flushes);
            for (FlushRequest f : flushes) {
                assertInstanceOf(Outcome.Flushed.class, site.outcomes.get(f.id()), f.pnfsid());
            }
            site.startMover(1);
            for (String d : MoverSiteFixture.M2_DRIVES) {
                Poll.until(d + " back in service", () -> !site.drive(d).state().equals("down")
                        && !site.drive(d).state().equals("unavailable"));
            }
            // only m2's drives in service now: the stages must go through the mover that came back
            for (String d : MoverSiteFixture.M1_DRIVES) {
                site.scheduler.driveDown(d, "test: only m2").join();
            }
            site.drivesUsed.clear();
            List<StageRequest> stages = site.stage(1, 40);
            site.awaitOutcomes(stages);
            for (int i = 1; i <= 40; i++) {
                assertInstanceOf(Outcome.Staged.class, site.outcomes.get(stages.get(i - 1).id()), "file " + i);
                assertArrayEquals(Files.readAllBytes(site.source(i)), Files.readAllBytes(site.staged(i)), "file " + i);
            }
            assertTrue(MoverSiteFixture.M2_DRIVES.containsAll(site.drivesUsed), "" + site.drivesUsed);
            assertFalse(site.drivesUsed.isEmpty());
        }
    }

    /** A successor takes the site over with epoch 2 and speaks to both movers (its liveness probe). */
    private static void successorProbes(MoverSiteFixture site) throws Exception {
        try (RemoteLibrary successor = new RemoteLibrary(site.site(MoverSiteFixture.SITE), site.loop, site.library.blockSize(),
                () -> 2, "successor")) {
            successor.events(MoverEvents.NONE);
            Poll.until("both movers have seen epoch 2",
                    () -> site.movers[0].newestEpoch() == 2 && site.movers[1].newestEpoch() == 2);
            assertFalse(successor.lost("m1"));
        }
    }

    /** The fixture's scheduler (epoch 1) appends 1000 bytes on drive0 directly: its written file or its fault. */
    private static Object appendOnDrive0(MoverSiteFixture site) throws Exception {
        CompletableFuture<Object> direct = new CompletableFuture<>();
        site.loop.execute(() -> site.remote.append("drive0", bytes(1000), new Completion<WrittenFile>() {
            @Override
            public void succeeded(WrittenFile value) {
                direct.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                direct.complete(fault);
            }
        }));
        return direct.get();
    }

    private static TapeFileSource bytes(int n) {
        return new TapeFileSource() {
            @Override
            public long length() {
                return n;
            }

            @Override
            public void writeTo(java.io.OutputStream out) throws IOException {
                out.write(new byte[n]);
            }
        };
    }
}
