package org.tapeq.scheduler.policy;

/** First come, first served: the spans in arrival (index) order. The baseline every other order must beat. */
public final class ArrivalOrder implements ReadOrder {

    @Override
    public int[] order(long headBlock, long[] starts, long[] ends, EstimatedGeometry g) {
        ReadOrder.checkSpans(headBlock, starts, ends);
        int[] order = new int[starts.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        return order;
    }

    @Override
    public String toString() {
        return "arrival";
    }
}
