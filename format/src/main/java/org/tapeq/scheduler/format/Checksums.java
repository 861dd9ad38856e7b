package org.tapeq.scheduler.format;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;
import java.util.zip.Adler32;

/**
 * Adler-32 checksums in dCache's notation, {@code adler32:%08x} with lower-case hex digits, and a stream
 * that computes one while passing the bytes through.
 */
public final class Checksums {

    /** The checksum type tapeq computes and verifies. */
    public static final String ADLER32 = "adler32";

    private static final String PREFIX = ADLER32 + ":";

    private Checksums() {
    }

    /** {@code adler32:%08x} of a 32-bit Adler-32 value. */
    public static String format(long adler32) {
        if (adler32 < 0 || adler32 > 0xffffffffL) {
            throw new IllegalArgumentException("not a 32-bit Adler-32 value: " + adler32);
        }
        return String.format(Locale.ROOT, "%s%08x", PREFIX, adler32);
    }

    /**
     * The value of an {@code adler32:<hex>} checksum (type and digits in any case, 1 to 8 digits).
     *
     * @throws IllegalArgumentException if it is not an Adler-32 checksum or the digits are not hexadecimal
     */
    public static long parse(String checksum) {
        if (!isAdler32(checksum)) {
            throw new IllegalArgumentException("not an adler32 checksum: '" + checksum + "'");
        }
        String hex = checksum.substring(PREFIX.length());
        if (hex.isEmpty() || hex.length() > 8) {
            throw new IllegalArgumentException("adler32 checksum needs 1 to 8 hex digits: '" + checksum + "'");
        }
        for (int i = 0; i < hex.length(); i++) {
            char c = hex.charAt(i);
            // ASCII only: Character.digit would also take the digits of other scripts (e.g. fullwidth ones).
            if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F')) {
                throw new IllegalArgumentException("adler32 checksum has a non-hex digit: '" + checksum + "'");
            }
        }
        return Long.parseLong(hex, 16);
    }

    /** Whether the checksum's type is {@code adler32} (regardless of whether its value is well formed). */
    public static boolean isAdler32(String checksum) {
        return checksum != null && checksum.regionMatches(true, 0, PREFIX, 0, PREFIX.length());
    }

    /**
     * Whether {@code checksum} is an Adler-32 in exactly the form {@link #format} gives ({@code adler32:} and eight
     * lower-case hex digits), so that {@code format(parse(checksum))} gives it back: what holds millions of
     * checksums keeps such a one as an int ({@code (int) parse(checksum)}, back with {@link #formatInt}).
     */
    public static boolean isCanonicalAdler32(String checksum) {
        if (checksum == null || checksum.length() != PREFIX.length() + 8 || !checksum.startsWith(PREFIX)) {
            return false;
        }
        for (int i = PREFIX.length(); i < checksum.length(); i++) {
            char c = checksum.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /** {@code adler32:%08x} of an Adler-32 value kept as an int ({@link #isCanonicalAdler32}). */
    public static String formatInt(int adler32) {
        return format(adler32 & 0xffffffffL);
    }

    /** {@code checksum} in canonical form: an Adler-32 checksum as {@code adler32:%08x}, others as given. */
    public static String normalize(String checksum) {
        return isAdler32(checksum) ? format(parse(checksum)) : checksum;
    }

    /**
     * Whether a computed Adler-32 contradicts a recorded checksum. Only an Adler-32 can: a checksum of another
     * type (an MD5 dCache announced) is carried but not verified by tapeq, so it never contradicts.
     */
    public static boolean contradicts(String recorded, String computedAdler32) {
        return isAdler32(recorded) && computedAdler32 != null && !normalize(recorded).equals(computedAdler32);
    }

    /** Wraps {@code out} in a stream that computes the Adler-32 of everything written through it. */
    public static Adler32OutputStream adler32(OutputStream out) {
        return new Adler32OutputStream(out);
    }

    /**
     * Passes bytes through to the wrapped stream and computes their Adler-32 and count. Closing it closes the
     * wrapped stream.
     */
    public static final class Adler32OutputStream extends FilterOutputStream {
        private final Adler32 adler = new Adler32();
        private long count;

        private Adler32OutputStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            adler.update(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            adler.update(b, off, len);
            count += len;
        }

        /** Adler-32 of the bytes written so far. */
        public long value() {
            return adler.getValue();
        }

        /** {@link #value()} as {@code adler32:%08x}. */
        public String checksum() {
            return format(adler.getValue());
        }

        /** Bytes written so far. */
        public long count() {
            return count;
        }
    }
}
