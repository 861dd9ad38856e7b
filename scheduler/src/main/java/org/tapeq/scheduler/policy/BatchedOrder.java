package org.tapeq.scheduler.policy;

/**
 * CTA-like ordering: the queue is cut into consecutive batches of {@code batchSize} spans in arrival order (CTA
 * fetches at most 4 000 files per batch); each batch is ordered greedily, shortest estimated locate first, from
 * wherever the previous batch left the head. Nothing is reordered across batches.
 */
public final class BatchedOrder implements ReadOrder {

    /** CTA's batch limit in files. */
    public static final int CTA_BATCH_SIZE = 4000;

    private final int batchSize;

    public BatchedOrder(int batchSize) {
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batch size must be positive: " + batchSize);
        }
        this.batchSize = batchSize;
    }

    public int batchSize() {
        return batchSize;
    }

    @Override
    public int[] order(long headBlock, long[] starts, long[] ends, EstimatedGeometry g) {
        SpanTable t = new SpanTable(headBlock, starts, ends, g);
        int[] internal = t.internalIndex();
        int[] order = new int[t.n];
        long block = headBlock;
        int wrap = t.headWrap;
        double lpos = t.headLpos;
        for (int from = 0; from < t.n; from += batchSize) {
            int[] batch = new int[Math.min(batchSize, t.n - from)];
            for (int k = 0; k < batch.length; k++) {
                batch[k] = internal[from + k];
            }
            int[] tour = new NearestFirst(t, batch).tour(block, wrap, lpos);
            System.arraycopy(tour, 0, order, from, tour.length);
            int last = tour[tour.length - 1];
            block = t.endBlock[last];
            wrap = t.endWrap[last];
            lpos = t.endLpos[last];
        }
        return t.toCaller(order);
    }

    @Override
    public String toString() {
        return "batched-" + batchSize;
    }
}
