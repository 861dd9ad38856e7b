package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.time.VirtualEventLoop;

/** Drive generations: which media each mounts, and the simulated library refusing the others. */
class SimDriveTypeTest {

    private final VirtualEventLoop loop = new VirtualEventLoop(0);

    @Test
    void lto9Drive_mountsLto9AndLto8_lto8DriveOnlyLto8_unknownMediaAllowed() {
        assertTrue(DriveType.LTO9.mounts("LTO-9"));
        assertTrue(DriveType.LTO9.mounts("LTO8"));
        assertTrue(DriveType.LTO8.mounts("L8"));
        assertFalse(DriveType.LTO8.mounts("LTO-9"));
        assertFalse(DriveType.LTO9.mounts("TS1160"));
        assertTrue(DriveType.LTO8.mounts(null), "unknown media: the drive decides");
        assertTrue(DriveType.LTO8.mounts("LTO-7"), "not modelled: the drive decides");
        assertEquals(Optional.of(DriveType.LTO9), DriveType.byName("lto9"));
    }

    @Test
    void lto8Drive_refusesAnLto9Cartridge_takesAnLto8One_lto9DriveTakesBoth() throws Exception {
        SimulatedLibrary lib = SimulatedLibrary.builder(loop).sizeOnly().drive("old", DriveType.LTO8)
                .drive("new", DriveType.LTO9).drive("any").cartridge("A00001L9").cartridge("A00002L8")
                .cartridge("A00003L9").build();
        SimHarness h = new SimHarness(loop, lib);
        assertEquals(Optional.of(DriveType.LTO8), lib.driveType("old"));
        assertEquals(Optional.empty(), lib.driveType("any"));

        SimHarness.Result<Void> refused = h.run((Completion<Void> c) -> lib.mount("old", "A00001L9", c));
        TapeFault fault = refused.fault(FaultKind.DRIVE);
        assertTrue(fault.getMessage().contains("incompatible medium"), fault.getMessage());
        assertEquals(1, lib.incompatibleMounts());
        assertEquals(0, lib.barcodesInDrives().size(), "the cartridge stays in its slot");

        h.mount("old", "A00002L8");
        h.mount("new", "A00001L9");
        h.mount("any", "A00003L9");
        assertEquals(1, lib.incompatibleMounts());
    }
}
