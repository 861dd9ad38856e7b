package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.tape.CartridgeCapacity;

/**
 * The mtx and mt parsers on output captured from the lab library (mtx 1.3.12, mt-st 1.4) and from mtx's sources
 * (src/test/resources/lab, shared with {@link ScsiOutputFuzzTest}); the TapeAlert and cartridge memory parsers on
 * output of the mhVTL lab (sg3_utils 1.46, src/test/resources/mhvtl).
 */
class ParsersTest {

    /** {@code mtx status} of the lab's STK L700 emulation with drive 0 loaded from slot 1. */
    private static final String MTX_LAB = Recorded.text("lab/mtx-status.txt");

    @Test
    void changerStatus_labOutput_drivesSlotsBarcodesAndSource() {
        ChangerStatus s = ChangerStatus.parse(MTX_LAB);
        assertEquals(List.of(new ChangerStatus.Element(0, true, "VTL001L5", 1, false),
                new ChangerStatus.Element(1, false, null, 0, false)), s.drives());
        assertEquals(List.of(new ChangerStatus.Element(1, false, null, 0, false),
                new ChangerStatus.Element(2, true, "VTL002L5", 0, false),
                new ChangerStatus.Element(3, true, null, 0, false),
                new ChangerStatus.Element(11, true, "IMP001L9", 0, true),
                new ChangerStatus.Element(12, false, null, 0, true)), s.slots());
        assertEquals(2, s.slotOf("VTL002L5").orElseThrow().number());
        assertEquals(11, s.slotOf("IMP001L9").orElseThrow().number());
        assertEquals(Optional.empty(), s.slotOf("VTL001L5"), "in a drive, not in a slot");
        assertEquals(0, s.driveOf("VTL001L5").orElseThrow().number());
        assertEquals(Optional.of(1), s.returnSlot(s.drives().get(0)), "back where it came from");
    }

    @Test
    void changerStatus_sourceSlotTakenOrUnknown_firstEmptyStorageSlot() {
        ChangerStatus s = ChangerStatus.parse(Recorded.text("lab/mtx-status-unknown-source.txt"));
        assertEquals(new ChangerStatus.Element(0, true, "A00001L9", 0, false), s.drives().get(0));
        assertEquals(Optional.of(2), s.returnSlot(s.drives().get(0)), "never the import/export slot");
    }

    @Test
    void changerStatus_notMtxOutput_namesTheLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ChangerStatus.parse("  Storage Changer /dev/sg3:1 Drive, 1 Slot ( 0 Import/Export )\nmtx: oops\n"));
        assertTrue(e.getMessage().contains("\"mtx: oops\""), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ChangerStatus.parse(""));
    }

    @Test
    void driveStatus_labOutputs() {
        DriveStatus empty = DriveStatus.parse(Recorded.text("lab/mt-status-empty.txt"));
        assertTrue(empty.noTape());
        assertFalse(empty.online());
        assertEquals(-1, empty.fileNumber());

        DriveStatus eod = DriveStatus.parse(Recorded.text("lab/mt-status-eod.txt"));
        assertEquals(new DriveStatus(2, -1, 0, Set.of("EOD", "ONLINE", "IM_REP_EN")), eod);
        assertTrue(eod.atEndOfData());
        assertTrue(eod.online());
        assertFalse(eod.writeProtected());
    }

    @Test
    void tell_parsesTheBlock_refusesOtherText() {
        assertEquals(1234, DriveStatus.parseTell(Recorded.text("lab/mt-tell.txt")));
        String error = Recorded.text("lab/mt-tell-error.txt");
        assertThrows(IllegalArgumentException.class, () -> DriveStatus.parseTell(error));
        assertThrows(IllegalArgumentException.class, () -> DriveStatus.parse("mt: unknown command"));
    }

    @Test
    void tapeAlert_mhvtlHexDump_flags() {
        TapeAlert a = TapeAlert.parse(Recorded.text("mhvtl/sg_logs-tapealert-flags-04-14-1e.txt"));
        assertEquals(Set.of(0x04, 0x14, 0x1E), a.flags());
        assertEquals("0x04 media, 0x14 cleaning required (clean now), 0x1e hardware A", a.toString());
        assertTrue(TapeAlert.parse(Recorded.text("mhvtl/sg_logs-tapealert-none.txt")).isEmpty());
    }

    @Test
    void tapeAlert_notThePage_orCutShort_refused() {
        assertThrows(IllegalArgumentException.class, () -> TapeAlert.parse("sg_logs: Illegal request"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TapeAlert.parse(" 00     2e 00 01 40 00 01 c0 01  00 00 02 c0 01 00 00 03    ...@....\n"));
        assertTrue(e.getMessage().contains("cut short"), e.getMessage());
    }

    @Test
    void cartridgeMemory_sgReadAttrOutput_capacityInBytes() {
        CartridgeCapacity c = CartridgeMemory.parse(Recorded.text("mhvtl/sg_read_attr-capacity.txt"));
        assertEquals(new CartridgeCapacity(64L << 20, 64L << 20), c);
        assertEquals(new CartridgeCapacity(2L << 20, 12_000_000L << 20), CartridgeMemory.parse("""
                  Remaining capacity in partition [MiB]: 2
                  Maximum capacity in partition [MiB]: 12000000
                """));
        assertThrows(IllegalArgumentException.class,
                () -> CartridgeMemory.parse("Read attribute command: Device not ready"));
    }

    @Test
    void shell_quotesOnlyWhatNeedsIt() {
        assertEquals("mt -f /dev/nst0 seek 12", Shell.line("mt", "-f", "/dev/nst0", "seek", 12));
        assertEquals("dd 'of=/dev/my tape' 'it'\\''s'", Shell.line("dd", "of=/dev/my tape", "it's"));
        assertEquals("'$(reboot)'", Shell.quote("$(reboot)"));
    }
}
