package org.tapeq.daemon;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;

/**
 * Per-second rates of a few scheduler counters, and of the bytes each drive moved, over a sliding window of
 * samples. Thread-safe.
 */
final class RateMeter {

    private static final String[][] RATES = {
        {"stages_done", "files_staged"},
        {"flushes_done", "files_flushed"},
        {"bytes_read", "bytes_read"},
        {"bytes_written", "bytes_written"},
    };

    /** Counters named with this prefix and a drive's name are the bytes that drive moved. */
    static final String DRIVE_BYTES = "drive_bytes:";

    private record Sample(long millis, Map<String, Long> counters) {
    }

    private final ArrayDeque<Sample> samples = new ArrayDeque<>();
    private final int keep;

    RateMeter(int keep) {
        this.keep = keep;
    }

    synchronized void sample(long millis, Map<String, Long> counters) {
        samples.addLast(new Sample(millis, counters));
        while (samples.size() > keep) {
            samples.removeFirst();
        }
    }

    synchronized Map<String, Double> rates() {
        Map<String, Double> out = new TreeMap<>();
        if (samples.size() < 2) {
            return out;
        }
        Sample a = samples.getFirst();
        Sample b = samples.getLast();
        double seconds = (b.millis - a.millis) / 1000.0;
        for (String[] r : RATES) {
            long delta = b.counters.getOrDefault(r[0], 0L) - a.counters.getOrDefault(r[0], 0L);
            out.put(r[1], seconds > 0 ? delta / seconds : 0);
        }
        return out;
    }

    /** Bytes per second each drive moved over the window, by drive (empty until two samples). */
    synchronized Map<String, Double> driveRates() {
        Map<String, Double> out = new TreeMap<>();
        if (samples.size() < 2) {
            return out;
        }
        Sample a = samples.getFirst();
        Sample b = samples.getLast();
        double seconds = (b.millis - a.millis) / 1000.0;
        b.counters.forEach((k, v) -> {
            if (k.startsWith(DRIVE_BYTES)) {
                long delta = v - a.counters.getOrDefault(k, 0L);
                out.put(k.substring(DRIVE_BYTES.length()), seconds > 0 ? delta / seconds : 0);
            }
        });
        return out;
    }
}
