package org.tapeq.simulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

import org.tapeq.scheduler.tape.sim.SimulatedLibrary;

/*
 * Design notes: a reference for read orders, priced with the simulated library's own physics (never with the
 * scheduler's estimate), so that a policy's locate time can be compared with the least that ordering can give.
 *
 * Per cartridge, the requested files sorted by block fall into runs: files one after the other in block order,
 * each hop at most RUN_HOP_MILLIS (a read-through or a short locate). A read order is a sequence of runs; each run
 * is either read from its start to its end, or entered at the first file of one of the later wraps it covers (a
 * wrap turn), read to its end, then the head goes back to its start and reads up to where it entered. Its cost is
 * the locate from the load point to the first entry, the hops inside the runs, and the hops between runs. The
 * cheapest such order is found exactly: Held-Karp over (set of runs read, last entry), O(2^k * e^2) for k runs
 * with e entries in all.
 *
 * This is exact over those orders, not over all orders: an order may also split a run more than once, or
 * interleave two runs. It is computed only when every cartridge has at most MAX_RUNS runs (data written
 * co-located and recalled by dataset); scattered files make hundreds of runs per cartridge and get no reference.
 * It assumes every cartridge is read in one mount, so it is a reference for bulk recalls, where that holds.
 */

/** The least locate time of the best order of whole runs per cartridge; see the design notes in this file. */
final class BestReadOrder {

    /** Hops up to this many milliseconds keep two files in one run. */
    static final long RUN_HOP_MILLIS = 7_000;
    /** Cartridges with more runs get no reference (2^10 subsets). */
    static final int MAX_RUNS = 10;

    private BestReadOrder() {
    }

    /**
     * The sum over cartridges of the least locate milliseconds, or {@code NaN} if a cartridge has more than
     * {@link #MAX_RUNS} runs or there is nothing to read.
     */
    static double locateMillis(Collection<List<TapeLoader.Location>> byCartridge, SimulatedLibrary library) {
        if (byCartridge.isEmpty()) {
            return Double.NaN;
        }
        double sum = 0;
        for (List<TapeLoader.Location> files : byCartridge) {
            double c = cartridge(files, library);
            if (Double.isNaN(c)) {
                return Double.NaN;
            }
            sum += c;
        }
        return sum;
    }

    /**
     * Milliseconds from the end of one file to the start of the next: none if it begins in the block where the
     * other ended (members of an aggregate share blocks; the read goes on), else the library's locate.
     */
    static long hopMillis(SimulatedLibrary library, String barcode, long fromEnd, long toStart) {
        return toStart == fromEnd - 1 ? 0 : library.locateMillis(barcode, fromEnd, toStart);
    }

    /** The least locate milliseconds of one cartridge's files, read in one mount from the load point. */
    static double cartridge(List<TapeLoader.Location> files, SimulatedLibrary library) {
        List<TapeLoader.Location> spans = new ArrayList<>(files);
        spans.sort(Comparator.comparingLong(TapeLoader.Location::startBlock));
        String barcode = spans.get(0).barcode();
        int n = spans.size();
        long[] start = new long[n];
        long[] end = new long[n];
        for (int i = 0; i < n; i++) {
            start[i] = spans.get(i).startBlock();
            end[i] = spans.get(i).endBlock();
        }
        // within[i]: hops inside runs from span 0 to span i (prefix sums); runs by their first span
        double[] within = new double[n];
        List<Integer> runStarts = new ArrayList<>(List.of(0));
        for (int i = 1; i < n; i++) {
            long hop = hopMillis(library, barcode, end[i - 1], start[i]);
            if (hop <= RUN_HOP_MILLIS) {
                within[i] = within[i - 1] + hop;
            } else {
                within[i] = within[i - 1];
                runStarts.add(i);
                if (runStarts.size() > MAX_RUNS) {
                    return Double.NaN;
                }
            }
        }
        int k = runStarts.size();
        // entries: (run, entering span, its exit span, cost inside the run)
        List<int[]> entrySpans = new ArrayList<>();
        List<Double> inside = new ArrayList<>();
        for (int r = 0; r < k; r++) {
            int first = runStarts.get(r);
            int last = (r + 1 < k ? runStarts.get(r + 1) : n) - 1;
            double whole = within[last] - within[first];
            entrySpans.add(new int[] {r, first, last});
            inside.add(whole);
            for (int j = first + 1; j <= last; j++) {
                if (library.wrapOf(barcode, start[j]) != library.wrapOf(barcode, start[j - 1])) {
                    entrySpans.add(new int[] {r, j, j - 1});
                    inside.add((within[last] - within[j]) + hopMillis(library, barcode, end[last], start[first])
                            + (within[j - 1] - within[first]));
                }
            }
        }
        int e = entrySpans.size();
        double[][] hop = new double[e][e];
        for (int a = 0; a < e; a++) {
            for (int b = 0; b < e; b++) {
                if (entrySpans.get(a)[0] != entrySpans.get(b)[0]) {
                    hop[a][b] = hopMillis(library, barcode, end[entrySpans.get(a)[2]], start[entrySpans.get(b)[1]])
                            + inside.get(b);
                }
            }
        }
        double[][] best = new double[1 << k][e];
        for (double[] row : best) {
            Arrays.fill(row, Double.POSITIVE_INFINITY);
        }
        for (int b = 0; b < e; b++) {
            int r = entrySpans.get(b)[0];
            best[1 << r][b] = library.locateFromLoadPointMillis(barcode, start[entrySpans.get(b)[1]]) + inside.get(b);
        }
        int full = (1 << k) - 1;
        for (int mask = 1; mask < full; mask++) {
            for (int a = 0; a < e; a++) {
                double c = best[mask][a];
                if (c == Double.POSITIVE_INFINITY) {
                    continue;
                }
                for (int b = 0; b < e; b++) {
                    int r = entrySpans.get(b)[0];
                    if ((mask & 1 << r) == 0) {
                        int m = mask | 1 << r;
                        best[m][b] = Math.min(best[m][b], c + hop[a][b]);
                    }
                }
            }
        }
        return Arrays.stream(best[full]).min().orElseThrow();
    }
}
