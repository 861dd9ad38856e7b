package org.tapeq.fuzz;

import java.util.List;
import java.util.Random;

/** Random values for the write-then-read properties of the fuzz tests. */
public final class Gen {
    private static final String[] ODD_TEXT = {"", " ", "\u0000", "\n", "\"", "\\", "\u00e9", "\ud83d\ude00", "\u2028",
        "\ufeff", "null", "-1", "/", "../", "%s", "{}"};

    private Gen() {
    }

    /**
     * Text of {@code minLength} to {@code maxLength} characters of valid UTF-16 (no lone surrogates, which no UTF-8 file can
     * hold): control characters, quotes, non-ASCII and characters outside the BMP included.
     */
    public static String text(Random r, int minLength, int maxLength) {
        StringBuilder sb = new StringBuilder();
        int n = minLength + r.nextInt(maxLength - minLength + 1);
        while (sb.length() < n) {
            int kind = r.nextInt(10);
            if (kind < 2) {
                String odd = ODD_TEXT[r.nextInt(ODD_TEXT.length)];
                if (sb.length() + odd.length() <= maxLength) {
                    sb.append(odd);
                }
            } else if (kind < 7) {
                sb.append((char) (0x20 + r.nextInt(0x5f)));
            } else {
                char c = (char) r.nextInt(0xd800);
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** {@code value}, or null one time in {@code 1/probability}. */
    public static <T> T orNull(Random r, T value, double probability) {
        return r.nextDouble() < probability ? null : value;
    }

    /** A long in {@code [min, max]}, the ends and 0 (if inside) more often than the rest. */
    public static long between(Random r, long min, long max) {
        switch (r.nextInt(8)) {
            case 0:
                return min;
            case 1:
                return max;
            case 2:
                return min <= 0 && max >= 0 ? 0 : min;
            default:
                long span = max - min + 1;
                if (span > 0) {
                    return min + Math.floorMod(r.nextLong(), span);
                }
                long v; // the range is more than half of all longs: few draws miss it
                do {
                    v = r.nextLong();
                } while (v < min || v > max);
                return v;
        }
    }

    /** An int in {@code [min, max]}, the ends more often than the rest. */
    public static int between(Random r, int min, int max) {
        return (int) between(r, (long) min, (long) max);
    }

    /** {@code length} characters drawn from {@code chars}, {@code length} in {@code [min, max]}. */
    public static String of(Random r, String chars, int min, int max) {
        int n = min + r.nextInt(max - min + 1);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append(chars.charAt(r.nextInt(chars.length())));
        }
        return sb.toString();
    }

    /** One of {@code values}. */
    public static <T> T pick(Random r, List<T> values) {
        return values.get(r.nextInt(values.size()));
    }
}
