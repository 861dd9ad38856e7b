package org.tapeq.scheduler.tape.scsi;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.tapeq.scheduler.tape.CartridgeCapacity;

/**
 * The capacity attributes of a cartridge's memory (MAM), as {@code sg_read_attr -f 0 DEV; sg_read_attr -f 1 DEV}
 * prints them: attribute 0x0000 "Remaining capacity in partition [MiB]" and 0x0001 "Maximum capacity in
 * partition [MiB]" (SPC-4 READ ATTRIBUTE, in units of 2^20 bytes).
 */
final class CartridgeMemory {

    private static final Pattern REMAINING = Pattern.compile("Remaining capacity in partition \\[MiB]:\\s*(\\d+)");
    private static final Pattern MAXIMUM = Pattern.compile("Maximum capacity in partition \\[MiB]:\\s*(\\d+)");

    private CartridgeMemory() {
    }

    /** The command line that reads both attributes of the cartridge in {@code device}. */
    static String command(String device) {
        return Shell.line("sg_read_attr", "-f", 0, device) + " && " + Shell.line("sg_read_attr", "-f", 1, device);
    }

    /** Parses the output; throws {@link IllegalArgumentException} if an attribute is missing or not a capacity. */
    static CartridgeCapacity parse(String text) {
        long remaining = mib(REMAINING.matcher(text), "remaining", text);
        long maximum = mib(MAXIMUM.matcher(text), "maximum", text);
        return new CartridgeCapacity(remaining << 20, maximum << 20);
    }

    private static long mib(Matcher m, String which, String text) {
        if (!m.find()) {
            throw new IllegalArgumentException("sg_read_attr printed no " + which + " capacity: \"" + text.strip()
                    + "\"");
        }
        return Long.parseLong(m.group(1));
    }
}
