package org.tapeq.loadtest.run;

import java.util.Locale;

import org.tapeq.config.Units;

/** How the harness writes numbers for people: rates, durations, plain numbers. */
public final class Format {

    private Format() {
    }

    /** {@code 1.2 GB/s}. */
    public static String rate(double bytesPerSecond) {
        return Units.roughSize(bytesPerSecond) + "/s";
    }

    /** {@code 45 s}, {@code 12.5 min}, {@code 3.2 h}. */
    public static String duration(double millis) {
        double s = millis / 1000;
        if (s < 120) {
            return String.format(Locale.ROOT, "%.1f s", s);
        }
        if (s < 7200) {
            return String.format(Locale.ROOT, "%.1f min", s / 60);
        }
        return String.format(Locale.ROOT, "%.2f h", s / 3600);
    }
}
