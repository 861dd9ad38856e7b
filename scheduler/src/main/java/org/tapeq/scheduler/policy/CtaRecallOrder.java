package org.tapeq.scheduler.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
        int at = 0;
        for (int[] batch : batches(t.startBlock, t.endBlock, g.blockSize())) {
            int[] tour = new NearestFirst(t, batch).tour(0, t.headWrap, t.headLpos);
            System.arraycopy(tour, 0, order, at, tour.length);
            at += tour.length;
        }
        return t.toCaller(order);
    }

    /**
     * CTA's batches of the spans: indices in file-sequence (start block) order, cut at {@link #MAX_FILES} files
     * or {@link #MAX_BYTES} bytes, each batch holding at least one span.
     */
    public static List<int[]> batches(long[] starts, long[] ends, int blockSize) {
        int[] bySequence = SpanTable.sortedBy(starts);
        List<int[]> out = new ArrayList<>();
        int from = 0;
        while (from < bySequence.length) {
            int to = from;
            long bytes = 0;
            while (to < bySequence.length && to - from < MAX_FILES) {
                int i = bySequence[to];
                long size = (ends[i] - starts[i]) * blockSize;
                if (to > from && bytes + size > MAX_BYTES) {
                    break;
                }
                bytes += size;
                to++;
            }
            out.add(Arrays.copyOfRange(bySequence, from, to));
            from = to;
        }
        return out;
    }

    @Override
    public String toString() {
        return "cta-recall";
    }
}
