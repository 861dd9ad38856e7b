package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

/**
 * tapeq's read order on learnt locate costs: small queues whose best order is known by trying every permutation.
 */
class LearntCostOrderTest {

    private static final EstimatedGeometry G = new EstimatedGeometry(MediaType.LTO9, 256 * 1024);
    private static final int SPANS = 7;

    /** Seven short spans on a few wraps of one band, placed at random. */
    private static long[][] queue(long seed) {
        Random r = new Random(seed);
        long perWrap = (long) G.blocksPerWrap();
        long[] starts = new long[SPANS];
        long[] ends = new long[SPANS];
        for (int i = 0; i < SPANS; i++) {
            starts[i] = r.nextInt(6) * perWrap + (long) (r.nextDouble() * (perWrap - 100)) + i;
            ends[i] = starts[i] + 40;
        }
        return new long[][] {starts, ends};
    }

    private static double best;

    /** The least locate seconds of any order, by trying all of them. */
    private static double optimum(long[] starts, long[] ends, LocateCostModel m) {
        best = Double.POSITIVE_INFINITY;
        permute(new int[starts.length], new boolean[starts.length], 0, starts, ends, m);
        return best;
    }

    private static void permute(int[] order, boolean[] used, int k, long[] starts, long[] ends, LocateCostModel m) {
        if (k == order.length) {
            best = Math.min(best, ReadOrder.estimateLocateSeconds(order, 0, starts, ends, m));
            return;
        }
        for (int i = 0; i < order.length; i++) {
            if (!used[i]) {
                used[i] = true;
                order[k] = i;
                permute(order, used, k + 1, starts, ends, m);
                used[i] = false;
            }
        }
    }

    @Test
    void order_onLearntCosts_findsTheBestOrderUnderThem_whereCtasCostsMissIt() {
        EstimatedGeometry learnt = G.withLocateCosts(LocateCostFitTest.DRIVE);
        LocateCostModel drive = LocateCostModel.of(learnt);
        int ctaWorse = 0;
        for (long seed = 1; seed <= 20; seed++) {
            long[][] q = queue(seed);
            double optimum = optimum(q[0], q[1], drive);
            int[] onLearnt = new SerpentineOrder().order(0, q[0], q[1], learnt);
            int[] onCta = new SerpentineOrder().order(0, q[0], q[1], G);
            double learntCost = ReadOrder.estimateLocateSeconds(onLearnt, 0, q[0], q[1], drive);
            double ctaCost = ReadOrder.estimateLocateSeconds(onCta, 0, q[0], q[1], drive);
            assertEquals(optimum, learntCost, 1e-6, "seed " + seed);
            if (ctaCost > optimum + 1e-6) {
                ctaWorse++;
            }
        }
        assertTrue(ctaWorse >= 3, "CTA's costs should miss the drive's best order on some queues: " + ctaWorse);
    }
}
