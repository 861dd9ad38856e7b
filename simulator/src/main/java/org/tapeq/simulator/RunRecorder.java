package org.tapeq.simulator;

import java.util.Arrays;
import java.util.function.LongSupplier;

import org.tapeq.charts.Series;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.TapeRequest;
import org.tapeq.workload.Percentile;

/**
 * Records each request's submission and end (by its dense id), and derives latencies, queue depth and
 * throughput over time. Loop thread only.
 */
final class RunRecorder implements RequestListener {

    /** Points per plotted series. */
    static final int PLOT_POINTS = 300;

    private long start;
    private final long[] submitted;
    private final long[] ended;
    private final long[] bytes;
    private long completed;
    private long failed;
    private long last;
    private final LongSupplier clock;
    private RequestListener next = (request, outcome) -> { };

    RunRecorder(int requests, LongSupplier clock) {
        this.clock = clock;
        this.start = clock.getAsLong();
        this.submitted = new long[requests];
        this.ended = new long[requests];
        this.bytes = new long[requests];
        Arrays.fill(submitted, -1);
        Arrays.fill(ended, -1);
    }

    /** Time 0 of the workload is now. */
    void begin() {
        start = clock.getAsLong();
    }

    /** Also tells {@code listener} of each outcome, after recording it. */
    void then(RequestListener listener) {
        this.next = listener;
    }

    void submitted(TapeRequest request) {
        long now = clock.getAsLong();
        int id = index(request);
        if (submitted[id] >= 0) {
            throw new IllegalStateException("request id " + id + " submitted twice");
        }
        submitted[id] = now - start;
    }

    @Override
    public void completed(TapeRequest request, Outcome outcome) {
        long now = clock.getAsLong();
        int id = index(request);
        ended[id] = now - start;
        last = Math.max(last, ended[id]);
        if (outcome instanceof Outcome.Staged s) {
            completed++;
            bytes[id] = s.bytes();
        } else if (outcome instanceof Outcome.Flushed) {
            completed++;
            bytes[id] = sizeOf(request);
        } else {
            failed++;
        }
        next.completed(request, outcome);
    }

    private static long sizeOf(TapeRequest request) {
        return request instanceof FlushRequest f ? f.size() : 0;
    }

    private int index(TapeRequest request) {
        long id = request.id();
        if (id < 0 || id >= submitted.length) {
            throw new IllegalStateException("request id " + id + " outside 0.." + (submitted.length - 1));
        }
        return (int) id;
    }

    long lastEndMillis() {
        return last;
    }

    long completed() {
        return completed;
    }

    long failed() {
        return failed;
    }

    long usefulBytes() {
        long sum = 0;
        for (long b : bytes) {
            sum += b;
        }
        return sum;
    }

    /** Requests submitted but never ended (a scheduler bug or a run cut short). */
    long unfinished() {
        long n = 0;
        for (int i = 0; i < submitted.length; i++) {
            if (submitted[i] >= 0 && ended[i] < 0) {
                n++;
            }
        }
        return n;
    }

    /** Requests the source never submitted (a source that stopped early). */
    long unsubmitted() {
        long n = 0;
        for (long s : submitted) {
            n += s < 0 ? 1 : 0;
        }
        return n;
    }

    /** The latency quantiles {@code qs} (0..1, nearest rank) in seconds over ended requests; sorts once. */
    double[] latencyQuantilesS(double... qs) {
        long[] lat = new long[submitted.length];
        int n = 0;
        for (int i = 0; i < submitted.length; i++) {
            if (submitted[i] >= 0 && ended[i] >= 0) {
                lat[n++] = ended[i] - submitted[i];
            }
        }
        double[] out = new double[qs.length];
        if (n == 0) {
            return out;
        }
        Arrays.sort(lat, 0, n);
        for (int k = 0; k < qs.length; k++) {
            out[k] = lat[Percentile.nearestRank(n, qs[k])] / 1000d;
        }
        return out;
    }

    /** Outstanding requests at PLOT_POINTS + 1 evenly spaced times up to the last end. */
    Series queueDepth(String name) {
        double[] x = new double[PLOT_POINTS + 1];
        double[] y = new double[PLOT_POINTS + 1];
        double step = Math.max(1, last) / (double) PLOT_POINTS;
        long[] delta = new long[PLOT_POINTS + 2];
        for (int i = 0; i < submitted.length; i++) {
            if (submitted[i] < 0) {
                continue;
            }
            delta[bucket(submitted[i], step)]++;
            if (ended[i] >= 0) {
                delta[bucket(ended[i], step)]--;
            }
        }
        long depth = 0;
        for (int k = 0; k <= PLOT_POINTS; k++) {
            depth += delta[k];
            x[k] = k * step / 3_600_000d;
            y[k] = depth;
        }
        return new Series(name, x, y);
    }

    /** MB/s of completed requests per interval, PLOT_POINTS intervals up to the last end. */
    Series throughput(String name) {
        double step = Math.max(1, last) / (double) PLOT_POINTS;
        double[] sum = new double[PLOT_POINTS + 1];
        for (int i = 0; i < ended.length; i++) {
            if (ended[i] >= 0 && bytes[i] > 0) {
                sum[(int) Math.min(PLOT_POINTS - 1, ended[i] / step)] += bytes[i];
            }
        }
        double[] x = new double[PLOT_POINTS];
        double[] y = new double[PLOT_POINTS];
        for (int k = 0; k < PLOT_POINTS; k++) {
            x[k] = (k + 0.5) * step / 3_600_000d;
            y[k] = sum[k] / 1e6 / (step / 1000d);
        }
        return new Series(name, x, y);
    }

    private static int bucket(long t, double step) {
        return (int) Math.min(PLOT_POINTS + 1, Math.ceil(t / step));
    }
}
