package org.tapeq.scheduler.policy;

/*
 * Design notes: why a scale, and how it is fitted.
 *
 * The nominal estimate (EstimatedGeometry) assumes every wrap holds capacity / wraps bytes. A real cartridge holds
 * a few per cent more or less (capacity variation, compression, rewritten blocks), and the error accumulates: 3 %
 * off puts the estimate about eight LTO-9 wraps wrong by the end of the tape, so the estimated LPOS and direction
 * of most blocks are wrong and the ordering is worse than file order. The dominant error is one factor, the bytes
 * per wrap, so that is what is fitted: wraps hold blocksPerWrap * s blocks, s in [MIN_SCALE, MAX_SCALE].
 *
 * The only evidence is what a real drive gives: the logical block the head was at, the block it was sent to, and
 * how long the locate took. Under a candidate s, each locate has a predicted longitudinal distance |dLPOS| and
 * whether it changed wrap and direction. A locate's time is close to linear in those:
 *
 *     seconds ~ a + b * |dLPOS| + c * [wrap changed] + d * [direction changed]
 *
 * (the shape of CTA's cost model without the smaller terms). The coefficients are not assumed - they differ by
 * drive generation and physics - but fitted by least squares for each candidate s; the candidate with the
 * smallest residual wins. Under the true s the residual is small (the drive is deterministic up to small terms);
 * under a wrong s, blocks land on wrong wraps and at wrong LPOS and the line explains the times badly.
 *
 * The residual is multimodal in s (wrap parity flips every 1/wraps), so the search is a plain grid of STEP, fine
 * enough that the last wrap moves less than a tenth of a wrap per step on 280 wraps; +-5 % covers the capacity
 * variation and compression offsets the simulator's physics profiles span (+-3 %). The fit is accepted only
 * when it explains the observations clearly better than nominal (ACCEPT_RATIO of nominal's residual): with
 * observations consistent with nominal, s = 1 stays, so learning never makes the estimate worse than nominal on
 * a nominal tape. The converse does not hold: a window that tells no scale from nominal (hops between neighbouring
 * wraps) is no evidence for nominal, so a scale once learnt is kept while all the cartridge's locates still fit it at
 * least as well as nominal (stillExplains, CartridgeLayouts). Per-wrap jitter is not a scale and is not corrected
 * here (the drive-reported wrap ends are).
 */

/** Fits a cartridge's bytes-per-wrap scale from observed locates; see the design notes. Pure, not thread-safe. */
public final class LayoutFit {

    public static final double MIN_SCALE = 0.95;
    public static final double MAX_SCALE = 1.05;
    public static final double STEP = 0.0003;
    /** The fitted scale must leave at most this fraction of nominal's squared residual. */
    public static final double ACCEPT_RATIO = 0.25;
    /** Fewer locates than this are not a fit (four coefficients and a scale from a handful would overfit). */
    public static final int MIN_OBSERVATIONS = 12;

    private final EstimatedGeometry nominal;

    public LayoutFit(EstimatedGeometry nominal) {
        this.nominal = nominal;
    }

    /** The outcome: the scale chosen, its residual and nominal's (sum of squared seconds). */
    public record Result(double scale, double residual, double nominalResidual, int observations) {
        public boolean accepted() {
            return scale != 1.0;
        }
    }

    /**
     * The best scale for the locates {@code from[i] -> to[i]} that took {@code seconds[i]}, the first {@code n}
     * of the arrays; 1.0 if there are too few or no candidate is clearly better than nominal.
     */
    public Result fit(long[] from, long[] to, double[] seconds, int n) {
        double nominalResidual = residual(1.0, from, to, seconds, n);
        if (n < MIN_OBSERVATIONS) {
            return new Result(1.0, nominalResidual, nominalResidual, n);
        }
        double best = 1.0;
        double bestResidual = nominalResidual;
        int steps = (int) Math.round((MAX_SCALE - MIN_SCALE) / STEP);
        for (int k = 0; k <= steps; k++) {
            double s = MIN_SCALE + k * STEP;
            double r = residual(s, from, to, seconds, n);
            if (r < bestResidual) {
                bestResidual = r;
                best = s;
            }
        }
        if (bestResidual > ACCEPT_RATIO * nominalResidual) {
            return new Result(1.0, nominalResidual, nominalResidual, n);
        }
        return new Result(best, bestResidual, nominalResidual, n);
    }

    /**
     * Whether {@code scale}, chosen earlier, still explains the locates {@code from[i] -> to[i]} (the first {@code n})
     * at least as well as nominal. A refit on the latest locates that finds no scale clearly better than nominal
     * keeps the cartridge's scale while this holds on all its locates: a window of short hops tells the scales apart
     * less clearly than the locates that chose it, and dropping back to nominal there put a tape with 3 % more per
     * wrap several wraps off until the next refit.
     */
    public boolean stillExplains(double scale, long[] from, long[] to, double[] seconds, int n) {
        return n >= MIN_OBSERVATIONS && residual(scale, from, to, seconds, n) <= residual(1.0, from, to, seconds, n);
    }

    /** The nominal estimate with wraps of {@code blocksPerWrap * scale} blocks (1.0: nominal itself). */
    public EstimatedGeometry geometry(double scale) {
        if (scale == 1.0) {
            return nominal;
        }
        long[] ends = new long[nominal.wraps()];
        double perWrap = nominal.blocksPerWrap() * scale;
        for (int w = 0; w < ends.length; w++) {
            ends[w] = Math.round((w + 1) * perWrap);
        }
        return nominal.withWrapEnds(ends);
    }

    /** Squared residual of the least-squares line through the observations under scale {@code s}. */
    double residual(double s, long[] from, long[] to, double[] seconds, int n) {
        LeastSquares ls = new LeastSquares(4);
        double perWrap = nominal.blocksPerWrap() * s;
        double[] x = new double[4];
        for (int i = 0; i < n; i++) {
            int wf = wrap(from[i], perWrap);
            int wt = wrap(to[i], perWrap);
            x[0] = 1;
            x[1] = Math.abs(lpos(to[i], wt, perWrap) - lpos(from[i], wf, perWrap));
            x[2] = wf != wt ? 1 : 0;
            x[3] = ((wf ^ wt) & 1) != 0 ? 1 : 0;
            ls.add(x, seconds[i]);
        }
        return ls.residual(ls.solve(null));
    }

    private int wrap(long block, double perWrap) {
        return (int) Math.min(nominal.wraps() - 1, (long) (block / perWrap));
    }

    private static double lpos(long block, int wrap, double perWrap) {
        double along = Math.min(1.0, Math.max(0.0, block / perWrap - wrap));
        return EstimatedGeometry.isForward(wrap) ? along : 1.0 - along;
    }
}
