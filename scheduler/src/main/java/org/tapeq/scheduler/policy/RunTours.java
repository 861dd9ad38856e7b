package org.tapeq.scheduler.policy;

import java.util.Arrays;

/**
 * The exact best order of a queue that falls into a few long runs, for {@link SerpentineOrder}.
 *
 * <p>Design notes: data written co-located by dataset and recalled by dataset gives a queue of hundreds of spans
 * in a handful of runs (spans read one after the other in block order, each hop a read-through or a short
 * locate, across wrap turns too). Inside a run block order is already the best; what is left to choose is the
 * order of the runs, and the sweeps and the greedy, which see spans, choose it only by the way. With at most
 * {@link #MAX_RUNS} runs the best order of whole runs is found exactly, as a shortest Hamiltonian path from the
 * head (Held-Karp: O(2^k k^2) for k runs, about 10^5 steps at k = 10), priced with the same cost model.
 */
final class RunTours {

    /** Largest number of runs ordered exactly (2^12 * 12 * 12 = 590 000 steps). */
    static final int MAX_RUNS = 12;

    private RunTours() {
    }

    /**
     * Run heads: spans chained in block order while each hop costs at most {@code maxHop} seconds. Returns the
     * first span of every run, in block order, or {@code null} if there are more than {@link #MAX_RUNS} runs.
     */
    static int[] runHeads(SpanTable t, double maxHop) {
        int[] heads = new int[MAX_RUNS];
        int k = 0;
        for (int i = 0; i < t.n; i++) {
            if (i == 0 || t.edge(i - 1, i) > maxHop) {
                if (k == MAX_RUNS) {
                    return null;
                }
                heads[k++] = i;
            }
        }
        return Arrays.copyOf(heads, k);
    }

    /** The cheapest order of whole runs from the head, or {@code null} if the queue has too many runs. */
    static Tour best(SpanTable t, double maxHop) {
        int[] heads = runHeads(t, maxHop);
        if (heads == null || heads.length < 2) {
            return null;
        }
        int k = heads.length;
        int[] tails = new int[k];
        for (int r = 0; r < k; r++) {
            tails[r] = (r + 1 < k ? heads[r + 1] : t.n) - 1;
        }
        double[][] hop = new double[k][k];
        for (int a = 0; a < k; a++) {
            for (int b = 0; b < k; b++) {
                hop[a][b] = a == b ? 0 : t.edge(tails[a], heads[b]);
            }
        }
        int full = (1 << k) - 1;
        double[][] cost = new double[1 << k][k];
        int[][] previous = new int[1 << k][k];
        for (double[] row : cost) {
            Arrays.fill(row, Double.POSITIVE_INFINITY);
        }
        for (int r = 0; r < k; r++) {
            cost[1 << r][r] = t.edge(-1, heads[r]);
        }
        for (int mask = 1; mask <= full; mask++) {
            for (int last = 0; last < k; last++) {
                double c = cost[mask][last];
                if (c == Double.POSITIVE_INFINITY) {
                    continue;
                }
                for (int next = 0; next < k; next++) {
                    if ((mask & 1 << next) == 0) {
                        int m = mask | 1 << next;
                        if (c + hop[last][next] < cost[m][next]) {
                            cost[m][next] = c + hop[last][next];
                            previous[m][next] = last;
                        }
                    }
                }
            }
        }
        int last = 0;
        for (int r = 1; r < k; r++) {
            if (cost[full][r] < cost[full][last]) {
                last = r;
            }
        }
        int[] runOrder = new int[k];
        int mask = full;
        for (int pos = k - 1; pos >= 0; pos--) {
            runOrder[pos] = last;
            int before = previous[mask][last];
            mask &= ~(1 << last);
            last = before;
        }
        int[] order = new int[t.n];
        int at = 0;
        for (int r : runOrder) {
            for (int i = heads[r]; i <= tails[r]; i++) {
                order[at++] = i;
            }
        }
        return new Tour(order, t.cost(order));
    }
}
