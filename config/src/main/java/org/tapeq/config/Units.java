package org.tapeq.config;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The configuration's value syntax. Sizes: a number of bytes or a number with an SI (kB/KB, MB, GB, TB, PB:
 * powers of 1000) or binary (KiB, MiB, GiB, TiB, PiB: powers of 1024) unit, case-insensitive, a space allowed
 * ({@code 10 GB}, {@code 1.5TB}). Durations: a number with ms, s, m, h or d; a plain number is seconds.
 * Negative values are errors.
 */
public final class Units {

    private static final Pattern VALUE = Pattern.compile("(-?)(\\d+(?:\\.\\d+)?)\\s*([A-Za-z]*)");
    private static final long KB = 1000;
    /** Units, largest first; {@link #formatSize} and {@link #formatDuration} use the largest that fits exactly. */
    private static final String[] SI_NAMES = {"PB", "TB", "GB", "MB", "kB"};
    private static final long[] SI_FACTORS = {KB * KB * KB * KB * KB, KB * KB * KB * KB, KB * KB * KB, KB * KB, KB};
    private static final String[] BINARY_NAMES = {"PiB", "TiB", "GiB", "MiB", "KiB"};
    private static final long[] BINARY_FACTORS = {1L << 50, 1L << 40, 1L << 30, 1L << 20, 1L << 10};
    private static final String[] DURATION_NAMES = {"d", "h", "m", "s"};
    private static final long[] DURATION_FACTORS = {86_400_000L, 3_600_000L, 60_000L, 1000L};
    /** Lower-case size units (matched case-insensitively) to bytes; no unit is bytes. */
    private static final Map<String, Long> SIZE_UNITS = new HashMap<>(Map.of("", 1L, "b", 1L));
    /** Duration units to milliseconds; no unit is seconds. */
    private static final Map<String, Long> DURATION_UNITS = new HashMap<>(Map.of("", 1000L, "ms", 1L));

    static {
        for (int i = 0; i < SI_NAMES.length; i++) {
            SIZE_UNITS.put(SI_NAMES[i].toLowerCase(Locale.ROOT), SI_FACTORS[i]);
            SIZE_UNITS.put(BINARY_NAMES[i].toLowerCase(Locale.ROOT), BINARY_FACTORS[i]);
        }
        for (int i = 0; i < DURATION_NAMES.length; i++) {
            DURATION_UNITS.put(DURATION_NAMES[i], DURATION_FACTORS[i]);
        }
    }

    private Units() {
    }

    /** Bytes of a size such as {@code 123}, {@code 10GB}, {@code 256KiB} or {@code 1.5TB}. */
    public static long parseSize(String text) {
        return parse(text, SIZE_UNITS, true, "size", "bytes", "examples: 123, 10GB, 256KiB, 1.5TB");
    }

    /** Milliseconds of a duration such as {@code 500ms}, {@code 120s}, {@code 10m}, {@code 2h} or {@code 30}. */
    public static long parseDuration(String text) {
        return parse(text, DURATION_UNITS, false, "duration", "milliseconds", "examples: 500ms, 120s, 10m, 2h");
    }

    /** The exact form with the smallest number, e.g. {@code 650GB}, {@code 256KiB} or {@code 123}. */
    public static String formatSize(long bytes) {
        int si = largestExact(bytes, SI_FACTORS);
        int binary = largestExact(bytes, BINARY_FACTORS);
        if (si < 0 && binary < 0) {
            return Long.toString(bytes);
        }
        boolean useSi = binary < 0 || si >= 0 && SI_FACTORS[si] >= BINARY_FACTORS[binary];
        return useSi ? bytes / SI_FACTORS[si] + SI_NAMES[si] : bytes / BINARY_FACTORS[binary] + BINARY_NAMES[binary];
    }

    /** The largest exact unit, e.g. {@code 2m}, {@code 90s} or {@code 500ms}. */
    public static String formatDuration(long millis) {
        int i = largestExact(millis, DURATION_FACTORS);
        return millis == 0 ? "0s" : i < 0 ? millis + "ms" : millis / DURATION_FACTORS[i] + DURATION_NAMES[i];
    }

    /** Index of the first (largest) factor that divides {@code value}, -1 if none does or value is 0. */
    private static int largestExact(long value, long[] factors) {
        for (int i = 0; value != 0 && i < factors.length; i++) {
            if (value % factors[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    private static long parse(String text, Map<String, Long> units, boolean ignoreCase, String what,
            String unitName, String examples) {
        Matcher m = VALUE.matcher(text.strip());
        Long factor = m.matches() ? units.get(ignoreCase ? m.group(3).toLowerCase(Locale.ROOT) : m.group(3)) : null;
        if (factor == null) {
            throw new IllegalArgumentException(quote(text) + " is not a " + what + " (" + examples + ")");
        }
        if (!m.group(1).isEmpty()) {
            throw new IllegalArgumentException(quote(text) + " is negative; a " + what + " must be 0 or more");
        }
        BigDecimal value = new BigDecimal(m.group(2)).multiply(BigDecimal.valueOf(factor));
        if (value.stripTrailingZeros().scale() > 0) {
            throw new IllegalArgumentException(quote(text) + " is not a whole number of " + unitName);
        }
        try {
            return value.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(quote(text) + " is too large", e);
        }
    }

    private static String quote(String text) {
        return '"' + text + '"';
    }

    /** A number as a person writes it: {@code 100} for 100.0, else the shortest decimal form ({@code 2.5}). */
    public static String plainNumber(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    /** A size for people to read, SI units with one decimal ({@code 352.1 MB}); not for configuration. */
    public static String roughSize(double bytes) {
        String[] units = {"B", "kB", "MB", "GB", "TB", "PB"};
        int u = 0;
        while (bytes >= 1000 && u < units.length - 1) {
            bytes /= 1000;
            u++;
        }
        return u == 0 ? String.format(Locale.ROOT, "%.0f %s", bytes, units[u])
                : String.format(Locale.ROOT, "%.1f %s", bytes, units[u]);
    }
}
