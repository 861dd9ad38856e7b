package org.tapeq.scheduler.policy;

/**
 * The spans of one ordering problem with their estimated positions precomputed, so that the hot loops price a
 * move with array reads only. Span {@code i} starts at {@code start*[i]} and leaves the head at {@code end*[i]}.
 *
 * <p>Spans are renumbered in block order (ties by caller index): neighbours on the tape are then neighbours in
 * memory, which keeps the hot loops in cache. {@link #callerIndex} maps back to the caller's (arrival) indices.
 */
final class SpanTable {

    final LocateCostModel model;
    final EstimatedGeometry geometry;
    final int n;
    final long headBlock;
    final int headWrap;
    final double headLpos;
    final long[] startBlock;
    final int[] startWrap;
    final double[] startLpos;
    final long[] endBlock;
    final int[] endWrap;
    final double[] endLpos;
    /** The caller's index of each internal span. */
    final int[] callerIndex;

    SpanTable(long headBlock, long[] starts, long[] ends, EstimatedGeometry g) {
        ReadOrder.checkSpans(headBlock, starts, ends);
        this.model = LocateCostModel.of(g);
        this.geometry = g;
        this.n = starts.length;
        this.headBlock = headBlock;
        this.headWrap = g.wrap(headBlock);
        this.headLpos = g.lpos(headBlock);
        this.callerIndex = sortedBy(starts);
        this.startBlock = new long[n];
        this.endBlock = new long[n];
        this.startWrap = new int[n];
        this.startLpos = new double[n];
        this.endWrap = new int[n];
        this.endLpos = new double[n];
        for (int i = 0; i < n; i++) {
            startBlock[i] = starts[callerIndex[i]];
            endBlock[i] = ends[callerIndex[i]];
            startWrap[i] = g.wrap(startBlock[i]);
            startLpos[i] = g.lpos(startBlock[i]);
            endWrap[i] = g.wrap(endBlock[i]);
            endLpos[i] = g.lpos(endBlock[i]);
        }
    }

    /** Locate from the end of span {@code from} (-1: the head's starting position) to the start of {@code to}. */
    double edge(int from, int to) {
        if (from < 0) {
            return model.locateSeconds(headBlock, headWrap, headLpos, startBlock[to], startWrap[to], startLpos[to]);
        }
        return model.locateSeconds(endBlock[from], endWrap[from], endLpos[from],
                startBlock[to], startWrap[to], startLpos[to]);
    }

    /** Total locate seconds of a complete order. */
    double cost(int[] order) {
        double sum = 0;
        int previous = -1;
        for (int i : order) {
            sum += edge(previous, i);
            previous = i;
        }
        return sum;
    }

    /** Span indices sorted by start block (file-sequence order): the identity, given the renumbering. */
    int[] byStartBlock() {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        return order;
    }

    /** The internal indices of the caller's spans. */
    int[] internalIndex() {
        int[] internal = new int[n];
        for (int i = 0; i < n; i++) {
            internal[callerIndex[i]] = i;
        }
        return internal;
    }

    /** An order of internal indices as an order of the caller's indices. */
    int[] toCaller(int[] order) {
        int[] out = new int[order.length];
        for (int k = 0; k < order.length; k++) {
            out[k] = callerIndex[order[k]];
        }
        return out;
    }

    /** Span indices sorted by start LPOS, ties by start block. */
    int[] byStartLpos() {
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = Double.doubleToLongBits(startLpos[i]); // non-negative doubles order like their bits
        }
        return sortedBy(keys);
    }

    /** Indices {@code 0..keys.length-1} sorted by key, ties by index (a stable merge sort on primitives). */
    static int[] sortedBy(long[] keys) {
        int len = keys.length;
        int[] a = new int[len];
        for (int i = 0; i < len; i++) {
            a[i] = i;
        }
        int[] b = new int[len];
        for (int width = 1; width < len; width *= 2) {
            for (int lo = 0; lo < len; lo += 2 * width) {
                int mid = Math.min(lo + width, len);
                int hi = Math.min(lo + 2 * width, len);
                int i = lo;
                int j = mid;
                for (int k = lo; k < hi; k++) {
                    b[k] = i < mid && (j >= hi || keys[a[i]] <= keys[a[j]]) ? a[i++] : a[j++];
                }
            }
            int[] t = a;
            a = b;
            b = t;
        }
        return a;
    }
}
