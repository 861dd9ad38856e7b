package org.tapeq.scheduler.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Sweep tours for {@link SerpentineOrder}. The wraps are cut into groups of consecutive wraps (never across a
 * band boundary unless the group is whole bands). A tour visits the groups one after the other; in each group it
 * makes a forward pass (the spans starting on the group's BOT-to-EOT wraps, by increasing LPOS) and then a
 * reverse pass (the spans on its EOT-to-BOT wraps, by decreasing LPOS).
 *
 * <p>Groups of two wraps give exactly file-sequence order; one group of all wraps is a single there-and-back
 * sweep of the whole tape. Small groups pay long head travel (every wrap end to end), large groups pay a wrap
 * (and often a band) change on every hop; which is cheaper depends on how dense the spans are, so every group
 * size in a geometric ladder is priced, in both group orders.
 *
 * <p>The tour is treated as a cycle and started where it is cheapest to join from the head: entering at
 * position r costs {@code head->seq[r] + cycle - edge(seq[r-1] -> seq[r])}, priced for every r in one pass. So a
 * head in mid-tape joins the sweep near itself and finishes with what lay behind it.
 *
 * <p>Cost: one O(n) counting sort and O(n) pricing per candidate: a dozen group sizes per run threshold, plus
 * six finalists.
 */
final class SweepTours {

    private SweepTours() {
    }

    /** How many of the cheapest cycles (by cycle cost) are then tried in both group orders and all rotations. */
    static final int FINALISTS = 3;

    /**
     * The cheapest sweep tour over all spans with its locate cost, starting from the head. Every run threshold
     * in {@code maxHops} and every group size is priced as a cycle in ascending group order; the
     * {@link #FINALISTS} cheapest are then priced exactly, in both group orders and their best rotations.
     */
    static Tour best(SpanTable t, double[] maxHops) {
        int[] byLpos = t.byStartLpos();
        List<Finalist> finalists = new ArrayList<>();
        for (double maxHop : maxHops) {
            int[] runLength = runs(t, maxHop);
            for (int size : groupSizes(t.geometry)) {
                int[] groupOfWrap = groupOfWrap(t.geometry, size);
                int[] cycle = sweep(t, byLpos, runLength, groupOfWrap, true);
                finalists.add(new Finalist(runLength, groupOfWrap, cycleCost(t, cycle)));
            }
        }
        finalists.sort(Comparator.comparingDouble(Finalist::cycleCost));
        double[] fromHead = new double[t.n];
        for (int i = 0; i < t.n; i++) {
            fromHead[i] = t.edge(-1, i);
        }
        double[] edge = new double[t.n];
        int[] bestCycle = null;
        Rotation best = null;
        for (Finalist f : finalists.subList(0, Math.min(FINALISTS, finalists.size()))) {
            for (boolean ascending : new boolean[] {true, false}) {
                int[] cycle = sweep(t, byLpos, f.runLength(), f.groupOfWrap(), ascending);
                Rotation rotation = bestRotation(t, cycle, fromHead, edge);
                if (best == null || rotation.cost() < best.cost()) {
                    best = rotation;
                    bestCycle = cycle;
                }
            }
        }
        return new Tour(rotate(bestCycle, best.start()), best.cost());
    }

    private record Finalist(int[] runLength, int[] groupOfWrap, double cycleCost) {
    }

    private static double cycleCost(SpanTable t, int[] cycle) {
        double total = 0;
        for (int k = 0; k < cycle.length; k++) {
            total += t.edge(cycle[k], cycle[k + 1 == cycle.length ? 0 : k + 1]);
        }
        return total;
    }

    /** Group sizes from 2 wraps, growing by about half, up to a band; then two bands and the whole tape. */
    static TreeSet<Integer> groupSizes(EstimatedGeometry g) {
        TreeSet<Integer> sizes = new TreeSet<>();
        int band = g.wrapsPerBand();
        for (int s = 2; s < band; s = Math.max(s + 2, (s * 3 / 2) & ~1)) {
            sizes.add(s);
        }
        sizes.add(band);
        for (int bands = 2; bands < g.bands(); bands *= 2) {
            sizes.add(band * bands);
        }
        sizes.add(g.wraps());
        return sizes;
    }

    /** Group index of each wrap for groups of {@code size} wraps (a multiple of a band means whole bands). */
    static int[] groupOfWrap(EstimatedGeometry g, int size) {
        int[] group = new int[g.wraps()];
        int band = g.wrapsPerBand();
        int lastBandWraps = g.wraps() - (g.bands() - 1) * band;
        int groupsPerBand = (lastBandWraps + size - 1) / size;
        for (int w = 0; w < group.length; w++) {
            int b = g.band(w);
            if (size >= band) {
                group[w] = b / Math.max(1, size / band);
            } else {
                group[w] = b * groupsPerBand + (w - b * band) / size;
            }
        }
        return group;
    }

    /**
     * Runs: spans chained along one wrap in block order while each hop costs at most {@code maxHop} seconds (read
     * through or a short locate). Returns, for each span, the length of the run it heads, or 0 if it is not a
     * run head. Spans are numbered in block order, so run {@code h} is spans {@code h .. h+length-1}.
     */
    static int[] runs(SpanTable t, double maxHop) {
        int[] runLength = new int[t.n];
        int runHead = 0;
        for (int i = 0; i < t.n; i++) {
            int p = i - 1;
            boolean sameWrap = p >= 0 && t.startWrap[i] == t.startWrap[p] && t.endWrap[p] == t.startWrap[p];
            if (sameWrap && t.edge(p, i) <= maxHop) {
                runLength[runHead]++;
            } else {
                runHead = i;
                runLength[i] = 1;
            }
        }
        return runLength;
    }

    /** The sweep sequence (as a cycle, not yet rotated) for a grouping, moving whole runs. */
    static int[] sweep(SpanTable t, int[] byLpos, int[] runLength, int[] groupOfWrap, boolean ascending) {
        int groups = groupOfWrap[groupOfWrap.length - 1] + 1;
        int[] passOf = new int[t.n];
        int[] next = new int[2 * groups + 1];
        for (int i = 0; i < t.n; i++) {
            if (runLength[i] == 0) {
                continue;
            }
            int w = t.startWrap[i];
            int g = ascending ? groupOfWrap[w] : groups - 1 - groupOfWrap[w];
            passOf[i] = 2 * g + (EstimatedGeometry.isForward(w) ? 0 : 1);
            next[passOf[i] + 1] += runLength[i];
        }
        for (int p = 1; p < next.length; p++) {
            next[p] += next[p - 1];
        }
        int[] seq = new int[t.n];
        for (int i : byLpos) {
            if (runLength[i] > 0 && (passOf[i] & 1) == 0) {
                next[passOf[i]] = emitRun(seq, next[passOf[i]], i, runLength[i]);
            }
        }
        for (int k = byLpos.length - 1; k >= 0; k--) {
            int i = byLpos[k];
            if (runLength[i] > 0 && (passOf[i] & 1) == 1) {
                next[passOf[i]] = emitRun(seq, next[passOf[i]], i, runLength[i]);
            }
        }
        return seq;
    }

    private static int emitRun(int[] seq, int at, int runHead, int length) {
        for (int k = 0; k < length; k++) {
            seq[at + k] = runHead + k;
        }
        return at + length;
    }

    /** Where to enter a cyclic sequence, and the locate cost of the tour that results. */
    record Rotation(int start, double cost) {
    }

    /**
     * The rotation of a cyclic sequence that is cheapest to serve from the head; {@code fromHead[i]} is the cost
     * from the head to span i, {@code edge} is scratch space of at least the sequence's length.
     */
    static Rotation bestRotation(SpanTable t, int[] cycle, double[] fromHead, double[] edge) {
        int n = cycle.length;
        if (n == 1) {
            return new Rotation(0, fromHead[cycle[0]]);
        }
        double total = 0;
        for (int k = 0; k < n; k++) {
            edge[k] = t.edge(cycle[k], cycle[k + 1 == n ? 0 : k + 1]);
            total += edge[k];
        }
        int bestStart = 0;
        double bestCost = Double.POSITIVE_INFINITY;
        for (int r = 0; r < n; r++) {
            double c = fromHead[cycle[r]] + total - edge[r == 0 ? n - 1 : r - 1];
            if (c < bestCost) {
                bestCost = c;
                bestStart = r;
            }
        }
        return new Rotation(bestStart, bestCost);
    }

    static int[] rotate(int[] cycle, int start) {
        int n = cycle.length;
        int[] rotated = new int[n];
        System.arraycopy(cycle, start, rotated, 0, n - start);
        System.arraycopy(cycle, 0, rotated, n - start, start);
        return rotated;
    }
}
