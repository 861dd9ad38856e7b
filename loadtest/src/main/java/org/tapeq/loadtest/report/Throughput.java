package org.tapeq.loadtest.report;

import java.util.List;

import org.tapeq.loadtest.run.RunRecord;
import org.tapeq.loadtest.run.Sample;
import org.tapeq.loadtest.run.Transfer;

/**
 * The rates of the throughput plot, in MB/s over library time. When the daemon told the run its transfers on tape
 * ({@link RunRecord#transfers}), each read and each aggregate written is spread evenly over its own interval on its
 * drive and the bytes are summed per time bin: the plot shows bytes as they move, and a bin never shows more than
 * the drives that were moving could carry. Otherwise (a daemon the harness did not start) the rates are the bytes of
 * answered requests between samples: all the files of one aggregate count at the moment they are answered, so that
 * curve can spike far above what the drives can do.
 *
 * @param millis library milliseconds since the start of the measured phase, one per point (the middle of its bin)
 * @param write  MB/s written (flushes)
 * @param read   MB/s read (stages)
 * @param onTape whether the rates are of transfers on tape (true) or of answered requests
 */
public record Throughput(double[] millis, double[] write, double[] read, boolean onTape) {

    /** The rates of a run, over about {@code points} bins. */
    public static Throughput of(RunRecord run, int points) {
        return run.transfers() != null ? onTape(run.transfers(), run.libraryMillis(run.wallNanos()), points)
                : answered(run.samples(), run.speed(), points);
    }

    /** The transfers' bytes spread over their intervals, in bins of {@code durationMillis / points}. */
    static Throughput onTape(List<Transfer> transfers, double durationMillis, int points) {
        double end = durationMillis;
        for (Transfer t : transfers) {
            end = Math.max(end, t.endMillis());
        }
        double width = Math.max(1, durationMillis / points);
        int n = Math.max(1, (int) Math.ceil(end / width));
        double[] millis = new double[n];
        double[] write = new double[n];
        double[] read = new double[n];
        for (Transfer t : transfers) {
            spread(t, width, t.write() ? write : read);
        }
        for (int i = 0; i < n; i++) {
            millis[i] = (i + 0.5) * width;
            write[i] = write[i] / (width / 1000) / 1e6;
            read[i] = read[i] / (width / 1000) / 1e6;
        }
        return new Throughput(millis, write, read, true);
    }

    /** Adds to each bin the share of the transfer's bytes that moved in it (all into one bin if it took no time). */
    private static void spread(Transfer t, double width, double[] bytes) {
        double a = t.startMillis();
        double b = t.endMillis();
        int last = Math.min(bytes.length - 1, (int) (b / width));
        if (b <= a) {
            bytes[last] += t.bytes();
            return;
        }
        for (int i = (int) (a / width); i <= last; i++) {
            double overlap = Math.min(b, (i + 1) * width) - Math.max(a, i * width);
            if (overlap > 0) {
                bytes[i] += t.bytes() * overlap / (b - a);
            }
        }
    }

    /** Bytes of answered requests between samples about {@code samples.size() / points} apart. */
    static Throughput answered(List<Sample> samples, double speed, int points) {
        int n = samples.size();
        int step = Math.max(1, n / points);
        int p = Math.max(0, (n - 1) / step);
        double[] millis = new double[p];
        double[] write = new double[p];
        double[] read = new double[p];
        for (int i = 0; i < p; i++) {
            Sample a = samples.get(i * step);
            Sample b = samples.get((i + 1) * step);
            double seconds = Math.max(1e-9, (b.wallMillis() - a.wallMillis()) * speed / 1000);
            millis[i] = b.wallMillis() * speed;
            write[i] = (b.bytesFlushed() - a.bytesFlushed()) / seconds / 1e6;
            read[i] = (b.bytesStaged() - a.bytesStaged()) / seconds / 1e6;
        }
        return new Throughput(millis, write, read, false);
    }

    /** The highest rate plotted, read and write summed, in MB/s. */
    public double peak() {
        double peak = 0;
        for (int i = 0; i < millis.length; i++) {
            peak = Math.max(peak, write[i] + read[i]);
        }
        return peak;
    }
}
