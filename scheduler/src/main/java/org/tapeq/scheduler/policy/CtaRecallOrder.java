package org.tapeq.scheduler.policy;

import java.util.Arrays;

/**
 * CTA's recall order (docs/simulator.md, "Policies", with the CTA sources it follows): the queue in file-sequence
 * order is cut into batches of at most 4 000 files or 80 GB (CTA's RecallTaskInjector takes
 * {@code bulkRequestRecallMaxFiles} / {@code bulkRequestRecallMaxBytes}, defaults 4 000 and 80 GB), a batch always
 * holding at least one span; each batch is ordered by CTA's software RAO, shortest estimated locate first starting
 * from the beginning of tape (SLTFRAOAlgorithm starts from a dummy file at block 0), whatever the head's position.
 * Nothing is reordered across batches.
 */
public final class CtaRecallOrder implements ReadOrder {

    /** CTA's default {@code bulkRequestRecallMaxFiles}. */
    public static final int MAX_FILES = 4000;
    /** CTA's default {@code bulkRequestRecallMaxBytes}. */
    public static final long MAX_BYTES = 80_000_000_000L;

    @Override
    public int[] order(long headBlock, long[] starts, long[] ends, EstimatedGeometry g) {
        SpanTable t = new SpanTable(0, starts, ends, g);
        int[] order = new int[t.n];
        long blockSize = g.blockSize();
        int from = 0;
        while (from < t.n) {
            int to = from;
            long bytes = 0;
            while (to < t.n && to - from < MAX_FILES
                    && (to == from || bytes + (t.endBlock[to] - t.startBlock[to]) * blockSize <= MAX_BYTES)) {
                bytes += (t.endBlock[to] - t.startBlock[to]) * blockSize;
                to++;
            }
            int first = from;
            int[] batch = new int[to - from];
            Arrays.setAll(batch, k -> first + k); // internal indices are in block (file-sequence) order
            int[] tour = new NearestFirst(t, batch).tour(0, t.headWrap, t.headLpos);
            System.arraycopy(tour, 0, order, from, tour.length);
            from = to;
        }
        return t.toCaller(order);
    }

    @Override
    public String toString() {
        return "cta-recall";
    }
}
