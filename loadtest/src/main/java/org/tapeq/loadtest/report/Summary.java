package org.tapeq.loadtest.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.tapeq.loadtest.run.RequestLog;
import org.tapeq.loadtest.run.RequestLog.End;
import org.tapeq.loadtest.run.RequestLog.Kind;
import org.tapeq.loadtest.run.RunRecord;
import org.tapeq.loadtest.run.Sample;
import org.tapeq.workload.Percentile;

/**
 * The figures of a run, in library time: requests by kind and outcome, bytes moved, the best sustained rate over
 * the targets' window, latency percentiles per kind, mounts.
 *
 * @param outcomes         per kind, requests by how they ended
 * @param bytes            per kind, bytes of completed requests
 * @param durationMillis   the measured phase
 * @param sustainedRate    bytes per second (flushed and staged together) over the best window of the targets'
 *                         length, or -1 if the run was shorter than the window
 * @param latencyMillis    per kind: p50, p99, max of completed requests (submission to answer)
 * @param mounts           mounts during the measured phase, or -1 if unknown
 * @param latencyQuantiles per kind: up to {@value #CDF_POINTS} evenly spaced quantiles of the latencies, sorted
 *                         (the latency CDF)
 */
public record Summary(Map<Kind, Map<End, Long>> outcomes, Map<Kind, Long> bytes, double durationMillis,
                      double sustainedRate, Map<Kind, double[]> latencyMillis, long mounts,
                      Map<Kind, double[]> latencyQuantiles) {

    static final int CDF_POINTS = 2000;

    public static Summary of(RunRecord r) {
        RequestLog log = r.log();
        End[] ends = log.ends();
        long[] endedNanos = log.endedNanos();
        Map<Kind, Map<End, Long>> outcomes = new EnumMap<>(Kind.class);
        Map<Kind, Long> bytes = new EnumMap<>(Kind.class);
        Map<Kind, List<Double>> latencies = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            outcomes.put(k, new EnumMap<>(End.class));
            bytes.put(k, 0L);
            latencies.put(k, new ArrayList<>());
        }
        for (int i = 0; i < ends.length; i++) {
            Kind k = log.kind(i);
            outcomes.get(k).merge(ends[i], 1L, Long::sum);
            if (ends[i] == End.COMPLETED) {
                bytes.merge(k, log.bytes(i), Long::sum);
                latencies.get(k).add(r.libraryMillis(endedNanos[i] - log.submittedNanos(i)));
            }
        }
        Map<Kind, double[]> percentiles = new EnumMap<>(Kind.class);
        Map<Kind, double[]> quantiles = new EnumMap<>(Kind.class);
        latencies.forEach((k, v) -> {
            if (!v.isEmpty()) {
                double[] sorted = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
                percentiles.put(k, new double[] {percentile(sorted, 50), percentile(sorted, 99),
                        sorted[sorted.length - 1]});
                int n = Math.min(CDF_POINTS, sorted.length);
                double[] q = new double[n];
                for (int i = 0; i < n; i++) {
                    q[i] = sorted[(int) ((long) i * (sorted.length - 1) / Math.max(1, n - 1))];
                }
                quantiles.put(k, q);
            }
        });
        List<Sample> s = r.samples();
        List<Sample> known = s.stream().filter(x -> x.mounts() >= 0).toList();
        long mounts = known.isEmpty() ? -1 : known.get(known.size() - 1).mounts() - known.get(0).mounts();
        return new Summary(outcomes, bytes, r.libraryMillis(r.wallNanos()),
                bestRate(s, r.speed(), r.scenario().targets().windowMillis()), percentiles, mounts, quantiles);
    }

    /**
     * The highest rate of bytes moved (flushed and staged) over any stretch of at least {@code windowMillis}
     * library time between two samples; -1 if the samples span less than the window.
     */
    public static double bestRate(List<Sample> samples, double speed, long windowMillis) {
        double best = -1;
        int j = 0;
        for (int i = 0; i < samples.size(); i++) {
            Sample a = samples.get(i);
            while (j < samples.size() && (samples.get(j).wallMillis() - a.wallMillis()) * speed < windowMillis) {
                j++;
            }
            if (j == samples.size()) {
                break;
            }
            Sample b = samples.get(j);
            double seconds = (b.wallMillis() - a.wallMillis()) * speed / 1000;
            best = Math.max(best, (moved(b) - moved(a)) / seconds);
        }
        return best;
    }

    private static long moved(Sample s) {
        return s.bytesFlushed() + s.bytesStaged();
    }

    /** Nearest-rank percentile of sorted values. */
    static double percentile(double[] sorted, double p) {
        return sorted[Percentile.nearestRank(sorted.length, p / 100)];
    }

    public long count(End end) {
        return outcomes.values().stream().mapToLong(m -> m.getOrDefault(end, 0L)).sum();
    }

    public long requests() {
        return outcomes.values().stream().flatMap(m -> m.values().stream()).mapToLong(Long::longValue).sum();
    }

    /** The highest p99 latency of any kind, or -1 if nothing completed. */
    public double worstP99() {
        return latencyMillis.values().stream().mapToDouble(v -> v[1]).max().orElse(-1);
    }

    @Override
    public String toString() {
        return "Summary" + outcomes + " bytes " + bytes + " sustained " + sustainedRate + " latency "
                + latencyMillis.entrySet().stream().map(e -> e.getKey() + Arrays.toString(e.getValue())).toList();
    }
}
