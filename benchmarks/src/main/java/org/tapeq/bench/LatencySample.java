package org.tapeq.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.tapeq.workload.Percentile;

/**
 * The delays of one phase's loop probes, in nanoseconds, kept whole (a plain growing array: a probe every
 * millisecond for two minutes is 120 000 longs) and sorted once for the summary. Written by one thread at a
 * time: the event loop while the phase runs, the benchmark's main thread after the probes have drained.
 */
final class LatencySample {

    /** Probes later than these are counted (milliseconds). */
    static final long[] LATE_MILLIS = {10, 100};

    private long[] delays = new long[4096];
    private int count;

    void add(long delayNanos) {
        if (count == delays.length) {
            delays = Arrays.copyOf(delays, count * 2);
        }
        delays[count++] = delayNanos;
    }

    /** The figures of the probes recorded so far; {@code seconds} is the phase's wall-clock length. */
    Summary summarize(double seconds) {
        long[] sorted = Arrays.copyOf(delays, count);
        Arrays.sort(sorted);
        long[] late = new long[LATE_MILLIS.length];
        for (int i = 0; i < late.length; i++) {
            long limit = LATE_MILLIS[i] * 1_000_000;
            int first = firstAbove(sorted, limit);
            late[i] = sorted.length - first;
        }
        return new Summary(count, seconds, percentile(sorted, 0.50), percentile(sorted, 0.99),
                percentile(sorted, 0.999), count == 0 ? 0 : sorted[count - 1], late);
    }

    /**
     * Nearest-rank percentile ({@link Percentile}): the smallest delay that at least {@code q} of the probes do not
     * exceed.
     */
    private static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Percentile.nearestRank(sorted.length, q)];
    }

    /** Index of the first element greater than {@code limit}. */
    private static int firstAbove(long[] sorted, long limit) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] <= limit) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * One phase's figures.
     *
     * @param probes  probes that ran
     * @param seconds wall-clock length of the phase
     * @param late    probes later than each of {@link #LATE_MILLIS}
     */
    record Summary(int probes, double seconds, long p50Nanos, long p99Nanos, long p999Nanos, long maxNanos,
                   long[] late) {

        /** The figures as JSON members (milliseconds with three decimals), in a fixed order. */
        Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("probes", probes);
            m.put("seconds", round(seconds));
            m.put("p50_ms", millis(p50Nanos));
            m.put("p99_ms", millis(p99Nanos));
            m.put("p999_ms", millis(p999Nanos));
            m.put("max_ms", millis(maxNanos));
            for (int i = 0; i < LATE_MILLIS.length; i++) {
                m.put("late_" + LATE_MILLIS[i] + "ms", late[i]);
            }
            return m;
        }

        static double millis(long nanos) {
            return round(nanos / 1e6);
        }

        private static double round(double v) {
            return Double.parseDouble(String.format(Locale.ROOT, "%.3f", v));
        }
    }
}
