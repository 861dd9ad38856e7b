package org.tapeq.simulator;

import java.util.List;

import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.tape.sim.TruePositions;

/*
 * Design notes: two references per cartridge priced with the simulated library's own physics (TruePositions),
 * never with the scheduler's estimate.
 *
 * Entry term (a lower bound). Whatever the order and however many mounts, every requested file f is entered once:
 * the head arrives at its start either from the load point or from the end of another requested file g (the
 * head rests only at ends of what it read; a move through unrequested data is a locate or a read-through, and the
 * library's locate is already the cheaper of the two). The head leaves each file's end once, so one file's end
 * is the predecessor of at most one file, and an order with k mounts enters k files from the load point and leaves
 * k ends unused. Pairing each load-point entry with an unused end, any order is a one-to-one assignment of
 * files f to ends g at a cost of
 *   c(f, g) = min(locate(load point -> f), hop(g -> f)) for g != f,   c(f, f) = locate(load point -> f)
 * or less, so the least such assignment (MinAssignment, O(n^3)) is a lower bound on the locate time of any order,
 * where hop is 0 when f begins in the block where g ended (members of one aggregate), else the library's locate.
 * Each row's minimum alone (every file at its cheapest entry, one end reused by many files) is the weaker bound of
 * before; above ASSIGNMENT_MAX_FILES requested files on one cartridge it is used instead (O(n^2)).
 *
 * Oracle (a reference, not a bound). Greedy shortest-true-locate-first from the load point over all requested files:
 * what an order that sees the true physics gets without search. O(n^2) per cartridge.
 */

/** Entry-term lower bound and greedy oracle of one cartridge's requested files; see the design notes. */
record TrueReadCosts(double entryMillis, double oracleMillis, double unmountMillis) {

    /** Above this many requested files on one cartridge the entry term is each file's cheapest entry (O(n^2)). */
    static final int ASSIGNMENT_MAX_FILES = 1200;

    static TrueReadCosts of(String barcode, List<TapeLoader.Location> files, SimulatedLibrary library) {
        int n = files.size();
        long[] blocks = new long[2 * n];
        for (int i = 0; i < n; i++) {
            blocks[2 * i] = files.get(i).startBlock();
            blocks[2 * i + 1] = files.get(i).endBlock();
        }
        TruePositions p = library.truePositions(barcode, blocks);
        double unmount = Double.POSITIVE_INFINITY;
        for (int f = 0; f < n; f++) {
            unmount = Math.min(unmount, p.unloadRewindMillis(2 * f + 1));
        }
        return new TrueReadCosts(entryMillis(p, n), greedy(p, n), unmount);
    }

    /** The entry term: the least assignment of files to predecessors' ends (see the design notes). */
    static double entryMillis(TruePositions p, int n) {
        if (n > ASSIGNMENT_MAX_FILES) {
            double entry = 0;
            for (int f = 0; f < n; f++) {
                long best = p.fromLoadPointMillis(2 * f);
                for (int g = 0; g < n && best > 0; g++) {
                    if (g != f) {
                        best = Math.min(best, hop(p, g, f));
                    }
                }
                entry += best;
            }
            return entry;
        }
        long[][] cost = new long[n][n];
        for (int f = 0; f < n; f++) {
            long fromLoadPoint = p.fromLoadPointMillis(2 * f);
            for (int g = 0; g < n; g++) {
                cost[f][g] = g == f ? fromLoadPoint : Math.min(fromLoadPoint, hop(p, g, f));
            }
        }
        return MinAssignment.of(cost);
    }

    /** Milliseconds from the end of file g to the start of file f. */
    private static long hop(TruePositions p, int g, int f) {
        return p.block(2 * f) == p.block(2 * g + 1) - 1 ? 0 : p.locateMillis(2 * g + 1, 2 * f);
    }

    private static double greedy(TruePositions p, int n) {
        boolean[] read = new boolean[n];
        double sum = 0;
        int at = -1;
        for (int step = 0; step < n; step++) {
            int next = -1;
            double best = Double.POSITIVE_INFINITY;
            for (int f = 0; f < n; f++) {
                if (!read[f]) {
                    double c = at < 0 ? p.fromLoadPointMillis(2 * f) : hop(p, at, f);
                    if (c < best || (c == best && p.block(2 * f) < p.block(2 * next))) {
                        best = c;
                        next = f;
                    }
                }
            }
            read[next] = true;
            sum += best;
            at = next;
        }
        return sum;
    }
}
