package org.tapeq.scheduler.policy;

/**
 * Ascending block order, wherever the head is: what ENDIT (and a plain sorted recall list) does. Ties (which
 * merged, non-overlapping spans cannot have) keep arrival order.
 */
public final class FileSequenceOrder implements ReadOrder {

    @Override
    public int[] order(long headBlock, long[] starts, long[] ends, EstimatedGeometry g) {
        ReadOrder.checkSpans(headBlock, starts, ends);
        return SpanTable.sortedBy(starts);
    }

    @Override
    public String toString() {
        return "file-sequence";
    }
}
