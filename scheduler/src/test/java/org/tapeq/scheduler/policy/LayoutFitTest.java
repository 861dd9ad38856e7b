package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

class LayoutFitTest {

    private static final int BLOCK = 256 * 1024;
    private final EstimatedGeometry nominal = new EstimatedGeometry(MediaType.LTO9, BLOCK);
    private final LayoutFit fit = new LayoutFit(nominal);

    /**
     * A synthetic drive whose wraps hold {@code scale} times the nominal blocks, with a cost shape that is not the
     * fit's own (a band-change term the fit does not model, other coefficients), and {@code noise} seconds of
     * uniform noise.
     */
    static final class SyntheticTape {
        final double perWrap;
        final int wraps;
        final int wrapsPerBand;
        final double noise;
        final Random random;

        SyntheticTape(EstimatedGeometry g, double scale, double noise, long seed) {
            this.perWrap = g.blocksPerWrap() * scale;
            this.wraps = g.wraps();
            this.wrapsPerBand = g.wrapsPerBand();
            this.noise = noise;
            this.random = new Random(seed);
        }

        int wrap(long block) {
            return (int) Math.min(wraps - 1, (long) (block / perWrap));
        }

        double lpos(long block) {
            int w = wrap(block);
            double along = Math.min(1, block / perWrap - w);
            return (w & 1) == 0 ? along : 1 - along;
        }

        double seconds(long from, long to) {
            int wf = wrap(from);
            int wt = wrap(to);
            double s = 3.5 + 72 * Math.abs(lpos(to) - lpos(from));
            if (wf != wt) {
                s += 7.1 + ((wf ^ wt) & 1) * 4.8 + (wf / wrapsPerBand != wt / wrapsPerBand ? 3.0 : 0);
            }
            return s + noise * random.nextDouble();
        }

        /** The last block of the nominal capacity that still fits the synthetic tape. */
        long lastBlock() {
            return (long) (perWrap * wraps) - 1;
        }
    }

    private LayoutFit.Result observe(SyntheticTape tape, int n, Random random) {
        long[] from = new long[n];
        long[] to = new long[n];
        double[] seconds = new double[n];
        long head = 0;
        long last = Math.min(tape.lastBlock(), (long) (nominal.blocksPerWrap() * nominal.wraps()) - 1);
        for (int i = 0; i < n; i++) {
            from[i] = head;
            to[i] = (long) (random.nextDouble() * last);
            seconds[i] = tape.seconds(from[i], to[i]);
            head = to[i] + 1_000; // a read moves the head on a little, as a file's read does
        }
        return fit.fit(from, to, seconds, n);
    }

    @Test
    void fit_wrapsThreePercentLarger_findsTheScale() {
        LayoutFit.Result r = observe(new SyntheticTape(nominal, 1.03, 0.5, 1), 48, new Random(7));
        assertTrue(r.accepted(), r.toString());
        assertEquals(1.03, r.scale(), 2 * LayoutFit.STEP, r.toString());
    }

    @Test
    void fit_wrapsThreePercentSmaller_findsTheScale() {
        LayoutFit.Result r = observe(new SyntheticTape(nominal, 0.97, 0.5, 2), 48, new Random(8));
        assertTrue(r.accepted(), r.toString());
        assertEquals(0.97, r.scale(), 2 * LayoutFit.STEP, r.toString());
    }

    @Test
    void fit_fittedGeometry_placesBlocksOnTheirTrueWraps() {
        SyntheticTape tape = new SyntheticTape(nominal, 1.03, 0.5, 3);
        EstimatedGeometry learnt = fit.geometry(observe(tape, 48, new Random(9)).scale());
        int nominalWrong = 0;
        int learntWrong = 0;
        for (long b = 0; b < tape.lastBlock(); b += tape.lastBlock() / 1000) {
            nominalWrong += nominal.wrap(b) != tape.wrap(b) ? 1 : 0;
            learntWrong += learnt.wrap(b) != tape.wrap(b) ? 1 : 0;
        }
        assertTrue(nominalWrong > 900, "nominal wrong on " + nominalWrong + " of 1000 blocks");
        assertTrue(learntWrong < 20, "learnt wrong on " + learntWrong + " of 1000 blocks");
    }

    @Test
    void fit_observationsConsistentWithNominal_keepsNominal() {
        for (long seed = 1; seed <= 5; seed++) {
            LayoutFit.Result r = observe(new SyntheticTape(nominal, 1.0, 1.0, seed), 64, new Random(seed + 10));
            assertFalse(r.accepted(), "seed " + seed + ": " + r);
            assertSame(nominal, fit.geometry(r.scale()));
        }
    }

    @Test
    void stillExplains_aScaleTheLocatesSupport_butNotOneTheyContradict() {
        SyntheticTape offset = new SyntheticTape(nominal, 1.03, 0.5, 5);
        SyntheticTape plain = new SyntheticTape(nominal, 1.0, 0.5, 6);
        long[] from = new long[64];
        long[] to = new long[64];
        double[] onOffset = new double[64];
        double[] onPlain = new double[64];
        Random random = new Random(12);
        long last = Math.min(offset.lastBlock(), plain.lastBlock());
        long head = 0;
        for (int i = 0; i < 64; i++) {
            from[i] = head;
            to[i] = (long) (random.nextDouble() * last);
            onOffset[i] = offset.seconds(from[i], to[i]);
            onPlain[i] = plain.seconds(from[i], to[i]);
            head = to[i] + 1_000;
        }
        assertTrue(fit.stillExplains(1.03, from, to, onOffset, 64));
        assertFalse(fit.stillExplains(1.03, from, to, onPlain, 64), "a scale nominal explains better is dropped");
        assertFalse(fit.stillExplains(1.03, from, to, onOffset, LayoutFit.MIN_OBSERVATIONS - 1), "too few");
    }

    @Test
    void fit_fewerThanTheMinimum_keepsNominal() {
        LayoutFit.Result r = observe(new SyntheticTape(nominal, 1.03, 0.0, 4), LayoutFit.MIN_OBSERVATIONS - 1,
                new Random(11));
        assertFalse(r.accepted(), r.toString());
    }
}
