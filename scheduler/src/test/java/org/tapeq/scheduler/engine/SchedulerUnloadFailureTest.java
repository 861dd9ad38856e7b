package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;

/**
 * A drive switching cartridges whose unload fails gives the cartridge it reserved back to dispatch: when the
 * unload fails for good (the drive goes down), and when its mover is lost while the unload waits to be retried.
 */
class SchedulerUnloadFailureTest {

    @TempDir
    Path dir;

    private static final long CAP = 2_000_000_000L;

    /** The next unload fails with this kind, once; null: unloads work. */
    private final AtomicReference<FaultKind> failUnload = new AtomicReference<>();

    @Test
    void unloadFailsForGood_reservedCartridgeServedByAnotherDrive() throws Exception {
        try (EngineFixture f = open()) {
            StageRequest s1 = switchWithFailingUnload(f, FaultKind.DRIVE);
            f.loop.runFor(600_000);
            assertEquals("down", drive(f, "drive0").state(), "the failed unload took drive0 down");
            done(f, f.scheduler.driveUp("drive1"));
            f.loop.runFor(86_400_000L);
            assertInstanceOf(Outcome.Staged.class, f.outcome(s1), "the reserved cartridge was freed for drive1");
        }
    }

    @Test
    void moverLostWhileUnloadWaitsForRetry_driveServesAgainWhenItReturns() throws Exception {
        try (EngineFixture f = open()) {
            StageRequest s1 = switchWithFailingUnload(f, FaultKind.ROBOT);
            done(f, f.scheduler.driveUnavailable("drive0", "mover m1 unreachable since T: UNAVAILABLE"));
            f.loop.runFor(600_000);
            done(f, f.scheduler.driveReachable("drive0"));
            f.loop.runFor(86_400_000L); // drive1 stays down: drive0 must do it
            assertInstanceOf(Outcome.Staged.class, f.outcome(s1), "drive0: " + drive(f, "drive0").activity() + "; " + f.outcome(s1));
        }
    }

    private EngineFixture open() throws Exception {
        return EngineFixture.openWrapped(dir, EngineFixture.testConfig().build(), lib -> new ForwardingLibrary(lib) {
            @Override
            public void unmount(String drive, Completion<Void> done) {
                FaultKind kind = failUnload.getAndSet(null);
                if (kind != null) {
                    done.failed(new TapeFault(kind, "injected"));
                    return;
                }
                super.unmount(drive, done);
            }
        }, 2, CAP, "A00001L9", "A00002L9");
    }

    /**
     * Files 0 and 1 on different cartridges; drive1 down by an operator; drive0 reads file 0 and keeps its
     * cartridge; then a stage of file 1 makes drive0 switch, and that unload fails with {@code kind}. Returns the
     * stage of file 1, right after the failure.
     */
    private StageRequest switchWithFailingUnload(EngineFixture f, FaultKind kind) throws Exception {
        f.label("raw", "A00001L9", "A00002L9");
        FlushRequest r0 = f.flushRequest(0, 50_000, "x", "atlas:raw@osm");
        f.scheduler.flush(r0);
        f.loop.runUntilIdle();
        String c1 = f.catalog.file(r0.pnfsid()).orElseThrow().cartridge();
        f.await(f.scheduler.disableCartridge(c1, "x"));
        FlushRequest r1 = f.flushRequest(1, 50_000, "y", "atlas:raw@osm");
        f.scheduler.flush(r1);
        f.loop.runUntilIdle();
        f.await(f.scheduler.enableCartridge(c1));
        f.await(f.scheduler.driveDown("drive1", "operator"));
        f.loop.runFor(7_200_000);
        Files.createDirectories(dir.resolve("staged"));
        StageRequest s0 = f.stageRequest(0, "atlas", 0);
        f.scheduler.stage(s0);
        for (int i = 0; i < 100_000 && f.outcome(s0) == null; i++) {
            f.loop.runFor(5_000);
        }
        assertInstanceOf(Outcome.Staged.class, f.outcome(s0));
        assertEquals(c1, drive(f, "drive0").cartridge());
        failUnload.set(kind);
        StageRequest s1 = f.stageRequest(1, "atlas", 0);
        f.scheduler.stage(s1);
        for (int i = 0; i < 100_000 && failUnload.get() != null; i++) {
            f.loop.runFor(1_000);
        }
        assertFalse(failUnload.get() != null, "the switching unload was tried");
        return s1;
    }

    /** Lets {@code future} finish within a second (unlike {@link EngineFixture#await}, which runs every timer). */
    private static void done(EngineFixture f, CompletableFuture<Void> future) {
        f.loop.runFor(1_000);
        assertTrue(future.isDone(), "operation did not finish");
    }

    private static SchedulerStatus.DriveStatus drive(EngineFixture f, String id) {
        return f.peekStatus().drives().stream().filter(d -> d.id().equals(id)).findFirst().orElseThrow();
    }
}
