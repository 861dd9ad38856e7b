package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeLibrary;

/**
 * A start whose first inventories fail (a changer's mover still starting, or slow on a loaded host) waits and asks
 * again instead of failing; one that never gets an inventory fails after {@link FirstInventory#ATTEMPTS}, naming
 * them and the library's last fault. Virtual time.
 */
class FirstInventoryTest {

    @TempDir
    Path dir;

    /** Fails the first {@code failures} inventories with a robot fault, then passes them on. */
    private static final class SlowChanger extends ForwardingLibrary {
        private final int failures;
        int asked;

        SlowChanger(TapeLibrary to, int failures) {
            super(to);
            this.failures = failures;
        }

        @Override
        public void inventory(Completion<Inventory> done) {
            asked++;
            if (asked <= failures) {
                done.failed(new TapeFault(FaultKind.ROBOT, "inventory: the changer's mover m1 did not answer"));
            } else {
                super.inventory(done);
            }
        }
    }

    @Test
    void inventoryFailingTwice_theStartAsksAgainAndSucceeds() throws Exception {
        SlowChanger[] seen = new SlowChanger[1];
        try (EngineFixture f = EngineFixture.openSizeOnly(dir, SchedulerConfig.builder().build(),
                b -> b.drives(1).cartridge("A00001L9", MediaType.LTO9, 18_000_000_000_000L),
                lib -> seen[0] = new SlowChanger(lib, 2), null)) {
            assertEquals(3, seen[0].asked);
            assertEquals(1, f.await(f.scheduler.status(10)).drives().size());
        }
    }

    @Test
    void inventoryNeverAnswered_theStartFailsAfterTheLastAttemptNamingIt() {
        CompletionException e = assertThrows(CompletionException.class, () -> EngineFixture.openSizeOnly(dir,
                SchedulerConfig.builder().build(), b -> b.drives(1), lib -> new SlowChanger(lib, Integer.MAX_VALUE),
                null));
        TapeFault fault = assertInstanceOf(TapeFault.class, e.getCause());
        assertEquals(FaultKind.ROBOT, fault.kind());
        assertTrue(fault.getMessage().contains("failed " + FirstInventory.ATTEMPTS + " times")
                && fault.getMessage().contains("mover m1 did not answer"), fault.getMessage());
    }
}
