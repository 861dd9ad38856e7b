package org.tapeq.scheduler.tape.scsi;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The drive's recommended access order (RAO): GENERATE RECOMMENDED ACCESS ORDER (MAINTENANCE OUT {@code A4h}, service
 * action {@code 1Dh}) hands the drive a list of user data segments (UDS: block ranges), and RECEIVE RECOMMENDED ACCESS
 * ORDER (MAINTENANCE IN {@code A3h}, service action {@code 1Dh}) returns them in the order the drive recommends; with
 * the UDS_LIMITS bit set it returns how many segments the drive orders at once. IBM enterprise (TS1160) and LTO-9
 * full-height drives implement them (IBM LTO SCSI Reference GA32-0928); the layouts below are the ones CTA sends
 * ({@code cern-cta/CTA}, {@code taped/scsi/Structures.hpp}, namespace {@code RAO}: {@code recieveRAO_t},
 * {@code udsLimitsPage_t}, {@code generateRAO_t}, {@code generateRAOParams_t}, {@code udsDescriptor_t},
 * {@code raoList_t}; used by {@code DriveGeneric::getLimitUDS}, {@code generateRAO}, {@code receiveRAO}).
 *
 * <p>RECEIVE (12 bytes): byte 0 {@code A3h}; byte 1 bits 0-4 service action {@code 1Dh}, bit 7 UDS_LIMITS; bytes 2-5
 * RAO list offset; bytes 6-9 allocation length; byte 10 bits 0-2 UDS type (0: basic); byte 11 control. The limits
 * answer: bytes 0-1 the most segments per list, bytes 2-3 the largest segment. GENERATE (12 bytes): byte 0
 * {@code A4h}; byte 1 service action {@code 1Dh}; byte 2 bits 0-2 RAO process (2: generate the list); byte 3 UDS
 * type; bytes 6-9 parameter list length. Its parameter list: 4 reserved bytes, bytes 4-7 the length of the segment
 * descriptors, then one 32-byte descriptor per segment: bytes 0-1 the descriptor length that follows ({@code 1Eh}),
 * 2-4 reserved, 5-14 the segment's name (10 bytes, here its index in decimal ASCII, NUL-padded, as CTA names its
 * segments), 15 partition, 16-23 first and 24-31 last logical object (block) of the segment. The RAO list: byte 0 bits
 * 0-2 RAO process, byte 1 bits 0-2 status, 2 reserved bytes, bytes 4-7 the length of the descriptors that follow,
 * then the descriptors in the recommended order. All fields big-endian.
 *
 * <p>Commands go through {@code sg_raw}; the parameter list is written to its standard input by the runner
 * ({@code sg_raw --send} reads stdin when no {@code --infile} is given), never put on the command line: a list of
 * 2 047 segments spelt out in the shell line would be over Linux's 128 KiB limit for one argument (the whole line is
 * one argument of {@code sh -c} or of the remote shell). {@code sg_raw} sends and receives at most 64 KiB
 * ({@code MAX_SCSI_DXLEN} in sg3_utils {@code src/sg_raw.c}), so a request holds at most {@link #MAX_SEGMENTS}
 * segments, whatever more the drive would order. A drive without RAO answers ILLEGAL REQUEST
 * ({@link FaultMap#lacksCommand}); the caller then orders the reads itself.
 */
final class AccessOrder {

    /** Bytes per segment descriptor (UDS type 0). */
    static final int DESCRIPTOR = 32;
    /** Bytes of a segment's name. */
    static final int NAME = 10;
    /** Bytes before the descriptors, in the parameter list and in the RAO list. */
    static final int HEADER = 8;
    /** Bytes of the limits answer. */
    static final int LIMITS = 4;
    /** The most bytes {@code sg_raw} sends or receives ({@code MAX_SCSI_DXLEN}). */
    static final int SG_RAW_MAX_BYTES = 64 * 1024;
    /** The most segments in one request: the parameter list and the RAO list within {@link #SG_RAW_MAX_BYTES}. */
    static final int MAX_SEGMENTS = (SG_RAW_MAX_BYTES - HEADER) / DESCRIPTOR;

    private AccessOrder() {
    }

    /** The command that asks the drive at {@code device} how many segments it orders at once. */
    static String limitsCommand(String device) {
        return Shell.line("sg_raw", "-r", LIMITS, device, "a3", "9d", "00", "00", "00", "00",
                "00", "00", "00", hex(LIMITS), "00", "00");
    }

    /**
     * The most segments the drive orders at once, from {@code sg_raw}'s output of {@link #limitsCommand}, and at most
     * {@link #MAX_SEGMENTS}.
     */
    static int parseLimit(String output) {
        byte[] d = WrapEnds.bytes(output);
        if (d.length < LIMITS) {
            throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER (UDS limits) returned " + d.length
                    + " bytes, fewer than " + LIMITS);
        }
        int most = u16(d, 0);
        if (most < 1) {
            throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER (UDS limits): the drive orders "
                    + most + " segments");
        }
        return Math.min(most, MAX_SEGMENTS);
    }

    /** The parameter list of GENERATE RECOMMENDED ACCESS ORDER for the block ranges {@code [starts[i], ends[i])}. */
    static byte[] parameters(long[] starts, long[] ends) {
        if (starts.length != ends.length || starts.length == 0) {
            throw new IllegalArgumentException(starts.length + " starts and " + ends.length + " ends");
        }
        if (starts.length > MAX_SEGMENTS) {
            throw new IllegalArgumentException(starts.length + " segments, more than the " + MAX_SEGMENTS
                    + " sg_raw sends at once");
        }
        byte[] p = new byte[HEADER + starts.length * DESCRIPTOR];
        put(p, 4, 4, (long) starts.length * DESCRIPTOR);
        for (int i = 0; i < starts.length; i++) {
            if (starts[i] < 0 || ends[i] <= starts[i]) {
                throw new IllegalArgumentException("segment " + i + " is not a block range: [" + starts[i] + ", "
                        + ends[i] + ")");
            }
            int at = HEADER + i * DESCRIPTOR;
            put(p, at, 2, DESCRIPTOR - 2);
            byte[] name = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(name, 0, p, at + 5, name.length);
            put(p, at + 16, 8, starts[i]);
            put(p, at + 24, 8, ends[i] - 1); // the last block of the segment
        }
        return p;
    }

    /**
     * The command line that hands the drive at {@code device} a parameter list of {@code count} segments, which it
     * reads from its standard input ({@link #parameters}).
     */
    static String generateCommand(String device, int count) {
        if (count < 1 || count > MAX_SEGMENTS) {
            throw new IllegalArgumentException(count + " segments, not 1.." + MAX_SEGMENTS);
        }
        int n = HEADER + count * DESCRIPTOR;
        return Shell.line("sg_raw", "-s", n, device, "a4", "1d", "02", "00", "00",
                "00", hex(n >>> 24), hex(n >>> 16), hex(n >>> 8), hex(n), "00", "00");
    }

    /** The command that fetches the drive's order of {@code count} segments. */
    static String receiveCommand(String device, int count) {
        int a = HEADER + count * DESCRIPTOR;
        return Shell.line("sg_raw", "-r", a, device, "a3", "1d", "00", "00", "00", "00",
                hex(a >>> 24), hex(a >>> 16), hex(a >>> 8), hex(a), "00", "00");
    }

    /**
     * The drive's order of the segments it was given ({@code starts}/{@code ends}, as sent by
     * {@link #generateCommand}) from {@code sg_raw}'s output of {@link #receiveCommand}: a permutation of their
     * indices. Throws {@link IllegalArgumentException} naming the problem if the list is cut or incomplete, names a
     * segment that was not sent or twice, or gives a segment other blocks than were sent.
     */
    static int[] parseOrder(String output, long[] starts, long[] ends) {
        byte[] d = WrapEnds.bytes(output);
        if (d.length < HEADER) {
            throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER returned " + d.length
                    + " bytes, fewer than its " + HEADER + "-byte header");
        }
        long length = get(d, 4, 4);
        if (HEADER + length > d.length) {
            throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER says " + length
                    + " bytes of descriptors follow but " + (d.length - HEADER) + " arrived");
        }
        int n = starts.length;
        int[] order = new int[n];
        boolean[] seen = new boolean[n];
        int k = 0;
        int at = HEADER;
        while (at < HEADER + length) {
            if (at + DESCRIPTOR > d.length) {
                throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER: descriptor " + k
                        + " is cut at byte " + d.length);
            }
            int size = 2 + u16(d, at);
            if (size < DESCRIPTOR) {
                throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER: descriptor " + k + " has "
                        + size + " bytes, fewer than " + DESCRIPTOR);
            }
            int i = name(d, at + 5, k);
            if (i >= n || seen[i]) {
                throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER: descriptor " + k + " names"
                        + " segment " + i + (i >= n ? ", of " + n + " sent" : " a second time"));
            }
            long first = get(d, at + 16, 8);
            long last = get(d, at + 24, 8);
            if (first != starts[i] || last != ends[i] - 1) {
                throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER: segment " + i + " comes back"
                        + " as blocks " + first + "-" + last + ", sent as " + starts[i] + "-" + (ends[i] - 1));
            }
            if (k == n) {
                throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER: more than " + n
                        + " descriptors");
            }
            seen[i] = true;
            order[k++] = i;
            at += size;
        }
        if (k != n) {
            throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER: " + k + " of " + n
                    + " segments in the list (the drive's list is not complete)");
        }
        return order;
    }

    /** A segment's name: decimal ASCII digits, NUL-padded. */
    private static int name(byte[] d, int at, int k) {
        int value = 0;
        int digits = 0;
        for (int b = 0; b < NAME && d[at + b] != 0; b++) {
            int c = d[at + b];
            if (c < '0' || c > '9' || digits == 9) {
                throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER: descriptor " + k
                        + " has a name that is not a segment number");
            }
            value = value * 10 + (c - '0');
            digits++;
        }
        if (digits == 0) {
            throw new IllegalArgumentException("RECEIVE RECOMMENDED ACCESS ORDER: descriptor " + k
                    + " has an empty name");
        }
        return value;
    }

    private static void put(byte[] d, int at, int bytes, long value) {
        for (int b = bytes - 1; b >= 0; b--) {
            d[at + b] = (byte) value;
            value >>>= 8;
        }
    }

    private static long get(byte[] d, int at, int bytes) {
        long v = 0;
        for (int b = 0; b < bytes; b++) {
            v = v << 8 | (d[at + b] & 0xff);
        }
        return v;
    }

    private static int u16(byte[] d, int at) {
        return (int) get(d, at, 2);
    }

    private static String hex(int b) {
        return String.format(Locale.ROOT, "%02x", b & 0xff);
    }
}
