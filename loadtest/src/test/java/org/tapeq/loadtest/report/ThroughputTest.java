package org.tapeq.loadtest.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.loadtest.run.Sample;
import org.tapeq.loadtest.run.Transfer;
import org.tapeq.scheduler.model.MediaType;

/**
 * The throughput plot must not show more than the drives can carry: a recorded run of known drives and rate, every
 * read a tape file of ten files answered together when the read ends (as the daemon answers the members of one
 * read).
 */
class ThroughputTest {

    /** Bins split a transfer at their edges; rounding may add this much to a bin, no more. */
    private static final double TOLERANCE = 0.01;
    private static final long FILE = 400_000_000L;
    private static final int FILES_PER_READ = 10;

    /**
     * {@code drives} drives reading back to back at LTO-9's rate after a one-minute mount, {@code reads} reads each,
     * every read {@link #FILES_PER_READ} files (10 s); the drives start {@code lag} ms apart.
     */
    private static List<Transfer> transfers(int drives, int reads, long lag) {
        long rate = MediaType.LTO9.rateBytesPerSecond();
        long bytes = FILE * FILES_PER_READ;
        double millis = bytes * 1000.0 / rate;
        List<Transfer> out = new ArrayList<>();
        for (int d = 0; d < drives; d++) {
            for (int r = 0; r < reads; r++) {
                double start = 60_000 + d * lag + r * millis;
                out.add(new Transfer("drive" + d, false, bytes, start, start + millis));
            }
        }
        return out;
    }

    /** The samples of the same run: one a second, bytes staged when the reads that ended by then are answered. */
    private static List<Sample> samples(List<Transfer> transfers, long seconds) {
        List<Sample> samples = new ArrayList<>();
        for (long t = 0; t <= seconds; t++) {
            long at = t * 1000;
            long staged = transfers.stream().filter(x -> x.endMillis() <= at).mapToLong(Transfer::bytes).sum();
            samples.add(new Sample(at, 0, staged, 0, 0, 1));
        }
        return samples;
    }

    private static double limit(int drives) {
        return drives * MediaType.LTO9.rateBytesPerSecond() / 1e6 * (1 + TOLERANCE);
    }

    @Test
    void onTape_oneLto9Drive_noRateAboveItsNominalRate_andAnsweredBytesWouldBe() {
        List<Transfer> transfers = transfers(1, 30, 0);
        double duration = 400_000;
        Throughput plotted = Throughput.onTape(transfers, duration, 150);
        assertTrue(plotted.peak() <= limit(1), "peak " + plotted.peak() + " MB/s");
        assertEquals(400, plotted.peak(), 400 * TOLERANCE, "the drive streamed the whole time");
        // The rates the report plotted before: all the files of a read counted when they are answered.
        Throughput answered = Throughput.answered(samples(transfers, 400), 1, 150);
        assertTrue(answered.peak() > limit(1), "answered " + answered.peak() + " MB/s");
    }

    @Test
    void onTape_fourDrivesOffsetByAFraction_noRateAboveTheirTotal_bytesKept() {
        List<Transfer> transfers = transfers(4, 20, 3_333);
        double duration = 300_000;
        Throughput plotted = Throughput.onTape(transfers, duration, 150);
        assertTrue(plotted.peak() <= limit(4), "peak " + plotted.peak() + " MB/s");
        double width = plotted.millis()[1] - plotted.millis()[0];
        double bytes = 0;
        for (double r : plotted.read()) {
            bytes += r * 1e6 * width / 1000;
        }
        assertEquals(4 * 20 * FILE * FILES_PER_READ, bytes, 1e3, "every byte plotted once");
        Throughput answered = Throughput.answered(samples(transfers, 300), 1, 150);
        assertTrue(answered.peak() > limit(4), "answered " + answered.peak() + " MB/s");
    }
}
