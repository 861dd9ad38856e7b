package org.tapeq.scheduler.tape.sim;

/*
 * Design notes: how the simulated drive computes GENERATE RECOMMENDED ACCESS ORDER. A real enterprise or LTO-9
 * full-height drive orders the ranges with its own knowledge of where each block lies (wrap, longitudinal position)
 * and of its own locate times; how it searches is not published. The simulated drive knows the true layout and
 * physics of the tape and orders greedily: from where the head is, the range whose start it reaches soonest next,
 * then from that range's end, and so on (nearest neighbour on the true locate times, O(n^2) per request). That is
 * what "an order that sees the truth without search" means in docs/simulator.md; a real drive may do better.
 * The answer takes COMPUTE_MILLIS of drive time (an assumption: the drive's time to generate the list is not
 * published either), during which the drive does nothing else.
 */

/** The simulated drive's recommended access order over ranges of the mounted tape; see the design notes. */
final class DriveAccessOrder {

    /** Drive time to compute one recommended order (assumed). */
    static final long COMPUTE_MILLIS = 1_000;

    private DriveAccessOrder() {
    }

    /** The order in which to read the block ranges {@code [starts[i], ends[i])} of {@code c} with the head at {@code from}. */
    static int[] order(SimCartridge c, Head from, long[] starts, long[] ends, double bytesPerSecond) {
        int n = starts.length;
        Head[] in = new Head[n];
        Head[] out = new Head[n];
        for (int i = 0; i < n; i++) {
            in[i] = c.headAt(c.files.offsetOf(starts[i]));
            out[i] = c.headAt(c.files.offsetOf(ends[i]));
        }
        boolean[] done = new boolean[n];
        int[] order = new int[n];
        Head at = from;
        for (int k = 0; k < n; k++) {
            int best = -1;
            long bestMillis = Long.MAX_VALUE;
            for (int j = 0; j < n; j++) {
                if (!done[j]) {
                    long m = c.physics.locateMillis(at, in[j], bytesPerSecond);
                    if (m < bestMillis) {
                        bestMillis = m;
                        best = j;
                    }
                }
            }
            done[best] = true;
            order[k] = best;
            at = out[best];
        }
        return order;
    }
}
