package org.tapeq.scheduler.tape.scsi;

import java.io.ByteArrayOutputStream;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The drive's end-of-wrap positions: SCSI READ END OF WRAP POSITION (REOWP), a service action of MAINTENANCE IN,
 * {@code A3h[1Fh][45h]} (IBM LTO SCSI Reference GA32-0928, 5.2.20; LTO-7 and later IBM LTO drives), sent with
 * {@code sg_raw} and read from its hex dump.
 *
 * <p>Command (12 bytes): byte 0 operation code A3h; byte 1 service action 1Fh; byte 2 service action qualifier
 * 45h; byte 3 bit 1 RA (report all: the long form, one descriptor per wrap) and bit 0 WNV (a single wrap, not
 * used here); byte 5 wrap number; bytes 6-9 allocation length; byte 11 control. Long-form parameter data: bytes 0-1
 * the number of bytes that follow, bytes 2-3 reserved, then 12-byte wrap descriptors: bytes 0-1 wrap number, 2-3
 * partition, 4-5 reserved, 6-11 the logical object identifier (block address) of the last object of that wrap.
 * All fields big-endian.
 *
 * <p>A drive without the command (older generations, other vendors, the virtual labs) answers CHECK CONDITION with
 * ILLEGAL REQUEST; {@code sg_raw} then exits non-zero and the backend goes on with the estimate.
 */
final class WrapEnds {

    /** Bytes per wrap descriptor in the long form. */
    static final int DESCRIPTOR = 12;
    /** Room for 512 wraps (LTO-9 has 280; the reply is cut at the allocation length, which is checked). */
    static final int ALLOCATION = 4 + 512 * DESCRIPTOR;

    private static final Pattern RECEIVED = Pattern.compile("Received (\\d+) bytes");

    private WrapEnds() {
    }

    /** The command line that asks the drive at {@code device} for all its end-of-wrap positions. */
    static String command(String device) {
        int a = ALLOCATION;
        return Shell.line("sg_raw", "-r", a, device, "a3", "1f", "45", "02", "00", "00",
                hex(a >>> 24), hex(a >>> 16), hex(a >>> 8), hex(a), "00", "00");
    }

    private static String hex(int b) {
        return String.format(Locale.ROOT, "%02x", b & 0xff);
    }

    /**
     * Parses {@code sg_raw}'s output: the first block past each wrap of partition 0 ({@code ends[w]} = the last block
     * of wrap w + 1), in wrap order. There may be fewer ends than the media has wraps, the last at end of data rather
     * than at its wrap's end (inferred from CTA's {@code RAOHelpers} and {@code InterpolationFilePositionEstimator};
     * not checked against GA32-0928 5.2.20): they are returned as reported, and the scheduler completes them (its
     * {@code ReportedWrapEnds}). Throws {@link IllegalArgumentException} naming the problem if there is no data, the
     * length is cut, wraps are missing or out of order, or the positions go backwards.
     */
    static long[] parse(String output) {
        byte[] data = bytes(output);
        if (data.length < 4) {
            throw new IllegalArgumentException("READ END OF WRAP POSITION returned " + data.length
                    + " bytes, fewer than its 4-byte header");
        }
        int following = u16(data, 0);
        if (following + 2 > data.length) {
            throw new IllegalArgumentException("READ END OF WRAP POSITION says " + following
                    + " bytes follow but " + (data.length - 2) + " arrived (allocation length too small?)");
        }
        int descriptors = (following - 2) / DESCRIPTOR;
        if (following == 2) { // no descriptor; what a blank cartridge answers is not known (not checked in 5.2.20)
            throw new IllegalArgumentException("READ END OF WRAP POSITION reports no wrap");
        }
        if (descriptors <= 0 || (following - 2) % DESCRIPTOR != 0) {
            throw new IllegalArgumentException("READ END OF WRAP POSITION: " + following
                    + " bytes of wrap descriptors is not a whole number of " + DESCRIPTOR + "-byte descriptors");
        }
        long[] ends = new long[descriptors];
        int n = 0;
        for (int i = 0; i < descriptors; i++) {
            int at = 4 + i * DESCRIPTOR;
            int wrap = u16(data, at);
            int partition = u16(data, at + 2);
            if (partition != 0) {
                continue;
            }
            if (wrap != n) {
                throw new IllegalArgumentException("READ END OF WRAP POSITION: descriptor " + i + " is wrap " + wrap
                        + ", expected wrap " + n);
            }
            long last = 0;
            for (int b = 6; b < 12; b++) {
                last = last << 8 | (data[at + b] & 0xff);
            }
            if (n > 0 && last + 1 < ends[n - 1]) {
                throw new IllegalArgumentException("READ END OF WRAP POSITION: wrap " + wrap + " ends at block "
                        + last + ", before wrap " + (wrap - 1) + " (" + (ends[n - 1] - 1) + ")");
            }
            ends[n++] = last + 1;
        }
        if (n == 0) {
            throw new IllegalArgumentException("READ END OF WRAP POSITION: no wrap of partition 0");
        }
        return java.util.Arrays.copyOf(ends, n);
    }

    /**
     * The data bytes of an {@code sg_raw} hex dump: after "Received N bytes of data", lines of an offset, up to 16
     * two-digit bytes and an ASCII column; N bounds what is taken, so an ASCII column that looks like hex is not
     * read as data.
     */
    static byte[] bytes(String output) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int expected = -1;
        for (String line : output.split("\n")) {
            Matcher received = RECEIVED.matcher(line);
            if (received.find()) {
                expected = Integer.parseInt(received.group(1));
                continue;
            }
            String[] words = line.trim().split("\\s+");
            if (expected < 0 || words.length < 2 || !words[0].matches("[0-9a-fA-F]+")) {
                continue;
            }
            for (int i = 1; i <= 16 && i < words.length && out.size() < expected; i++) {
                if (!words[i].matches("[0-9a-fA-F]{2}")) {
                    break;
                }
                out.write(Integer.parseInt(words[i], 16));
            }
        }
        return out.toByteArray();
    }

    private static int u16(byte[] d, int at) {
        return (d[at] & 0xff) << 8 | (d[at + 1] & 0xff);
    }
}
