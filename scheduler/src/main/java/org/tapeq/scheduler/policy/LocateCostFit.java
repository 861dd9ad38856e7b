package org.tapeq.scheduler.policy;

/*
 * Design notes: why learn the coefficients, and how.
 *
 * The default coefficients of LocateCostModel are CTA's fit for LTO-8 drives. Another drive generation (or the
 * simulator's physics profiles) weighs the terms differently: a smaller fixed cost per locate, no landing-zone
 * rebate, a stop-and-return when the target on another wrap lies behind the head. A read order that is best under
 * wrong weights is not best on the drive: with the simulated library's true wrap ends but CTA's weights, a greedy
 * order locates about 30 % more than the same greedy on the true costs, on every physics profile. The weights are
 * what the drive shows with every locate, so they are fitted to the locates the cartridge's drive made.
 *
 * Model: seconds = constant + perLength*|dLPOS| + wrapChange*[wrap] + bandChange*[band] + directionChange*[dir]
 * + stepBack*[same wrap, behind] + behindOtherWrap*[other wrap same way, behind] - landingZone*[crosses mid-tape],
 * positions from the cartridge's current estimate (nominal, learnt scale or drive-reported wrap ends). Least squares
 * with every coefficient >= 0 (a negative penalty is noise, and would let a greedy prefer detours), and the defaults
 * as a weak prior (PRIOR_WEIGHT typical observations per coefficient), so that a term the locates never showed (a
 * step back on the same wrap, say) keeps its default rather than becoming free. Forward hops short enough that the
 * drive may have read through the gap are left out: their time is the read, not a locate. The fit is kept only if
 * it explains the observations better than the defaults do (less squared error, prior included), so with too few
 * or confusing locates the defaults stay.
 */

/** Fits {@link LocateCosts} to observed locates; see the design notes. Pure, not thread-safe. */
public final class LocateCostFit {

    /** Fewer usable locates than this are not a fit (eight coefficients). */
    public static final int MIN_OBSERVATIONS = 24;
    /** A forward hop whose read-through would take less than this multiple of its time may have been read. */
    static final double READ_THROUGH_MARGIN = 1.5;
    /** How many typical observations' worth the defaults weigh as a prior on each coefficient. */
    static final double PRIOR_WEIGHT = 4;
    /** The least mean square of a feature the prior's weight assumes (a term the locates never show). */
    static final double PRIOR_FLOOR = 0.05;
    private static final int FEATURES = 8;

    private LocateCostFit() {
    }

    /**
     * Coefficients for the locates {@code from[i] -> to[i]} that took {@code seconds[i]} (the first {@code n}), with
     * positions from {@code g}; null if there are too few usable locates or the fit is no better than the defaults.
     */
    public static LocateCosts fit(EstimatedGeometry g, long[] from, long[] to, double[] seconds, int n) {
        return fit(g, null, from, to, seconds, n);
    }

    /**
     * As {@link #fit(EstimatedGeometry, long[], long[], double[], int)}, with {@code prior} (coefficients learnt on
     * other cartridges; null: none) in place of the defaults as the weak prior; the fit is kept only if it explains
     * the locates better than both the defaults and {@code prior}.
     */
    public static LocateCosts fit(EstimatedGeometry g, LocateCosts prior, long[] from, long[] to, double[] seconds,
                                  int n) {
        LeastSquares ls = new LeastSquares(FEATURES);
        LocateCostModel defaults = LocateCostModel.of(g.withLocateCosts(null));
        LocateCostModel start = prior == null ? defaults : new LocateCostModel(g, prior);
        double[] x = new double[FEATURES];
        double defaultError = 0;
        double startError = 0;
        int used = 0;
        for (int i = 0; i < n; i++) {
            if (mayBeReadThrough(g, from[i], to[i], seconds[i])) {
                continue;
            }
            features(g, from[i], to[i], x);
            ls.add(x, seconds[i]);
            double e = defaults.locateSeconds(from[i], to[i]) - seconds[i];
            defaultError += e * e;
            double f = start.locateSeconds(from[i], to[i]) - seconds[i];
            startError += f * f;
            used++;
        }
        if (used < MIN_OBSERVATIONS) {
            return null;
        }
        LocateCosts d = start.costs();
        ls.prior(new double[] {d.constant(), d.perLength(), d.wrapChange(), d.bandChange(), d.directionChange(),
                d.stepBack(), d.behindOtherWrap(), d.landingZone()}, PRIOR_WEIGHT, PRIOR_FLOOR);
        double[] b = ls.solveNonNegative();
        if (!(b[1] > 0) || ls.residual(b) >= Math.min(defaultError, startError)) {
            return null;
        }
        return new LocateCosts(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
    }

    /** Whether a forward hop was short enough that the drive may have read through the gap rather than located. */
    static boolean mayBeReadThrough(EstimatedGeometry g, long from, long to, double seconds) {
        return to > from && g.readSeconds(to - from) < READ_THROUGH_MARGIN * seconds;
    }

    /** The features of one locate, in the order of {@link LocateCosts}' components. */
    static void features(EstimatedGeometry g, long from, long to, double[] x) {
        int wf = g.wrap(from);
        int wt = g.wrap(to);
        double lf = g.lpos(from);
        double lt = g.lpos(to);
        boolean otherWrap = wf != wt;
        boolean otherDirection = ((wf ^ wt) & 1) != 0;
        x[0] = 1;
        x[1] = Math.abs(lt - lf);
        x[2] = otherWrap ? 1 : 0;
        x[3] = otherWrap && g.band(wf) != g.band(wt) ? 1 : 0;
        x[4] = otherDirection ? 1 : 0;
        x[5] = !otherWrap && to < from ? 1 : 0;
        x[6] = otherWrap && !otherDirection && (EstimatedGeometry.isForward(wt) ? lt < lf : lt > lf) ? 1 : 0;
        x[7] = (lf < 0.5) != (lt < 0.5) ? -1 : 0;
    }
}
