package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.tapeq.fuzz.Fuzz;
import org.tapeq.fuzz.Gen;
import org.tapeq.fuzz.Mutations;

/**
 * Fuzzes the parsers of what {@code mtx status}, {@code mt status} and {@code mt tell} print (docs/testing.md,
 * "Fuzzing"), seeded with the outputs {@link ParsersTest} checks (src/test/resources/lab). Mutated output must
 * parse or be refused with an {@link IllegalArgumentException} that says which command printed what; a changer
 * status printed as mtx prints it parses back equal.
 */
class ScsiOutputFuzzTest {
    private static final int MAX = 64 * 1024;
    private static final int ROUND_TRIPS = 1000;

    @Test
    void mtxStatus_mutated_parsesOrIsRefusedNamingTheCommand() {
        Fuzz.mutants("mtx status", MTX, input -> {
            ChangerStatus s;
            try {
                s = ChangerStatus.parse(input.text());
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().contains("mtx status"), e::getMessage);
                return;
            }
            for (ChangerStatus.Element e : s.drives()) {
                assertTrue(e.number() >= 0 && e.sourceSlot() >= 0 && (e.full() || e.barcode() == null), e::toString);
            }
            for (ChangerStatus.Element e : s.slots()) {
                assertTrue(e.number() >= 0 && (e.full() || e.barcode() == null), e::toString);
            }
            assertEquals(s, ChangerStatus.parse(print(s)), "printed back differently");
        });
    }

    @Test
    void mtxStatus_printed_parsesBackEqual() {
        Fuzz.run("mtx status printed", ROUND_TRIPS, ScsiOutputFuzzTest::changer,
                s -> assertEquals(s, ChangerStatus.parse(print(s))));
    }

    @Test
    void mtStatus_mutated_parsesOrIsRefusedNamingTheCommand() {
        Fuzz.mutants("mt status", MT_STATUS, input -> {
            DriveStatus s;
            try {
                s = DriveStatus.parse(input.text());
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().contains("mt status"), e::getMessage);
                return;
            }
            assertTrue(s.fileNumber() >= -1 && s.blockNumber() >= -1 && s.blockSize() >= -1, s::toString);
            assertFalse(s.bits().contains(""), s::toString);
        });
    }

    @Test
    void mtTell_mutated_parsesOrIsRefusedNamingTheCommand() {
        Fuzz.mutants("mt tell", MT_TELL, input -> {
            long block;
            try {
                block = DriveStatus.parseTell(input.text());
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().contains("mt tell"), e::getMessage);
                return;
            }
            assertTrue(block >= 0, () -> "negative block " + block);
        });
    }

    /**
     * Found by the fuzzer: numbers beyond int or long escaped as NumberFormatException("For input string: ..."),
     * and a block number of -256 was taken (the st driver prints -1 or a count).
     */
    @Test
    void outputs_hugeNumbers_refusedNamingTheCommand() {
        IllegalArgumentException mtx = assertThrows(IllegalArgumentException.class, () -> ChangerStatus.parse(
                "  Storage Changer /dev/sg3:1 Drive, 1 Slot ( 0 Import/Export )\nData Transfer Element 99999999999:Empty\n"));
        assertTrue(mtx.getMessage().contains("mtx status"), mtx.getMessage());
        IllegalArgumentException mt = assertThrows(IllegalArgumentException.class, () -> DriveStatus.parse(
                "File number=99999999999, block number=0, partition=0.\nGeneral status bits on (41010000):\n ONLINE\n"));
        assertTrue(mt.getMessage().contains("mt status"), mt.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DriveStatus.parse(
                "File number=2, block number=-256, partition=0.\nGeneral status bits on (41010000):\n ONLINE\n"));
        IllegalArgumentException tell = assertThrows(IllegalArgumentException.class,
                () -> DriveStatus.parseTell("At block 99999999999999999999."));
        assertTrue(tell.getMessage().contains("mt tell"), tell.getMessage());
    }

    /**
     * Found by the long fuzz run: an empty drive took the source slot of a "(Storage Element N Loaded)" that mtx
     * prints only for a full one; like the barcode, it is now read only for a full drive.
     */
    @Test
    void mtxStatus_emptyDriveWithASourceSlot_hasNone() {
        ChangerStatus s = ChangerStatus.parse("  Storage Changer /dev/sg3:1 Drive, 1 Slot ( 0 Import/Export )\n"
                + "Data Transfer Element 1:Empty(Storage Element 1 Loaded)mpty:VolumeTag=   \n");
        assertEquals(List.of(new ChangerStatus.Element(1, false, null, 0, false)), s.drives());
    }

    private static final Mutations MTX = Mutations.ofText(List.of(Recorded.text("lab/mtx-status.txt"),
            Recorded.text("lab/mtx-status-unknown-source.txt")), List.of("Storage Changer", "Data Transfer Element",
            "Storage Element", ":Full", ":Empty", "IMPORT/EXPORT", ":VolumeTag=", "(Storage Element 1 Loaded)", "(Unknown Storage Element Loaded)",
            "\r\n", "\u2028", "\u0085"), MAX);

    private static final Mutations MT_STATUS = Mutations.ofText(List.of(Recorded.text("lab/mt-status-empty.txt"),
            Recorded.text("lab/mt-status-eod.txt")), List.of("File number=", ", block number=", "Tape block size ",
            " bytes", "General status bits on (", "):", "ONLINE", "EOD", "WR_PROT"), MAX);

    private static final Mutations MT_TELL = Mutations.ofText(List.of(Recorded.text("lab/mt-tell.txt"),
            "At block 0.", Recorded.text("lab/mt-tell-error.txt")), List.of("At block ", "."), 1024);

    /** Any changer: drives numbered from 0, slots from 1, barcodes as volume tags can be. */
    private static ChangerStatus changer(Random r) {
        List<ChangerStatus.Element> drives = new ArrayList<>();
        for (int i = 0, n = r.nextInt(4); i < n; i++) {
            boolean full = r.nextBoolean();
            drives.add(new ChangerStatus.Element(i, full, full ? Gen.orNull(r, barcode(r), 0.2) : null,
                    full ? Gen.between(r, 0, Integer.MAX_VALUE) : 0, false));
        }
        List<ChangerStatus.Element> slots = new ArrayList<>();
        for (int i = 1, n = r.nextInt(6); i <= n; i++) {
            boolean full = r.nextBoolean();
            slots.add(new ChangerStatus.Element(i, full, full ? Gen.orNull(r, barcode(r), 0.2) : null, 0,
                    r.nextInt(4) == 0));
        }
        return new ChangerStatus(drives, slots);
    }

    private static String barcode(Random r) {
        return Gen.of(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 1, 16);
    }

    /** {@code s} as mtx 1.3 prints it. */
    private static String print(ChangerStatus s) {
        StringBuilder sb = new StringBuilder("  Storage Changer /dev/sg3:").append(s.drives().size()).append(" Drives, ")
                .append(s.slots().size()).append(" Slots ( 0 Import/Export )\n");
        for (ChangerStatus.Element d : s.drives()) {
            sb.append("Data Transfer Element ").append(d.number()).append(d.full() ? ":Full" : ":Empty");
            if (d.full()) {
                sb.append(d.sourceSlot() == 0 ? " (Unknown Storage Element Loaded)"
                        : " (Storage Element " + d.sourceSlot() + " Loaded)");
                if (d.barcode() != null) {
                    sb.append(":VolumeTag = ").append(d.barcode());
                }
            }
            sb.append('\n');
        }
        for (ChangerStatus.Element e : s.slots()) {
            sb.append("      Storage Element ").append(e.number()).append(e.importExport() ? " IMPORT/EXPORT" : "")
                    .append(e.full() ? ":Full " : ":Empty");
            if (e.barcode() != null) {
                sb.append(":VolumeTag=").append(e.barcode());
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    @Test
    void print_labOutput_parsesBackTheSame() {
        ChangerStatus lab = ChangerStatus.parse(MTX_SAMPLE);
        assertEquals(lab, ChangerStatus.parse(print(lab)));
        assertEquals(Set.of(), Set.copyOf(ChangerStatus.parse(print(new ChangerStatus(List.of(), List.of()))).slots()));
    }

    private static final String MTX_SAMPLE = "  Storage Changer /dev/sg3:1 Drive, 1 Slot ( 0 Import/Export )\n"
            + "Data Transfer Element 0:Full (Storage Element 1 Loaded):VolumeTag = A1\n"
            + "      Storage Element 1:Empty\n";
}
