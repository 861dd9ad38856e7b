package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

class CtaRecallOrderTest {

    private static final int BLOCK = 256 * 1024;
    private final EstimatedGeometry g = new EstimatedGeometry(MediaType.LTO9, BLOCK);

    /** Five 30 GB spans spread over the tape, given in reverse arrival order. */
    private static long[][] spans() {
        long blocks30Gb = 30_000_000_000L / BLOCK;
        long[] starts = new long[5];
        long[] ends = new long[5];
        for (int i = 0; i < 5; i++) {
            long start = (4 - i) * 3 * blocks30Gb; // arrival order is the reverse of file sequence
            starts[i] = start;
            ends[i] = start + blocks30Gb;
        }
        return new long[][] {starts, ends};
    }

    @Test
    void batchesAreCutInFileSequenceAt80Gb() {
        long[][] s = spans();
        int[] order = new CtaRecallOrder().order(0, s[0], s[1], g);
        // two 30 GB spans fit in 80 GB, a third does not: batches {lowest two}, {next two}, {last}
        Set<Integer> first = Arrays.stream(order, 0, 2).boxed().collect(Collectors.toSet());
        Set<Integer> second = Arrays.stream(order, 2, 4).boxed().collect(Collectors.toSet());
        assertEquals(Set.of(4, 3), first, Arrays.toString(order));
        assertEquals(Set.of(2, 1), second, Arrays.toString(order));
        assertEquals(0, order[4]);
    }

    @Test
    void eachBatchIsOrderedFromTheBeginningOfTapeWhereverTheHeadIs() {
        long[][] s = spans();
        int[] fromBot = new CtaRecallOrder().order(0, s[0], s[1], g);
        int[] fromFarOut = new CtaRecallOrder().order(s[1][0] - 1, s[0], s[1], g);
        assertArrayEquals(fromBot, fromFarOut);
    }

    @Test
    void aBatchHoldsAtMost4000Files() {
        int n = 4001;
        long[] starts = new long[n];
        long[] ends = new long[n];
        for (int i = 0; i < n; i++) {
            starts[i] = (long) (n - i) * 10; // arrival order is the reverse of file sequence
            ends[i] = starts[i] + 1;
        }
        int[] order = new CtaRecallOrder().order(0, starts, ends, g);
        assertEquals(0, order[n - 1], "the highest block is alone in the second batch");
    }
}
