package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.tapeq.scheduler.model.MediaType;

class ReadOrderTest {

    private static final EstimatedGeometry LTO9 = new EstimatedGeometry(MediaType.LTO9, SpanQueues.BLOCK_SIZE);
    private static final long MID_TAPE = SpanQueuesHeads.midTape(LTO9);

    static Stream<Arguments> ordersAndQueues() {
        return ReadOrders.names().stream().flatMap(name -> Stream.of(
                Arguments.of(name, "uniform", SpanQueues.uniform(LTO9, 1, 1), 0L),
                Arguments.of(name, "uniform", SpanQueues.uniform(LTO9, 2, 2), 0L),
                Arguments.of(name, "uniform", SpanQueues.uniform(LTO9, 37, 3), MID_TAPE),
                Arguments.of(name, "uniform", SpanQueues.uniform(LTO9, 1000, 4), 0L),
                Arguments.of(name, "uniform", SpanQueues.uniform(LTO9, 5000, 5), MID_TAPE),
                Arguments.of(name, "clustered", SpanQueues.clustered(LTO9, 3000, 3, 0.5, 6), MID_TAPE)));
    }

    @ParameterizedTest(name = "{0} {1} n={2}")
    @MethodSource("ordersAndQueues")
    void order_anyQueue_isAPermutationOfTheSpans(String name, String kind, SpanQueues q, long head) {
        int[] order = ReadOrders.create(name).order(head, q.starts, q.ends, LTO9);
        assertPermutation(q.size(), order);
    }

    @ParameterizedTest
    @MethodSource("names")
    void order_emptyQueue_isEmpty(String name) {
        assertEquals(0, ReadOrders.create(name).order(0, new long[0], new long[0], LTO9).length);
    }

    @ParameterizedTest
    @MethodSource("names")
    void order_invalidSpans_areRejected(String name) {
        ReadOrder order = ReadOrders.create(name);
        assertThrows(IllegalArgumentException.class, () -> order.order(0, new long[] {1, 2}, new long[] {2}, LTO9));
        assertThrows(IllegalArgumentException.class, () -> order.order(0, new long[] {5}, new long[] {5}, LTO9));
        assertThrows(IllegalArgumentException.class, () -> order.order(0, new long[] {-1}, new long[] {5}, LTO9));
        assertThrows(IllegalArgumentException.class, () -> order.order(-1, new long[] {1}, new long[] {5}, LTO9));
    }

    @ParameterizedTest
    @MethodSource("names")
    void order_sameInput_givesSameOrder(String name) {
        SpanQueues q = SpanQueues.uniform(LTO9, 2000, 11);
        assertArrayEquals(ReadOrders.create(name).order(MID_TAPE, q.starts, q.ends, LTO9),
                ReadOrders.create(name).order(MID_TAPE, q.starts, q.ends, LTO9));
    }

    static Stream<String> names() {
        return ReadOrders.names().stream();
    }

    @Test
    void arrivalOrder_anyQueue_keepsIndexOrder() {
        SpanQueues q = SpanQueues.uniform(LTO9, 50, 1);
        int[] order = new ArrivalOrder().order(0, q.starts, q.ends, LTO9);
        for (int i = 0; i < order.length; i++) {
            assertEquals(i, order[i]);
        }
    }

    @Test
    void fileSequenceOrder_anyHead_sortsByStartBlock() {
        long[] starts = {900, 100, 500, 300};
        long[] ends = {950, 200, 600, 400};
        assertArrayEquals(new int[] {1, 3, 2, 0}, new FileSequenceOrder().order(450, starts, ends, LTO9));
    }

    @Test
    void batchedOrder_smallBatches_neverReordersAcrossBatches() {
        SpanQueues q = SpanQueues.uniform(LTO9, 100, 9);
        int[] order = new BatchedOrder(7).order(0, q.starts, q.ends, LTO9);
        for (int from = 0; from < order.length; from += 7) {
            int[] batch = Arrays.copyOfRange(order, from, Math.min(from + 7, order.length));
            Arrays.sort(batch);
            for (int k = 0; k < batch.length; k++) {
                assertEquals(from + k, batch[k], "batch starting at " + from);
            }
        }
    }

    @Test
    void batchedOrder_oneBatch_matchesBruteForceShortestLocateFirst() {
        for (long seed = 1; seed <= 3; seed++) {
            for (SpanQueues q : new SpanQueues[] {SpanQueues.uniform(LTO9, 800, seed),
                    SpanQueues.clustered(LTO9, 800, 3, 2, seed)}) {
                long head = seed == 2 ? MID_TAPE : 0;
                int[] fast = new BatchedOrder(BatchedOrder.CTA_BATCH_SIZE).order(head, q.starts, q.ends, LTO9);
                assertArrayEquals(bruteForceGreedy(head, q), fast, "seed " + seed);
            }
        }
    }

    /** CTA-style greedy: compare the head against every remaining span, O(n^2). Ties to the lower start block. */
    private static int[] bruteForceGreedy(long head, SpanQueues q) {
        LocateCostModel model = LocateCostModel.of(LTO9);
        int n = q.size();
        boolean[] done = new boolean[n];
        int[] order = new int[n];
        for (int step = 0; step < n; step++) {
            int best = -1;
            double bestCost = Double.POSITIVE_INFINITY;
            for (int i = 0; i < n; i++) {
                if (done[i]) {
                    continue;
                }
                double c = model.locateSeconds(head, q.starts[i]);
                if (c < bestCost || (c == bestCost && q.starts[i] < q.starts[best])) {
                    bestCost = c;
                    best = i;
                }
            }
            done[best] = true;
            order[step] = best;
            head = q.ends[best];
        }
        return order;
    }

    @Test
    void estimateSeconds_twoSpans_addsLocatesAndReads() {
        LocateCostModel model = LocateCostModel.of(LTO9);
        long[] starts = {1000, 4_000_000};
        long[] ends = {2000, 4_000_500};
        int[] order = {1, 0};
        double locates = model.locateSeconds(0, 4_000_000) + model.locateSeconds(4_000_500, 1000);
        double reads = LTO9.readSeconds(1000) + LTO9.readSeconds(500);
        assertEquals(locates, ReadOrder.estimateLocateSeconds(order, 0, starts, ends, LTO9), 1e-9);
        assertEquals(locates + reads, ReadOrder.estimateSeconds(order, 0, starts, ends, LTO9), 1e-9);
        assertThrows(IllegalArgumentException.class,
                () -> ReadOrder.estimateSeconds(new int[] {0}, 0, starts, ends, LTO9));
    }

    static void assertPermutation(int n, int[] order) {
        assertEquals(n, order.length);
        boolean[] seen = new boolean[n];
        for (int i : order) {
            assertTrue(i >= 0 && i < n, "index " + i);
            assertTrue(!seen[i], "index " + i + " twice");
            seen[i] = true;
        }
    }
}
