package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;

/**
 * The robot's ledger counts a mount asked of a cartridge another drive holds or is being loaded with (the robot
 * refuses it) as a request and a load the robot did of a cartridge it had in another drive as a double mount,
 * not a mount after the cartridge came back, and knows at its start what a library reopened with a loaded drive
 * holds.
 */
class MountLedgerTest {

    @TempDir
    Path dir;
    private RealTimeEventLoop loop;
    private SimulatedLibrary library;

    private SimulatedLibrary open() throws java.io.IOException {
        loop = new RealTimeEventLoop("test-library", 500);
        library = SimulatedLibrary.builder(loop).drives(2).seed(1).bytes(dir).cartridge("L00001", MediaType.LTO9,
                100_000_000L).build();
        return library;
    }

    @AfterEach
    void close() {
        if (loop != null) {
            loop.close();
        }
        if (library != null) {
            library.close();
        }
    }

    @Test
    void aMountOfACartridgeInAnotherDrive_countedOnce_aMountAfterItsUnmount_not() throws Exception {
        MountLedger ledger = MountLedger.start(open(), loop);
        call(c -> ledger.mount("drive0", "L00001", c));
        assertThrows(ExecutionException.class, () -> call(c -> ledger.mount("drive1", "L00001", c)));
        assertEquals(1, ledger.doubleMountRequests());
        assertEquals(0, ledger.doubleMounts(), "the robot refused it");
        call(c -> ledger.unmount("drive0", c));
        call(c -> ledger.mount("drive1", "L00001", c));
        assertEquals(1, ledger.doubleMountRequests());
        assertEquals(0, ledger.doubleMounts());
        assertEquals(2, ledger.mounts());
    }

    @Test
    void aLibraryReopenedWithALoadedDrive_theLedgerStartsFromIt() throws Exception {
        MountLedger first = MountLedger.start(open(), loop);
        call(c -> first.mount("drive1", "L00001", c));
        close();
        MountLedger ledger = MountLedger.start(open(), loop); // the simulated library keeps its drives' state
        assertThrows(ExecutionException.class, () -> call(c -> ledger.mount("drive0", "L00001", c)));
        assertEquals(1, ledger.doubleMountRequests());
    }

    @Test
    void aLoadTheRobotDidWhileTheLedgerHadTheCartridgeElsewhere_countedAsADoubleMount() throws Exception {
        MountLedger first = MountLedger.start(open(), loop);
        call(c -> first.mount("drive1", "L00001", c));
        MountLedger ledger = MountLedger.start(library, loop); // knows L00001 is in drive1
        call(c -> first.unmount("drive1", c)); // behind this ledger's back: it still has L00001 in drive1
        call(c -> ledger.mount("drive0", "L00001", c)); // the robot loads it: a real load while "in drive1"
        assertEquals(1, ledger.doubleMounts());
        assertEquals(1, ledger.doubleMountRequests());
        call(c -> ledger.unmount("drive0", c));
        call(c -> ledger.mount("drive1", "L00001", c)); // the ledger moved it to drive0 and out: no double now
        assertEquals(1, ledger.doubleMounts());
        assertEquals(java.util.Map.of(), ledger.filesWritten(), "nothing appended");
    }

    private void call(Consumer<Completion<Void>> op) throws Exception {
        CompletableFuture<Void> f = new CompletableFuture<>();
        loop.execute(() -> op.accept(new Completion<>() {
            @Override
            public void succeeded(Void value) {
                f.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                f.completeExceptionally(fault);
            }
        }));
        f.get(60, TimeUnit.SECONDS);
    }
}
