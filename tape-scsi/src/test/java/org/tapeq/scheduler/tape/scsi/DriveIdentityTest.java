package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.DriveType;

/** {@link DriveIdentity} on {@code sg_inq} outputs recorded on the two labs, and on product names of real drives. */
class DriveIdentityTest {

    private static final String TD8 = Recorded.text("mhvtl/sg_inq-ult3580-td8.txt");

    @Test
    void mhvtlDrive_isAnIbmLto8() {
        DriveIdentity id = DriveIdentity.parse(TD8);
        assertEquals(new DriveIdentity("IBM", "ULT3580-TD8", "2160"), id);
        assertEquals(Optional.of(DriveType.LTO8), id.type());
    }

    @Test
    void tgtLabDrive_isAnLto5_noGenerationTapeqModels() {
        DriveIdentity id = DriveIdentity.parse(Recorded.text("lab/sg_inq-ult3580-td5.txt"));
        assertEquals(new DriveIdentity("IBM", "ULT3580-TD5", "0105"), id);
        assertEquals(Optional.empty(), id.type());
    }

    /** The recorded output with another vendor and product, padded to their field widths as drives answer them. */
    private static DriveIdentity as(String vendor, String product) {
        return DriveIdentity.parse(TD8.replace("IBM     ", String.format("%-8s", vendor))
                .replace("ULT3580-TD8     ", String.format("%-16s", product)));
    }

    @Test
    void productsOfRealDrives_mapToTheirGeneration() {
        assertEquals(Optional.of(DriveType.LTO8), as("IBM", "ULT3580-HH8").type());
        assertEquals(Optional.of(DriveType.LTO8), as("HPE", "Ultrium 8-SCSI").type());
        assertEquals(Optional.of(DriveType.LTO8), as("QUANTUM", "ULTRIUM-HH8").type());
        assertEquals(Optional.of(DriveType.LTO9), as("IBM", "ULT3580-TD9").type());
        assertEquals(Optional.of(DriveType.LTO9), as("IBM", "ULTRIUM-HH9").type());
        assertEquals(Optional.of(DriveType.LTO9), as("HPE", "Ultrium 9-SCSI").type());
        assertEquals(Optional.of(DriveType.TS1160), as("IBM", "0359260F").type());
        assertEquals(Optional.empty(), as("HP", "Ultrium 7-SCSI").type());
        assertEquals(Optional.empty(), as("IBM", "ULT3580-TDA").type(), "LTO-10 is not modelled");
    }

    @Test
    void outputWithoutProduct_isRefusedNamingWhatIsMissing() {
        String noProduct = TD8.lines().filter(l -> !l.contains("Product identification"))
                .reduce("", (a, b) -> a + b + "\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DriveIdentity.parse(noProduct));
        assertTrue(e.getMessage().contains("product identification"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DriveIdentity.parse(""));
    }
}
