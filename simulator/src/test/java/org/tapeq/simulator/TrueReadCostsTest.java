package org.tapeq.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.tape.sim.TruePositions;
import org.tapeq.workload.FileSpec;
import org.tapeq.workload.TapeImage;

class TrueReadCostsTest {

    private static final long GB = 1_000_000_000L;
    private static final String BARCODE = "A00000L9";

    @Test
    void minAssignment_isTheLeastOverAllPermutations() {
        Random random = new Random(5);
        for (int trial = 0; trial < 50; trial++) {
            int n = 1 + random.nextInt(6);
            long[][] cost = new long[n][n];
            for (long[] row : cost) {
                for (int j = 0; j < n; j++) {
                    row[j] = random.nextInt(100);
                }
            }
            long best = Long.MAX_VALUE;
            for (int[] perm : permutations(n)) {
                long sum = 0;
                for (int i = 0; i < n; i++) {
                    sum += cost[i][perm[i]];
                }
                best = Math.min(best, sum);
            }
            assertEquals(best, MinAssignment.of(cost), "trial " + trial);
        }
    }

    /**
     * Files scattered over neighbouring wraps: several files' cheapest entries are from the end of the same file,
     * which the head leaves once. The entry term stays at or below the locate time of every order of the files
     * (one mount), and is above the sum of each file's cheapest entry, the former term.
     */
    @Test
    void entryTerm_boundsEveryOrder_andCountsEachEndOnce() throws Exception {
        Random random = new Random(11);
        List<FileSpec> files = new ArrayList<>();
        TapeImage tape = new TapeImage(BARCODE, "atlas").filler(300 * GB);
        for (int i = 0; i < 7; i++) {
            FileSpec f = new FileSpec("P" + i, 2 * GB, "ds", "atlas");
            files.add(f);
            tape.aggregate(List.of(f)).filler((20 + random.nextInt(100)) * GB);
        }
        PhysicalBoundTest.Setup s = PhysicalBoundTest.load(1, List.of(tape));
        int n = files.size();
        long[] blocks = new long[2 * n];
        for (int i = 0; i < n; i++) {
            TapeLoader.Location where = s.locations().get(files.get(i).pnfsid());
            blocks[2 * i] = where.startBlock();
            blocks[2 * i + 1] = where.endBlock();
        }
        TruePositions p = s.library().truePositions(BARCODE, blocks);
        double entry = TrueReadCosts.entryMillis(p, n);

        long cheapestOrder = Long.MAX_VALUE;
        for (int[] order : permutations(n)) {
            long sum = p.fromLoadPointMillis(2 * order[0]);
            for (int k = 1; k < n; k++) {
                sum += p.locateMillis(2 * order[k - 1] + 1, 2 * order[k]);
            }
            cheapestOrder = Math.min(cheapestOrder, sum);
        }
        long cheapestEntries = 0;
        for (int f = 0; f < n; f++) {
            long best = p.fromLoadPointMillis(2 * f);
            for (int g = 0; g < n; g++) {
                if (g != f) {
                    best = Math.min(best, p.locateMillis(2 * g + 1, 2 * f));
                }
            }
            cheapestEntries += best;
        }
        assertTrue(entry <= cheapestOrder, entry + " ms is not below the cheapest order's " + cheapestOrder + " ms");
        assertTrue(entry > cheapestEntries, entry + " ms is not above the sum of cheapest entries "
                + cheapestEntries + " ms");
    }

    private static List<int[]> permutations(int n) {
        List<int[]> out = new ArrayList<>();
        permute(new int[n], new boolean[n], 0, out);
        return out;
    }

    private static void permute(int[] prefix, boolean[] used, int k, List<int[]> out) {
        if (k == prefix.length) {
            out.add(prefix.clone());
            return;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (!used[i]) {
                used[i] = true;
                prefix[k] = i;
                permute(prefix, used, k + 1, out);
                used[i] = false;
            }
        }
    }
}
