package org.tapeq.scheduler.policy;

/**
 * Orders the read spans queued for one mounted cartridge.
 *
 * <p>The caller passes spans as parallel arrays: span {@code i} is the block range {@code [starts[i], ends[i])};
 * index order is arrival order. Spans are on one cartridge, do not overlap and are already merged where they
 * touch. The result is a permutation of {@code 0..n-1}: the order in which to read them, starting with the head
 * at {@code headBlock} (0 right after a mount).
 *
 * <p>Implementations are stateless and thread-safe; {@link ReadOrders} names them.
 */
public interface ReadOrder {

    int[] order(long headBlock, long[] starts, long[] ends, EstimatedGeometry g);

    /** Estimated seconds to serve the spans in the given order: every locate plus every read. */
    static double estimateSeconds(int[] order, long headBlock, long[] starts, long[] ends, EstimatedGeometry g) {
        LocateCostModel model = LocateCostModel.of(g);
        double read = 0;
        for (int i : order) {
            read += model.readSeconds(starts[i], ends[i]);
        }
        return read + estimateLocateSeconds(order, headBlock, starts, ends, model);
    }

    /** Estimated seconds spent locating (and reading through gaps) when serving the spans in the given order. */
    static double estimateLocateSeconds(int[] order, long headBlock, long[] starts, long[] ends, EstimatedGeometry g) {
        return estimateLocateSeconds(order, headBlock, starts, ends, LocateCostModel.of(g));
    }

    /** As {@link #estimateLocateSeconds(int[], long, long[], long[], EstimatedGeometry)} with an explicit model. */
    static double estimateLocateSeconds(int[] order, long headBlock, long[] starts, long[] ends,
                                        LocateCostModel model) {
        checkSpans(headBlock, starts, ends);
        if (order.length != starts.length) {
            throw new IllegalArgumentException(
                    "order has " + order.length + " entries for " + starts.length + " spans");
        }
        double seconds = 0;
        long head = headBlock;
        for (int i : order) {
            seconds += model.locateSeconds(head, starts[i]);
            head = ends[i];
        }
        return seconds;
    }

    /** Rejects arrays of different lengths, negative addresses and empty spans. */
    static void checkSpans(long headBlock, long[] starts, long[] ends) {
        if (starts.length != ends.length) {
            throw new IllegalArgumentException(starts.length + " starts but " + ends.length + " ends");
        }
        if (headBlock < 0) {
            throw new IllegalArgumentException("negative head block " + headBlock);
        }
        for (int i = 0; i < starts.length; i++) {
            if (starts[i] < 0 || ends[i] <= starts[i]) {
                throw new IllegalArgumentException("span " + i + " is not a block range: [" + starts[i] + ", "
                        + ends[i] + ")");
            }
        }
    }
}
