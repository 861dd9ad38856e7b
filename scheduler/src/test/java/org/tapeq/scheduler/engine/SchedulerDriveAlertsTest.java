package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeState;

/**
 * What the engine does with the findings a library reports beside its operations' results (TapeAlert through
 * {@link org.tapeq.scheduler.tape.DriveAlerts}): a media flag makes the cartridge suspect whatever the operation
 * did; a periodic cleaning request keeps the drive in service and shows in its status until an operator's drive up.
 */
class SchedulerDriveAlertsTest {

    private static final long CAPACITY = 2_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void cartridgeSuspect_appendableCartridge_becomesSuspect() throws Exception {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            assertEquals(CartridgeState.APPENDABLE, f.scheduler.engineForTests().cartridges.get("A00001L9").state());
            f.loop.execute(() -> f.library.alerts().cartridgeSuspect("drive0", "A00001L9",
                    "unmount: the drive raised TapeAlert 0x04 media"));
            f.loop.runUntilIdle();
            assertEquals(CartridgeState.SUSPECT, f.scheduler.engineForTests().cartridges.get("A00001L9").state());
            assertTrue(f.peekStatus().attention().stream().anyMatch(c -> c.barcode().equals("A00001L9")
                    && c.state().equals("suspect") && c.reason().contains("0x04 media")), f.peekStatus().attention()
                    .toString());
        }
    }

    @Test
    void cleaningDue_driveStaysInService_shownUntilDriveUp() throws Exception {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            f.loop.execute(() -> f.library.alerts().cleaningDue("drive0", "TapeAlert 0x15"));
            f.loop.runUntilIdle();
            SchedulerStatus.DriveStatus d = f.peekStatus().drives().get(0);
            assertEquals("TapeAlert 0x15", d.cleaning());
            assertEquals("empty", d.state(), "not down");
            f.label("raw", "A00001L9"); // the drive still works
            f.await(f.scheduler.driveUp("drive0")); // the operator cleaned it
            assertNull(f.peekStatus().drives().get(0).cleaning());
        }
    }
}
