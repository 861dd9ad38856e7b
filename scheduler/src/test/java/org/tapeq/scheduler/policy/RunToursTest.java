package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

/** RunTours: the order of whole runs is the cheapest of all permutations, and serpentine takes it. */
class RunToursTest {

    private static final EstimatedGeometry LTO9 = new EstimatedGeometry(MediaType.LTO9, SpanQueues.BLOCK_SIZE);
    private static final long GB_BLOCKS = 1_000_000_000L / SpanQueues.BLOCK_SIZE;

    /** {@code runs} runs of 40 adjacent 1 GB spans each, at seeded places, 200-1 200 GB apart. */
    private static long[][] datasets(int runs, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Long> starts = new ArrayList<>();
        List<Long> ends = new ArrayList<>();
        long at = 0;
        for (int r = 0; r < runs; r++) {
            at += (200 + random.nextInt(1_000)) * GB_BLOCKS;
            for (int i = 0; i < 40; i++) {
                starts.add(at);
                at += GB_BLOCKS;
                ends.add(at);
            }
        }
        return new long[][] {starts.stream().mapToLong(Long::longValue).toArray(),
                ends.stream().mapToLong(Long::longValue).toArray()};
    }

    /** The cheapest order of whole runs by trying every permutation. */
    private static double bruteForce(SpanTable t, int runs) {
        double best = Double.POSITIVE_INFINITY;
        for (int[] p : permutations(runs)) {
            int[] order = new int[t.n];
            int at = 0;
            for (int r : p) {
                for (int i = 0; i < 40; i++) {
                    order[at++] = r * 40 + i;
                }
            }
            best = Math.min(best, t.cost(order));
        }
        return best;
    }

    private static List<int[]> permutations(int n) {
        List<int[]> out = new ArrayList<>();
        permute(new int[n], new boolean[n], 0, out);
        return out;
    }

    private static void permute(int[] p, boolean[] used, int at, List<int[]> out) {
        if (at == p.length) {
            out.add(p.clone());
            return;
        }
        for (int i = 0; i < p.length; i++) {
            if (!used[i]) {
                used[i] = true;
                p[at] = i;
                permute(p, used, at + 1, out);
                used[i] = false;
            }
        }
    }

    @Test
    void best_fewRuns_isTheCheapestPermutationOfWholeRuns() {
        int beatsFileSequence = 0;
        for (long seed = 1; seed <= 20; seed++) {
            int runs = 2 + (int) (seed % 4);
            long[][] q = datasets(runs, seed);
            SpanTable t = new SpanTable(0, q[0], q[1], LTO9);
            Tour tour = RunTours.best(t, 7);
            assertNotNull(tour, "seed " + seed);
            ReadOrderTest.assertPermutation(t.n, tour.order());
            assertEquals(bruteForce(t, runs), tour.cost(), 1e-6, "seed " + seed);
            if (tour.cost() < t.cost(t.byStartBlock()) - 1) {
                beatsFileSequence++;
            }
            int[] serpentine = new SerpentineOrder().order(0, q[0], q[1], LTO9);
            assertTrue(ReadOrder.estimateLocateSeconds(serpentine, 0, q[0], q[1], LTO9) <= tour.cost() + 1e-6,
                    "seed " + seed + ": serpentine is worse than the best order of whole runs");
        }
        assertTrue(beatsFileSequence > 5, "the run order mattered in only " + beatsFileSequence + " of 20 queues");
    }

    @Test
    void best_tooManyRuns_givesNoTour() {
        long[][] q = datasets(RunTours.MAX_RUNS + 1, 7);
        SpanTable t = new SpanTable(0, q[0], q[1], LTO9);
        assertNull(RunTours.runHeads(t, 7));
        assertNull(RunTours.best(t, 7));
        long[][] fits = datasets(RunTours.MAX_RUNS, 7);
        assertEquals(RunTours.MAX_RUNS, RunTours.runHeads(new SpanTable(0, fits[0], fits[1], LTO9), 7).length);
    }
}
