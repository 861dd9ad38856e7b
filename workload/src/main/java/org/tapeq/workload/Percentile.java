package org.tapeq.workload;

/** The nearest-rank percentile, as the simulator's and the harness's reports give latencies. */
public final class Percentile {

    private Percentile() {
    }

    /**
     * The index into {@code n} sorted values of quantile {@code q} (0 to 1) by nearest rank: the smallest value with
     * at least {@code q} of the values at or below it. {@code n} must be at least 1.
     */
    public static int nearestRank(int n, double q) {
        return (int) Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
    }
}
