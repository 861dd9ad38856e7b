package org.tapeq.scheduler.policy;

/**
 * Or-opt on neighbour lists: take a run of one to three consecutive spans and reinsert it, in the same
 * direction, right after one of the spans that are cheap to come from, or right before one of the spans that
 * are cheap to go to - anywhere in the tour, not just nearby tour positions. The tour is a doubly linked list,
 * so a move is O(1); after the first pass only spans next to a change are looked at again (a work queue).
 *
 * <p>Neighbour lists: for each span the {@link #KEEP} cheapest of a few candidates - the spans whose ends
 * (for incoming) or starts (for outgoing) are nearest in LPOS on any wrap, and the nearest in block order
 * (same wrap, read-through). Building them is O(n log n); a round of moves is O(n * KEEP).
 */
final class NeighbourOrOpt {

    static final int KEEP = 6;
    private static final int LPOS_EACH_SIDE = 4;
    private static final int MAX_RUN = 3;
    private static final int NONE = -1;
    private static final double EPSILON = 1e-9;

    private final SpanTable t;
    private final int head;
    private final int[] next;
    private final int[] prev;
    private final int[][] incoming;
    private final int[][] outgoing;
    /** Cost of the edge from each span (and the head, at index n) to its successor; 0 for the last. */
    private final double[] succCost;
    private final double[] toFirst = new double[KEEP];

    /** Builds the neighbour lists for the spans of {@code t}. */
    NeighbourOrOpt(SpanTable t) {
        this.t = t;
        this.head = t.n;
        this.next = new int[t.n + 1];
        this.prev = new int[t.n + 1];
        this.succCost = new double[t.n + 1];
        this.incoming = new int[t.n][];
        this.outgoing = new int[t.n][];
        buildNeighbours();
    }

    /** Improves {@code order} (a complete tour) in place, making at most {@code maxMoves} moves; returns the saving. */
    double improve(int[] order, int maxMoves) {
        if (order.length < 2) {
            return 0;
        }
        int p = head;
        for (int id : order) {
            next[p] = id;
            prev[id] = p;
            p = id;
        }
        next[p] = NONE;
        prev[head] = NONE;
        for (int id = head; id != NONE; id = next[id]) {
            succCost[id] = cost(id, next[id]);
        }
        double saved = run(maxMoves);
        int k = 0;
        for (int id = next[head]; id != NONE; id = next[id]) {
            order[k++] = id;
        }
        return saved;
    }

    private double run(int maxMoves) {
        work = new int[t.n + 1]; // a ring: each span is queued at most once at a time
        queued = new boolean[t.n];
        workHead = 0;
        workSize = 0;
        for (int id = next[head]; id != NONE; id = next[id]) {
            enqueue(id);
        }
        double saved = 0;
        int moves = 0;
        while (workSize > 0 && moves < maxMoves) {
            int first = work[workHead];
            workHead = (workHead + 1) % work.length;
            workSize--;
            queued[first] = false;
            double s = bestMoveFrom(first);
            if (s > 0) {
                saved += s;
                moves++;
            }
        }
        return saved;
    }

    private int[] work;
    private boolean[] queued;
    private int workHead;
    private int workSize;

    private void enqueue(int id) {
        if (id >= 0 && id < t.n && !queued[id]) {
            work[(workHead + workSize) % work.length] = id;
            workSize++;
            queued[id] = true;
        }
    }

    /** Tries runs starting at {@code first}; applies the best improving move found, if any. */
    private double bestMoveFrom(int first) {
        int[] in = incoming[first];
        for (int k = 0; k < in.length; k++) {
            toFirst[k] = cost(in[k], first); // the same for every run length
        }
        double headToFirst = cost(head, first);
        double bestDelta = -EPSILON;
        int bestLast = NONE;
        int bestAfter = NONE;
        int last = first;
        int pred = prev[first];
        for (int run = 1; run <= MAX_RUN && last != NONE; run++) {
            int succ = next[last];
            double removed = succCost[pred] + succCost[last] - cost(pred, succ);
            for (int k = 0; k < in.length; k++) {
                double d = insertDelta(first, last, in[k], toFirst[k], removed);
                if (d < bestDelta) {
                    bestDelta = d;
                    bestLast = last;
                    bestAfter = in[k];
                }
            }
            for (int b : outgoing[last]) {
                int a = prev[b];
                if (a != NONE && !inRun(a, first, last)) {
                    double d = insertDelta(first, last, a, cost(a, first), removed);
                    if (d < bestDelta) {
                        bestDelta = d;
                        bestLast = last;
                        bestAfter = a;
                    }
                }
            }
            double d = insertDelta(first, last, head, headToFirst, removed);
            if (d < bestDelta) {
                bestDelta = d;
                bestLast = last;
                bestAfter = head;
            }
            last = next[last];
        }
        if (bestLast == NONE) {
            return 0;
        }
        int oldSucc = next[bestLast];
        move(first, bestLast, bestAfter);
        enqueue(first);
        enqueue(bestLast);
        enqueue(pred);
        enqueue(oldSucc);
        enqueue(bestAfter);
        enqueue(next[bestLast]);
        return -bestDelta;
    }

    /**
     * Change in cost from moving the run {@code first..last} to right after {@code a} (reached at {@code toFirst});
     * +inf if that is no move or not a valid one.
     */
    private double insertDelta(int first, int last, int a, double toFirst, double removed) {
        if (a == prev[first] || inRun(a, first, last)) {
            return Double.POSITIVE_INFINITY;
        }
        return toFirst + cost(last, next[a]) - succCost[a] - removed;
    }

    private boolean inRun(int a, int first, int last) {
        for (int id = first; ; id = next[id]) {
            if (id == a) {
                return true;
            }
            if (id == last) {
                return false;
            }
        }
    }

    private void move(int first, int last, int after) {
        int pred = prev[first];
        int succ = next[last];
        next[pred] = succ;
        if (succ != NONE) {
            prev[succ] = pred;
        }
        succCost[pred] = cost(pred, succ);
        int b = next[after];
        next[after] = first;
        prev[first] = after;
        next[last] = b;
        if (b != NONE) {
            prev[b] = last;
        }
        succCost[after] = cost(after, first);
        succCost[last] = cost(last, b);
    }

    private double cost(int from, int to) {
        if (to == NONE) {
            return 0;
        }
        return t.edge(from == head ? -1 : from, to);
    }

    private void buildNeighbours() {
        int n = t.n;
        long[] endKeys = new long[n];
        long[] startKeys = new long[n];
        for (int i = 0; i < n; i++) {
            endKeys[i] = Double.doubleToLongBits(t.endLpos[i]);
            startKeys[i] = Double.doubleToLongBits(t.startLpos[i]);
        }
        int[] endsByLpos = SpanTable.sortedBy(endKeys);
        int[] startsByLpos = SpanTable.sortedBy(startKeys);
        double[] endLposSorted = new double[n];
        double[] startLposSorted = new double[n];
        for (int r = 0; r < n; r++) {
            endLposSorted[r] = t.endLpos[endsByLpos[r]];
            startLposSorted[r] = t.startLpos[startsByLpos[r]];
        }
        double[] costs = new double[2 * LPOS_EACH_SIDE + 4];
        int[] ids = new int[costs.length];
        for (int j = 0; j < n; j++) {
            // incoming: ends near j's start in LPOS, and the span just before j in block order
            int c = 0;
            int r = lowerBound(endLposSorted, t.startLpos[j]);
            for (int k = Math.max(0, r - LPOS_EACH_SIDE); k < Math.min(n, r + LPOS_EACH_SIDE); k++) {
                c = add(ids, costs, c, endsByLpos[k], j, true);
            }
            if (j > 0) {
                c = add(ids, costs, c, j - 1, j, true); // spans are numbered in block order
            }
            incoming[j] = cheapest(ids, costs, c);
            // outgoing: starts near j's end in LPOS, and the span just after j in block order
            c = 0;
            r = lowerBound(startLposSorted, t.endLpos[j]);
            for (int k = Math.max(0, r - LPOS_EACH_SIDE); k < Math.min(n, r + LPOS_EACH_SIDE); k++) {
                c = add(ids, costs, c, startsByLpos[k], j, false);
            }
            if (j + 1 < n) {
                c = add(ids, costs, c, j + 1, j, false);
            }
            outgoing[j] = cheapest(ids, costs, c);
        }
    }

    private int add(int[] ids, double[] costs, int c, int other, int j, boolean incomingEdge) {
        if (other == j) {
            return c;
        }
        ids[c] = other;
        costs[c] = incomingEdge ? t.edge(other, j) : t.edge(j, other);
        return c + 1;
    }

    /** The {@link #KEEP} cheapest of the first {@code c} candidates (partial selection sort; reorders them). */
    private static int[] cheapest(int[] ids, double[] costs, int c) {
        int keep = Math.min(KEEP, c);
        int[] out = new int[keep];
        for (int k = 0; k < keep; k++) {
            int best = k;
            for (int x = k + 1; x < c; x++) {
                if (costs[x] < costs[best]) {
                    best = x;
                }
            }
            out[k] = ids[best];
            ids[best] = ids[k];
            costs[best] = costs[k];
        }
        return out;
    }

    private static int lowerBound(double[] sorted, double key) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
