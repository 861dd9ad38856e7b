package org.tapeq.scheduler.tape.scsi;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code mt status} (mt-st) reports about a drive: file and block number as the {@code st} driver
 * counts them (-1 when it lost count), the block size (0 = variable), and the general status bits such as
 * {@code ONLINE}, {@code BOT}, {@code EOD}, {@code DR_OPEN} (no tape), {@code WR_PROT}.
 */
record DriveStatus(int fileNumber, long blockNumber, long blockSize, Set<String> bits) {

    private static final Pattern FILE = Pattern.compile("File number=(-?\\d+), block number=(-?\\d+)");
    private static final Pattern BLOCK_SIZE = Pattern.compile("Tape block size (\\d+) bytes");
    private static final Pattern BITS = Pattern.compile("General status bits on \\([0-9a-fA-F]+\\):\\s*\\R?\\s*(.*)");
    private static final Pattern TELL = Pattern.compile("At block (\\d+)\\.?");

    DriveStatus {
        bits = Set.copyOf(bits);
    }

    /** Parses {@code mt status}; throws {@link IllegalArgumentException} if it is not mt-st's format. */
    static DriveStatus parse(String text) {
        Matcher bits = BITS.matcher(text);
        if (!bits.find()) {
            throw new IllegalArgumentException("mt status printed no \"General status bits\": \"" + text.strip()
                    + "\"");
        }
        Set<String> set = new TreeSet<>(Arrays.asList(bits.group(1).strip().split("\\s+")));
        set.remove("");
        Matcher f = FILE.matcher(text);
        // The st driver counts from 0 and prints -1 when it lost count; anything else is not its output.
        int file = f.find() ? (int) number(f.group(1), -1, Integer.MAX_VALUE, "mt status") : -1;
        long block = f.find(0) ? number(f.group(2), -1, Long.MAX_VALUE, "mt status") : -1;
        Matcher bs = BLOCK_SIZE.matcher(text);
        long blockSize = bs.find() ? number(bs.group(1), 0, Long.MAX_VALUE, "mt status") : -1;
        return new DriveStatus(file, block, blockSize, set);
    }

    /** The logical block address of {@code mt tell} ("At block 1234."). */
    static long parseTell(String text) {
        Matcher m = TELL.matcher(text.strip());
        if (!m.find()) {
            throw new IllegalArgumentException("mt tell printed \"" + text.strip() + "\", not \"At block N.\"");
        }
        return number(m.group(1), 0, Long.MAX_VALUE, "mt tell");
    }

    private static long number(String digits, long min, long max, String command) {
        try {
            long n = Long.parseLong(digits);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // out of range: below
        }
        throw new IllegalArgumentException(command + " printed a number out of range: " + digits);
    }

    boolean online() {
        return bits.contains("ONLINE");
    }

    boolean atEndOfData() {
        return bits.contains("EOD");
    }

    boolean noTape() {
        return bits.contains("DR_OPEN");
    }

    boolean writeProtected() {
        return bits.contains("WR_PROT");
    }
}
