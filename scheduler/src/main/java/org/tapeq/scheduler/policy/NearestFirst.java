package org.tapeq.scheduler.policy;

import java.util.Arrays;

/**
 * Greedy shortest-estimated-locate-first over a subset of the spans: from the head, repeatedly read the span
 * whose start is cheapest to reach, then continue from its end. Ties go to the lower block address.
 *
 * <p>Exact for {@link LocateCostModel} without comparing every pair: for a target wrap the fixed part of the cost
 * depends only on which tape half the target lies in, and the rest grows with |deltaLPOS|. So on each wrap only
 * three starts can win: the nearest alive one on either side of the head's LPOS, and the nearest one in the
 * other tape half. Reading through a gap favours the next start in block order, which is a fourth candidate.
 * A wrap is skipped when its fixed part alone cannot beat the best found so far. Each step is
 * O(wraps * log(spans per wrap)), the whole tour O(n * wraps * log) at worst and far less when spans are dense.
 */
final class NearestFirst {

    private final SpanTable t;
    private final int[][] idsByLpos;
    private final double[][] lposSorted;
    private final AliveSet[] alivePerWrap;
    private final int[] slotInWrap;
    private final int[] countPerWrap;
    private final int[] idsByBlock;
    private final long[] blocksSorted;
    private final AliveSet aliveByBlock;
    private final int[] slotInBlockOrder;

    /** Prepares the greedy over {@code subset} (span indices of {@code t}). */
    NearestFirst(SpanTable t, int[] subset) {
        this.t = t;
        int wraps = t.geometry.wraps();
        int m = subset.length;
        long[] lposKeys = new long[m];
        long[] blockKeys = new long[m];
        for (int k = 0; k < m; k++) {
            int id = subset[k];
            // group by wrap, then LPOS: wrap in the high bits, the LPOS fraction scaled to 2^40 in the low bits
            lposKeys[k] = ((long) t.startWrap[id] << 42) | (long) (t.startLpos[id] * (1L << 40));
            blockKeys[k] = t.startBlock[id];
        }
        int[] byLpos = SpanTable.sortedBy(lposKeys);
        countPerWrap = new int[wraps];
        for (int id : subset) {
            countPerWrap[t.startWrap[id]]++;
        }
        idsByLpos = new int[wraps][];
        lposSorted = new double[wraps][];
        alivePerWrap = new AliveSet[wraps];
        slotInWrap = new int[t.n];
        int k = 0;
        for (int w = 0; w < wraps; w++) {
            int c = countPerWrap[w];
            idsByLpos[w] = new int[c];
            lposSorted[w] = new double[c];
            alivePerWrap[w] = new AliveSet(c);
            for (int s = 0; s < c; s++, k++) {
                int id = subset[byLpos[k]];
                idsByLpos[w][s] = id;
                lposSorted[w][s] = t.startLpos[id];
                slotInWrap[id] = s;
            }
        }
        int[] byBlock = SpanTable.sortedBy(blockKeys);
        idsByBlock = new int[m];
        blocksSorted = new long[m];
        slotInBlockOrder = new int[t.n];
        for (int s = 0; s < m; s++) {
            int id = subset[byBlock[s]];
            idsByBlock[s] = id;
            blocksSorted[s] = t.startBlock[id];
            slotInBlockOrder[id] = s;
        }
        aliveByBlock = new AliveSet(m);
    }

    /** The greedy tour over the whole subset, from the given head position; consumes this instance. */
    int[] tour(long headBlock, int headWrap, double headLpos) {
        int[] order = new int[idsByBlock.length];
        long block = headBlock;
        int wrap = headWrap;
        double lpos = headLpos;
        for (int step = 0; step < order.length; step++) {
            int id = nearest(block, wrap, lpos);
            order[step] = id;
            remove(id);
            block = t.endBlock[id];
            wrap = t.endWrap[id];
            lpos = t.endLpos[id];
        }
        return order;
    }

    private int bestId;
    private double bestCost;

    private int nearest(long block, int wrap, double lpos) {
        bestId = -1;
        bestCost = Double.POSITIVE_INFINITY;
        // the next start in block order first: it bounds every read-through (see pruning below)
        int s = aliveByBlock.next(lowerBound(blocksSorted, block));
        if (s < idsByBlock.length) {
            consider(idsByBlock[s], block, wrap, lpos);
        }
        boolean lowHalf = lpos < 0.5;
        for (int w = 0; w < countPerWrap.length; w++) {
            if (countPerWrap[w] == 0) {
                continue;
            }
            if (w != wrap && fixedLowerBound(wrap, w) > bestCost) {
                continue; // a locate there costs at least this; a read-through at least the block successor's
            }
            double[] sorted = lposSorted[w];
            AliveSet alive = alivePerWrap[w];
            int p = lowerBound(sorted, lpos);
            int right = alive.next(p);
            int left = alive.previous(p - 1);
            consider(w, right, block, wrap, lpos);
            consider(w, left, block, wrap, lpos);
            int mid = lowerBound(sorted, 0.5);
            int across = lowHalf ? alive.next(mid) : alive.previous(mid - 1);
            if (across != right && across != left) {
                consider(w, across, block, wrap, lpos);
            }
        }
        return bestId;
    }

    private double fixedLowerBound(int from, int to) {
        EstimatedGeometry g = t.geometry;
        LocateCosts k = t.model.costs();
        double c = k.constant() + k.wrapChange() - k.landingZone();
        if (g.band(from) != g.band(to)) {
            c += k.bandChange();
        }
        if (((from ^ to) & 1) != 0) {
            c += k.directionChange();
        }
        return Math.max(c, k.constant());
    }

    private void consider(int wrap, int slot, long block, int headWrap, double lpos) {
        if (slot >= 0 && slot < idsByLpos[wrap].length) {
            consider(idsByLpos[wrap][slot], block, headWrap, lpos);
        }
    }

    private void consider(int id, long block, int wrap, double lpos) {
        double c = t.model.locateSeconds(block, wrap, lpos, t.startBlock[id], t.startWrap[id], t.startLpos[id]);
        if (c < bestCost || (c == bestCost && id < bestId)) {
            bestCost = c;
            bestId = id;
        }
    }

    private void remove(int id) {
        int w = t.startWrap[id];
        alivePerWrap[w].remove(slotInWrap[id]);
        countPerWrap[w]--;
        aliveByBlock.remove(slotInBlockOrder[id]);
    }

    private static int lowerBound(double[] a, double key) {
        int lo = 0;
        int hi = a.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static int lowerBound(long[] a, long key) {
        int i = Arrays.binarySearch(a, key);
        if (i < 0) {
            return -i - 1;
        }
        while (i > 0 && a[i - 1] == key) {
            i--;
        }
        return i;
    }
}
