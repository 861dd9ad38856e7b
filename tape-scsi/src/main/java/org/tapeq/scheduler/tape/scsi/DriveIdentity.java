package org.tapeq.scheduler.tape.scsi;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.tapeq.scheduler.model.DriveType;

/**
 * A drive's identity from its standard INQUIRY data as {@code sg_inq} (sg3_utils) prints it, and the generation
 * its product identification names. The product identifications are the ones the vendors' drives answer: IBM's
 * full-height and half-height LTO drives {@code ULT3580-TD8}/{@code ULT3580-HH8} (and the {@code ULTRIUM-TD8},
 * {@code ULTRIUM-HH8}, {@code HH LTO Gen 8} forms), HPE's {@code Ultrium 8-SCSI}, Quantum's {@code ULTRIUM-HH8},
 * the same with 9 for LTO-9, and the TS1160's {@code 0359260F}/{@code 0359260E}/{@code 0359260S} (sources in
 * docs/operations.md, "How tapeq knows a drive's generation"). Anything else, e.g. the tgt lab's LTO-5
 * {@code ULT3580-TD5}, names no generation tapeq models.
 *
 * @param vendor   the vendor identification without its padding, e.g. {@code IBM}
 * @param product  the product identification without its padding, e.g. {@code ULT3580-TD8}
 * @param revision the product revision level, or an empty string
 */
record DriveIdentity(String vendor, String product, String revision) {

    /** Product identification (upper case) to generation. */
    private static final Map<String, DriveType> PRODUCTS = Map.ofEntries(
            Map.entry("ULT3580-TD8", DriveType.LTO8), Map.entry("ULT3580-HH8", DriveType.LTO8),
            Map.entry("ULTRIUM-TD8", DriveType.LTO8), Map.entry("ULTRIUM-HH8", DriveType.LTO8),
            Map.entry("HH LTO GEN 8", DriveType.LTO8), Map.entry("ULTRIUM 8-SCSI", DriveType.LTO8),
            Map.entry("ULT3580-TD9", DriveType.LTO9), Map.entry("ULT3580-HH9", DriveType.LTO9),
            Map.entry("ULTRIUM-TD9", DriveType.LTO9), Map.entry("ULTRIUM-HH9", DriveType.LTO9),
            Map.entry("HH LTO GEN 9", DriveType.LTO9), Map.entry("ULTRIUM 9-SCSI", DriveType.LTO9),
            Map.entry("0359260F", DriveType.TS1160), Map.entry("0359260E", DriveType.TS1160),
            Map.entry("0359260S", DriveType.TS1160));

    private static final String VENDOR = "Vendor identification:";
    private static final String PRODUCT = "Product identification:";
    private static final String REVISION = "Product revision level:";

    /** The command line that reads it (the st driver passes INQUIRY through, like the other sg3_utils commands). */
    static String command(String device) {
        return Shell.line("sg_inq", device);
    }

    /**
     * Parses {@code sg_inq}'s standard INQUIRY output.
     *
     * @throws IllegalArgumentException if it has no vendor or no product identification
     */
    static DriveIdentity parse(String text) {
        String vendor = field(text, VENDOR);
        String product = field(text, PRODUCT);
        if (vendor == null || product == null || product.isEmpty()) {
            throw new IllegalArgumentException("sg_inq printed no " + (vendor == null ? "vendor" : "product")
                    + " identification: " + text.strip().lines().findFirst().orElse("(nothing)"));
        }
        String revision = field(text, REVISION);
        return new DriveIdentity(vendor, product, revision == null ? "" : revision);
    }

    private static String field(String text, String label) {
        return text.lines().map(String::strip).filter(l -> l.startsWith(label))
                .map(l -> l.substring(label.length()).strip()).findFirst().orElse(null);
    }

    /** The generation the product identification names, if tapeq models it. */
    Optional<DriveType> type() {
        return Optional.ofNullable(PRODUCTS.get(product.toUpperCase(Locale.ROOT)));
    }

    @Override
    public String toString() {
        return vendor + " \"" + product + "\"" + (revision.isEmpty() ? "" : " rev " + revision);
    }
}
