package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.time.VirtualEventLoop;

/** What the simulated drives offer for read ordering: wrap ends and a recommended access order, only if told. */
class SimDriveOrderTest {

    private static final long GB = 1_000_000_000L;

    /** A cartridge of 400 tape files of 40 GB (16 TB), mounted, and 60 of them picked at random as ranges. */
    private SimHarness mounted(SimLibraryBuilder b, long[] starts, long[] ends) throws Exception {
        SimHarness h = new SimHarness(loop, b.build());
        long[] first = new long[400];
        for (int i = 0; i < first.length; i++) {
            first[i] = h.library.preload("A00001L9", 40 * GB).startBlock();
        }
        h.mount("drive0", "A00001L9");
        SplittableRandom random = new SplittableRandom(5);
        int[] picked = random.ints(0, 400).distinct().limit(starts.length).toArray();
        for (int i = 0; i < starts.length; i++) {
            starts[i] = first[picked[i]];
            ends[i] = starts[i] + 1000;
        }
        return h;
    }

    private final VirtualEventLoop loop = new VirtualEventLoop(0);

    private SimLibraryBuilder builder() {
        return SimulatedLibrary.builder(loop).sizeOnly().drives(1).seed(3)
                .cartridge("A00001L9", MediaType.LTO9);
    }

    @Test
    void byDefault_noWrapEnds_noAccessOrder() throws Exception {
        long[] starts = new long[60];
        long[] ends = new long[60];
        SimHarness h = mounted(builder(), starts, ends);
        assertTrue(h.library.wrapEnds("drive0").isEmpty());
        assertEquals(0, h.library.accessOrderLimit("drive0"));
        h.run((Completion<int[]> c) -> h.library.recommendAccessOrder("drive0", starts, ends, c))
                .fault(FaultKind.DRIVE);
    }

    @Test
    void wrapEnds_theTrueOnes() throws Exception {
        SimHarness h = mounted(builder().reportsWrapEnds(true), new long[1], new long[1]);
        assertArrayEquals(h.library.wrapEndBlocks("A00001L9"), h.library.wrapEnds("drive0").orElseThrow());
        assertTrue(h.library.wrapEnds("drive1").isEmpty(), "no such drive: nothing");
    }

    @Test
    void accessOrder_greedyOnTheTruePhysics_takesTheDrivesTime() throws Exception {
        long[] starts = new long[60];
        long[] ends = new long[60];
        SimHarness h = mounted(builder().accessOrderLimit(100), starts, ends);
        long t0 = h.loop.now();
        SimHarness.Result<int[]> r = h.run((Completion<int[]> c) ->
                h.library.recommendAccessOrder("drive0", starts, ends, c));
        int[] order = r.get();
        assertEquals(DriveAccessOrder.COMPUTE_MILLIS, r.at() - t0);
        int[] sorted = order.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            assertEquals(i, sorted[i], "a permutation");
        }
        // priced on the library's own physics: each step is the quickest remaining from where the last ended
        long[] blocks = new long[2 * starts.length + 1];
        for (int i = 0; i < starts.length; i++) {
            blocks[2 * i] = starts[i];
            blocks[2 * i + 1] = ends[i];
        }
        TruePositions p = h.library.truePositions("A00001L9", blocks);
        long drive = 0;
        long fileSequence = 0;
        int at = -1;
        for (int k = 0; k < order.length; k++) {
            int here = at;
            for (int j = k + 1; j < order.length; j++) {
                int other = 2 * order[j];
                long chosen = here < 0 ? p.fromLoadPointMillis(2 * order[k]) : p.locateMillis(here, 2 * order[k]);
                long alternative = here < 0 ? p.fromLoadPointMillis(other) : p.locateMillis(here, other);
                assertTrue(chosen <= alternative, "step " + k + " is not the nearest");
            }
            drive += here < 0 ? p.fromLoadPointMillis(2 * order[k]) : p.locateMillis(here, 2 * order[k]);
            at = 2 * order[k] + 1;
        }
        int[] bySequence = java.util.stream.IntStream.range(0, starts.length).boxed()
                .sorted((a, b) -> Long.compare(starts[a], starts[b])).mapToInt(Integer::intValue).toArray();
        at = -1;
        for (int i : bySequence) {
            fileSequence += at < 0 ? p.fromLoadPointMillis(2 * i) : p.locateMillis(at, 2 * i);
            at = 2 * i + 1;
        }
        assertTrue(drive < fileSequence, "drive order " + drive + " ms vs file sequence " + fileSequence + " ms");
    }

    @Test
    void accessOrder_moreRangesThanTheLimit_refused() throws Exception {
        long[] starts = new long[60];
        long[] ends = new long[60];
        SimHarness h = mounted(builder().accessOrderLimit(59), starts, ends);
        h.run((Completion<int[]> c) -> h.library.recommendAccessOrder("drive0", starts, ends, c))
                .fault(FaultKind.DRIVE);
        h.locate("drive0", starts[0]); // the drive is free again
    }
}
