package org.tapeq.simulator;

/*
 * Design notes: the Hungarian method with potentials (rows added one at a time, each by a shortest augmenting path
 * over the columns), O(n^3) time and O(n) space beside the matrix. Costs are whole milliseconds, so the sums are
 * exact. Used for the per-file entry term of the physical bound (TrueReadCosts), once per cartridge and physics
 * profile, outside the simulated run.
 */

/** The least total cost of a perfect assignment of rows to columns of a square cost matrix. */
final class MinAssignment {

    private MinAssignment() {
    }

    /** Least sum of {@code cost[r][c]} over a one-to-one assignment of the n rows to the n columns. */
    static long of(long[][] cost) {
        int n = cost.length;
        long[] u = new long[n + 1];
        long[] v = new long[n + 1];
        int[] rowOf = new int[n + 1];
        int[] way = new int[n + 1];
        long[] minv = new long[n + 1];
        boolean[] used = new boolean[n + 1];
        for (int i = 1; i <= n; i++) {
            rowOf[0] = i;
            int j0 = 0;
            java.util.Arrays.fill(minv, Long.MAX_VALUE);
            java.util.Arrays.fill(used, false);
            do {
                used[j0] = true;
                int i0 = rowOf[j0];
                long delta = Long.MAX_VALUE;
                int j1 = 0;
                long[] row = cost[i0 - 1];
                for (int j = 1; j <= n; j++) {
                    if (!used[j]) {
                        long cur = row[j - 1] - u[i0] - v[j];
                        if (cur < minv[j]) {
                            minv[j] = cur;
                            way[j] = j0;
                        }
                        if (minv[j] < delta) {
                            delta = minv[j];
                            j1 = j;
                        }
                    }
                }
                for (int j = 0; j <= n; j++) {
                    if (used[j]) {
                        u[rowOf[j]] += delta;
                        v[j] -= delta;
                    } else {
                        minv[j] -= delta;
                    }
                }
                j0 = j1;
            } while (rowOf[j0] != 0);
            do {
                int j1 = way[j0];
                rowOf[j0] = rowOf[j1];
                j0 = j1;
            } while (j0 != 0);
        }
        long sum = 0;
        for (int j = 1; j <= n; j++) {
            sum += cost[rowOf[j] - 1][j - 1];
        }
        return sum;
    }
}
