package diskCacheV111.util;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Declaration compatible with dCache's {@code PnfsId} (dcache-vehicles): an immutable file id of 12 or 18
 * bytes, written as 24 or 36 upper-case hex digits; shorter input is left-padded with zeros to 24 digits.
 * Equality is by value.
 */
public class PnfsId implements Serializable, Comparable<PnfsId> {
    private static final long serialVersionUID = 1L;
    private static final Pattern VALID = Pattern.compile("^(\\p{XDigit}{1,24}|\\p{XDigit}{36})$");
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final byte[] _a;

    public PnfsId(String id) {
        if (id.isEmpty()) {
            throw new IllegalArgumentException("Empty PnfsId");
        }
        String padded = id.length() < 24 ? "0".repeat(24 - id.length()) + id : id;
        if (padded.length() != 24 && padded.length() != 36) {
            throw new IllegalArgumentException("Illegal pnfsid string length");
        }
        String upper = padded.toUpperCase(Locale.ROOT);
        byte[] bytes = new byte[upper.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            int hi = Character.digit(upper.charAt(2 * i), 16);
            int lo = Character.digit(upper.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("Illegal pnfsid: " + id);
            }
            bytes[i] = (byte) ((hi << 4) | lo);
        }
        _a = bytes;
    }

    public static boolean isValid(String id) {
        return VALID.matcher(id).matches();
    }

    @Override
    public boolean equals(Object o) {
        return o == this || (o instanceof PnfsId && Arrays.equals(_a, ((PnfsId) o)._a));
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(_a);
    }

    @Override
    public int compareTo(PnfsId other) {
        return Arrays.compare(_a, other._a);
    }

    @Override
    public String toString() {
        char[] chars = new char[_a.length * 2];
        for (int i = 0; i < _a.length; i++) {
            chars[2 * i] = HEX[(_a[i] >> 4) & 0xF];
            chars[2 * i + 1] = HEX[_a[i] & 0xF];
        }
        return new String(chars);
    }
}
