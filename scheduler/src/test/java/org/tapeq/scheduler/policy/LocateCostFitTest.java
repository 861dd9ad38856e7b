package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

class LocateCostFitTest {

    private static final EstimatedGeometry G = new EstimatedGeometry(MediaType.LTO9, 256 * 1024);
    /** A drive unlike CTA's LTO-8 fit: cheap fixed terms, a stop-and-return term, no landing-zone rebate. */
    static final LocateCosts DRIVE = new LocateCosts(2.5, 72, 3.5, 3.0, 2.5, 5.0, 5.0, 0);

    /**
     * Locates from where the last read ended, timed by {@code truth} plus uniform noise: every third one to another
     * place on the head's wrap (ahead, or also behind if {@code stepBacks}), the others anywhere on the tape.
     */
    static void observe(LocateCostModel truth, int n, long seed, double noise, boolean stepBacks,
                        long[] from, long[] to, double[] s) {
        Random random = new Random(seed);
        long perWrap = (long) G.blocksPerWrap();
        long last = perWrap * G.wraps() - 1;
        long head = 0;
        for (int i = 0; i < n; i++) {
            from[i] = head;
            long wrapStart = head / perWrap * perWrap;
            if (i % 3 == 0 && (stepBacks || head < wrapStart + perWrap / 2)) {
                long lo = stepBacks ? wrapStart : head;
                to[i] = lo + (long) (random.nextDouble() * (wrapStart + perWrap - 3_000 - lo));
            } else {
                to[i] = (long) (random.nextDouble() * last);
            }
            if (to[i] == head) {
                to[i]++;
            }
            s[i] = truth.locateSeconds(from[i], to[i]) + noise * (random.nextDouble() - 0.5);
            head = to[i] + 2_000;
        }
    }

    private static LocateCosts fit(LocateCosts truth, int n, double noise, boolean stepBacks) {
        long[] from = new long[n];
        long[] to = new long[n];
        double[] s = new double[n];
        observe(new LocateCostModel(G, truth), n, 5, noise, stepBacks, from, to, s);
        return LocateCostFit.fit(G, from, to, s, n);
    }

    /**
     * The fit predicts fresh locates of the drive to within a second on average, a quarter of the error of CTA's defaults,
     * and the terms CTA's model has not (stop and return) or the drive has not (landing zone) come out right.
     */
    @Test
    void fit_recoversTheDrivesCoefficients() {
        LocateCosts c = fit(DRIVE, 64, 0.2, true);
        assertNotNull(c);
        int n = 300;
        long[] from = new long[n];
        long[] to = new long[n];
        double[] s = new double[n];
        observe(new LocateCostModel(G, DRIVE), n, 99, 0, true, from, to, s);
        LocateCostModel learnt = new LocateCostModel(G, c);
        LocateCostModel defaults = LocateCostModel.of(G);
        double learntError = 0;
        double defaultError = 0;
        for (int i = 0; i < n; i++) {
            learntError += Math.abs(learnt.locateSeconds(from[i], to[i]) - s[i]) / n;
            defaultError += Math.abs(defaults.locateSeconds(from[i], to[i]) - s[i]) / n;
        }
        assertTrue(learntError < 1 && learntError < defaultError / 4, learntError + " s vs " + defaultError + " s: " + c);
        assertEquals(DRIVE.perLength(), c.perLength(), 2.5, c.toString());
        assertEquals(DRIVE.stepBack(), c.stepBack(), 1.0, c.toString());
        assertTrue(c.behindOtherWrap() > 3 && c.landingZone() < 1, c.toString());
    }

    @Test
    void fit_aTermTheLocatesNeverShow_staysAtTheDefault() {
        LocateCosts c = fit(DRIVE, 64, 0.2, false);
        assertEquals(LocateCostModel.STEP_BACK, c.stepBack(), 1.0);
    }

    @Test
    void fit_tooFewLocates_orNoBetterThanTheDefaults_isNull() {
        assertNull(fit(DRIVE, LocateCostFit.MIN_OBSERVATIONS - 1, 0.2, true));
        LocateCosts defaults = LocateCostModel.of(G).costs();
        assertNull(fit(defaults, 64, 0, true), "locates timed exactly by the defaults give no better fit");
    }

    @Test
    void fit_ignoresForwardHopsThatMayHaveBeenReadThrough() {
        int n = 64;
        long[] from = new long[2 * n];
        long[] to = new long[2 * n];
        double[] s = new double[2 * n];
        observe(new LocateCostModel(G, DRIVE), n, 6, 0.2, true, from, to, s);
        for (int i = n; i < 2 * n; i++) { // short forward hops, timed as a read at the native rate
            from[i] = 1_000_000L * i;
            to[i] = from[i] + 20;
            s[i] = G.readSeconds(20);
        }
        LocateCosts c = LocateCostFit.fit(G, from, to, s, 2 * n);
        assertEquals(DRIVE.constant(), c.constant(), 0.6);
        assertEquals(DRIVE.perLength(), c.perLength(), 2.0);
    }

    @Test
    void costModel_chargesTheStopAndReturnOnlyForATargetBehindOnAWrapRunningTheSameWay() {
        LocateCostModel m = new LocateCostModel(G, new LocateCosts(2, 60, 3, 0, 2, 4, 7, 0));
        long perWrap = (long) G.blocksPerWrap();
        long w0Mid = perWrap / 2;
        double behind = m.locateSeconds(w0Mid, 2 * perWrap + perWrap / 4); // wrap 2 at LPOS 0.25, head at 0.5
        double ahead = m.locateSeconds(w0Mid, 2 * perWrap + 3 * perWrap / 4); // wrap 2 at LPOS 0.75
        double otherWay = m.locateSeconds(w0Mid, perWrap + 3 * perWrap / 4); // wrap 1 at LPOS 0.25
        assertEquals(2 + 60 * 0.25 + 3 + 7, behind, 0.01);
        assertEquals(2 + 60 * 0.25 + 3, ahead, 0.01);
        assertEquals(2 + 60 * 0.25 + 3 + 2, otherWay, 0.01);
        assertTrue(LocateCostModel.of(G).costs().behindOtherWrap() == 0, "CTA's model has no such term");
    }
}
