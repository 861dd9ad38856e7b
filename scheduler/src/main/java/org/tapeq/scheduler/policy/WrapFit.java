package org.tapeq.scheduler.policy;

/*
 * Design notes: why per-wrap boundaries, and how they are fitted.
 *
 * LayoutFit corrects one number, the bytes per wrap. A real cartridge's wraps differ one from the next (the
 * simulator's profiles: +-2 % per wrap, +-10 % on jitter10), and the estimate's error at a block is the sum of the
 * deviations of all wraps before it: a random walk, about a tenth of a wrap in the middle of an LTO-9 tape at
 * +-2 % and half a wrap at +-10 %. Half a wrap wrong puts a block on the wrong wrap, running the wrong way, and an
 * order on such positions locates far more than one on the truth. The walk is smooth at the scale of a few wraps,
 * so it is what is fitted: a wrap coordinate u(b) (wrap = floor(u), fraction along the wrap = u - wrap) that is the
 * scale estimate b / perWrap plus a shift, piecewise linear in b, with a knot every KNOT_WRAPS wraps:
 *
 *     u(b) = b / perWrap + (1 - a) * shift[j] + a * shift[j + 1],   b in knot segment j, a its fraction there
 *
 * shift[0] = 0 (block 0 is at the start of wrap 0). The wrap ends of the estimate are where u crosses each integer.
 *
 * Evidence: the same locates as LayoutFit's (from block, to block, seconds). Under a candidate shift, each locate's
 * two ends have a wrap and LPOS, and LocateCostModel predicts its time with coefficients fitted to all locates on
 * the current map (LocateCostFit; its defaults when it finds nothing better). The loss of a locate is its squared
 * error, capped (a locate whose end is still on a wrong wrap must not dominate the search), plus a random-walk
 * prior on the shift (PRIOR per squared wrap of difference between neighbouring knots, about 3 % per wrap). The
 * loss is multimodal (a wrong wrap parity mirrors the LPOS), which a gradient would not get out of, so the search
 * is coordinate descent on grids: every TAIL_EVERY-th knot's increment over its predecessor, moving all the tape
 * after it too (the error is a random walk: one wrong increment shifts everything after it), COARSE_RANGE wraps
 * either side; then each knot alone, FINE_RANGE either side; SWEEPS times. That is one round; the coefficients are
 * refitted on the new map before each round, and the cap tightens from round to round (ROUND_CAPS: 100 s, in effect
 * none, for two rounds, so that every locate pulls while most are far off, then 20 s and 6 s). A fit that starts
 * from the last one (CartridgeLayouts refines between fits from scratch) runs the last two rounds, REFINE_RANGE
 * either side.
 *
 * Which locates a tail move weighs. Weighing every locate that ends at or past the knot, the move also answers for
 * the tape after it, which later moves have not fitted yet: where the true ends wander more than about a wrap from
 * the scale estimate, those far locates pull the increment towards whatever suits the unfitted tape, and the descent
 * settles in a wrong mode (a synthetic +-10 % cartridge whose ends wander 1.8 wraps: from 500 random locates a fit
 * 1.1 wraps off on average, rejected; without timing noise the true map scores 6 against that fit's 12 461).
 * Weighing only the locates that end within a few knots past it fits the tape from the start outwards, each move on
 * the locates it decides, but has less evidence per move and is worse on other tapes. So a fit from scratch runs
 * the search once per window of TAIL_WINDOWS (every locate past the knot; those ending within 8 knots; within 4)
 * and keeps the one with the least loss: the loss is what the acceptance judges anyway, and the true map's is far
 * below every wrong one's.
 *
 * Acceptance: the fit must explain the locates clearly better than the scale estimate with its own coefficients
 * (ACCEPT_RATIO of its loss); where the locates say nothing about a stretch of tape (no locate ends there) the knots
 * there follow their neighbours, i.e. the estimate stays the scale estimate shifted by what was learnt nearby.
 * Cost: per sweep, each of KNOTS / TAIL_EVERY tail moves prices its candidates on the locates ending past it (half
 * of them on average; the windowed searches far fewer), each knot move on the few ending next to it: about a million
 * predicted locates per search from scratch on 512 locates, three searches per fit from scratch.
 */

/**
 * Fits a cartridge's wrap boundaries (the scale estimate plus a per-stretch shift) from observed locates; see the
 * design notes. Not thread-safe (a fit holds its prior).
 */
public final class WrapFit {

    /** Wraps between two knots of the fitted shift. */
    public static final int KNOT_WRAPS = 2;
    /** Fewer usable locates than this are not a fit. */
    public static final int MIN_OBSERVATIONS = 32;
    /** The fit must leave at most this fraction of the scale estimate's loss. */
    public static final double ACCEPT_RATIO = 0.7;
    /** The cap of one locate's loss (seconds) when fits are compared. */
    static final double LOSS_CAP = 6.0;
    static final double PRIOR = 1 / (KNOT_WRAPS * 0.03 * 0.03);
    static final double COARSE_RANGE = 1.0;
    static final double COARSE_STEP = 0.05;
    static final double REFINE_RANGE = 0.2;
    static final double FINE_RANGE = 0.1;
    static final double FINE_STEP = 0.01;
    static final int TAIL_EVERY = 4;
    /**
     * The windows of the searches from scratch (knots): unlimited (every locate ending at or past the knot), and the
     * locates ending within the next 8 or 4 knots (the tape after them not yet fitted).
     */
    private static final int[] TAIL_WINDOWS = {Integer.MAX_VALUE, 8, 4};
    static final int SWEEPS = 2;
    /** The cap of one locate's loss (seconds) in each round: none at first (every locate pulls), then tighter. */
    static final double[] ROUND_CAPS = {100, 100, 20, 6};

    private final EstimatedGeometry nominal;
    private final int wraps;
    /** The coefficients learnt on other cartridges the current fit starts from (null: none). */
    private LocateCosts prior;

    public WrapFit(EstimatedGeometry nominal) {
        this.nominal = nominal;
        this.wraps = nominal.wraps();
    }

    /**
     * The outcome: the shift at each knot (wraps), the fitted geometry (wrap ends and the coefficients fitted on
     * them), its loss and the scale estimate's (capped squared seconds).
     */
    public record Result(double[] shift, EstimatedGeometry geometry, double loss, double scaleLoss, int observations) {
        public boolean accepted() {
            return geometry != null;
        }
    }

    /** Number of knots of the shift (knot 0 at block 0 included). */
    public int knots() {
        return (wraps + KNOT_WRAPS - 1) / KNOT_WRAPS + 1;
    }

    /**
     * The best shift on top of wraps of {@code nominal.blocksPerWrap() * scale} blocks for the locates
     * {@code from[i] -> to[i]} that took {@code seconds[i]} (the first {@code n}), starting from {@code start} (a
     * previous shift, or null: none); not accepted if there are too few usable locates or it is no clear gain.
     */
    public Result fit(double scale, double[] start, long[] from, long[] to, double[] seconds, int n) {
        return fit(scale, start, null, from, to, seconds, n);
    }

    /**
     * As {@link #fit(double, double[], long[], long[], double[], int)}, the coefficients fitted with {@code prior}
     * (learnt on other cartridges; null: none) as their starting point ({@link LocateCostFit}).
     */
    public Result fit(double scale, double[] start, LocateCosts prior, long[] from, long[] to, double[] seconds,
                      int n) {
        this.prior = prior;
        Problem p = new Problem(scale, from, to, seconds, n);
        double[] zero = new double[knots()];
        EstimatedGeometry base = geometry(scale, zero);
        LocateCostModel baseModel = model(base, from, to, seconds, n);
        double scaleLoss = p.loss(zero, baseModel);
        if (p.used < MIN_OBSERVATIONS) {
            return new Result(zero, null, scaleLoss, scaleLoss, p.used);
        }
        boolean warm = start != null && start.length == zero.length;
        double[] shift = null;
        EstimatedGeometry fitted = null;
        LocateCostModel fittedModel = null;
        double loss = Double.MAX_VALUE;
        // from scratch: one search per tail window, the one that explains the locates best is kept (design notes);
        // a fit that starts from the previous one only refines it (its window does not matter there)
        for (int window : warm ? new int[] {TAIL_WINDOWS[0]} : TAIL_WINDOWS) {
            double[] s = warm ? start.clone() : zero.clone();
            p.window = window;
            // refining: the last two rounds, the refining range
            for (int round = warm ? Math.max(0, ROUND_CAPS.length - 2) : 0; round < ROUND_CAPS.length; round++) {
                LocateCostModel model = round == 0 ? baseModel : model(geometry(scale, s), from, to, seconds, n);
                p.cap2 = ROUND_CAPS[round] * ROUND_CAPS[round];
                p.search(s, model, !warm && round == 0 ? COARSE_RANGE : REFINE_RANGE);
            }
            p.cap2 = LOSS_CAP * LOSS_CAP;
            EstimatedGeometry g = geometry(scale, s);
            LocateCostModel m = model(g, from, to, seconds, n);
            double l = p.loss(s, m);
            if (l < loss) {
                loss = l;
                shift = s;
                fitted = g;
                fittedModel = m;
            }
        }
        if (!(loss <= ACCEPT_RATIO * scaleLoss)) {
            return new Result(shift, null, loss, scaleLoss, p.used);
        }
        return new Result(shift, fitted.withLocateCosts(fittedModel.costs()), loss, scaleLoss, p.used);
    }

    /** The loss of the observations on {@code g} with coefficients fitted on it (for tests and logs). */
    double loss(EstimatedGeometry g, long[] from, long[] to, double[] seconds, int n) {
        LocateCostModel m = model(g, from, to, seconds, n);
        double sum = 0;
        for (int i = 0; i < n; i++) {
            if (!LocateCostFit.mayBeReadThrough(nominal, from[i], to[i], seconds[i])) {
                double e = m.locateSeconds(from[i], to[i]) - seconds[i];
                sum += Math.min(e * e, LOSS_CAP * LOSS_CAP);
            }
        }
        return sum;
    }

    /** The locate cost model fitted to the observations on {@code g}, or {@code g}'s defaults. */
    private LocateCostModel model(EstimatedGeometry g, long[] from, long[] to, double[] seconds, int n) {
        LocateCosts costs = LocateCostFit.fit(g, prior, from, to, seconds, n);
        return costs != null ? new LocateCostModel(g, costs) : LocateCostModel.of(g.withLocateCosts(null));
    }

    /** The estimate whose wraps end where {@code u(b)} (see the design notes) crosses each integer. */
    public EstimatedGeometry geometry(double scale, double[] shift) {
        double perWrap = nominal.blocksPerWrap() * scale;
        double knotBlocks = KNOT_WRAPS * perWrap;
        long[] ends = new long[wraps];
        int segment = 0;
        int last = shift.length - 2;
        for (int w = 0; w < wraps; w++) {
            double target = w + 1;
            // u at the end of segment j is (j + 1) * KNOT_WRAPS + shift[j + 1]; past the last knot u runs on at slope 1
            while (segment < last && (segment + 1) * KNOT_WRAPS + shift[segment + 1] < target) {
                segment++;
            }
            double u0 = segment * KNOT_WRAPS + shift[segment];
            double u1 = (segment + 1) * KNOT_WRAPS + shift[segment + 1];
            double block = target > u1 ? (target - shift[segment + 1]) * perWrap
                    : (segment + (target - u0) / (u1 - u0)) * knotBlocks;
            long end = Math.round(block);
            ends[w] = Math.max(end, w == 0 ? 1 : ends[w - 1] + 1);
        }
        return nominal.withWrapEnds(ends);
    }

    /** The observations prepared for the search: each end's knot segment and weight, and who depends on a knot. */
    private final class Problem {
        final double perWrap;
        final long[] from;
        final long[] to;
        final double[] seconds;
        final int[] obs;
        final int used;
        final int[] segFrom;
        final int[] segTo;
        final double[] aFrom;
        final double[] aTo;
        final int[][] byKnot;
        /** The observations by their last segment, latest first; tail[j]: how many touch knot j or a later one. */
        final int[] byLastSegment;
        final int[] tail;
        /** The squared cap of one locate's loss in the current round. */
        double cap2 = LOSS_CAP * LOSS_CAP;
        /** A tail move at knot j weighs the locates whose last segment is before knot j + window. */
        int window = Integer.MAX_VALUE;

        Problem(double scale, long[] from, long[] to, double[] seconds, int n) {
            this.perWrap = nominal.blocksPerWrap() * scale;
            this.from = from;
            this.to = to;
            this.seconds = seconds;
            int[] kept = new int[n];
            int m = 0;
            for (int i = 0; i < n; i++) {
                if (!LocateCostFit.mayBeReadThrough(nominal, from[i], to[i], seconds[i])) {
                    kept[m++] = i;
                }
            }
            this.obs = java.util.Arrays.copyOf(kept, m);
            this.used = m;
            this.segFrom = new int[m];
            this.segTo = new int[m];
            this.aFrom = new double[m];
            this.aTo = new double[m];
            int knots = knots();
            int[] counts = new int[knots];
            for (int k = 0; k < m; k++) {
                int i = obs[k];
                segFrom[k] = segment(from[i]);
                aFrom[k] = along(from[i], segFrom[k]);
                segTo[k] = segment(to[i]);
                aTo[k] = along(to[i], segTo[k]);
                counts[segFrom[k]]++;
                counts[segFrom[k] + 1]++;
                if (segTo[k] != segFrom[k]) {
                    counts[segTo[k]]++;
                    counts[segTo[k] + 1]++;
                }
            }
            this.byKnot = new int[knots][];
            for (int j = 0; j < knots; j++) {
                byKnot[j] = new int[counts[j]];
                counts[j] = 0;
            }
            int[] lastCount = new int[knots];
            for (int k = 0; k < m; k++) {
                lastCount[Math.max(segFrom[k], segTo[k]) + 1]++;
            }
            this.tail = new int[knots];
            int running = 0;
            for (int j = knots - 1; j >= 0; j--) {
                running += lastCount[j];
                tail[j] = running;
            }
            this.byLastSegment = new int[m];
            Integer[] order = new Integer[m];
            for (int k = 0; k < m; k++) {
                order[k] = k;
            }
            java.util.Arrays.sort(order, (a, b) -> Integer.compare(Math.max(segFrom[b], segTo[b]),
                    Math.max(segFrom[a], segTo[a])));
            for (int k = 0; k < m; k++) {
                byLastSegment[k] = order[k];
            }
            for (int k = 0; k < m; k++) {
                add(segFrom[k], k, counts);
                add(segFrom[k] + 1, k, counts);
                if (segTo[k] != segFrom[k]) {
                    add(segTo[k], k, counts);
                    add(segTo[k] + 1, k, counts);
                }
            }
        }

        private void add(int knot, int k, int[] counts) {
            byKnot[knot][counts[knot]++] = k;
        }

        private int segment(long block) {
            return (int) Math.min(knots() - 2, (long) (block / (KNOT_WRAPS * perWrap)));
        }

        private double along(long block, int segment) {
            return Math.min(1.0, block / (KNOT_WRAPS * perWrap) - segment);
        }

        double loss(double[] shift, LocateCostModel model) {
            double sum = 0;
            for (int k = 0; k < used; k++) {
                sum += loss(k, shift, model);
            }
            return sum;
        }

        double loss(int k, double[] shift, LocateCostModel model) {
            int i = obs[k];
            double uf = from[i] / perWrap + (1 - aFrom[k]) * shift[segFrom[k]] + aFrom[k] * shift[segFrom[k] + 1];
            double ut = to[i] / perWrap + (1 - aTo[k]) * shift[segTo[k]] + aTo[k] * shift[segTo[k] + 1];
            int wf = wrapOf(uf);
            int wt = wrapOf(ut);
            double e = model.locateSeconds(from[i], wf, lpos(uf, wf), to[i], wt, lpos(ut, wt)) - seconds[i];
            return Math.min(e * e, cap2);
        }

        private int wrapOf(double u) {
            return (int) Math.max(0, Math.min(wraps - 1, Math.floor(u)));
        }

        private double lpos(double u, int wrap) {
            double f = Math.max(0.0, Math.min(1.0, u - wrap));
            return EstimatedGeometry.isForward(wrap) ? f : 1.0 - f;
        }

        /**
         * Coordinate descent: each knot's increment over its predecessor on the coarse grid (moving every knot after
         * it too: the error is a random walk, a wrong increment shifts all the tape after it), then each knot alone on
         * the fine grid, SWEEPS times.
         */
        void search(double[] shift, LocateCostModel model, double coarseRange) {
            for (int sweep = 0; sweep < SWEEPS; sweep++) {
                for (int j = 1; j < shift.length; j += j == 1 && TAIL_EVERY > 1 ? TAIL_EVERY - 1 : TAIL_EVERY) {
                    if (tail[j] == 0) {
                        break; // no locate ends at or past this knot's segments
                    }
                    bestIncrement(j, shift, model, coarseRange, COARSE_STEP);
                }
                for (int j = 1; j < shift.length; j++) {
                    if (byKnot[j].length == 0) {
                        // no evidence: follow the neighbours (the prior's minimum)
                        shift[j] = j + 1 < shift.length ? (shift[j - 1] + shift[j + 1]) / 2 : shift[j - 1];
                        continue;
                    }
                    best(j, shift, model, FINE_RANGE, FINE_STEP);
                }
            }
        }

        private void bestIncrement(int j, double[] shift, LocateCostModel model, double range, double step) {
            double increment = shift[j] - shift[j - 1];
            double bestDelta = 0;
            double bestLoss = Double.MAX_VALUE;
            int steps = (int) Math.round(range / step);
            int n = tail[j];
            int lo = window < tail.length - j ? tail[j + window] : 0;
            for (int s = -steps; s <= steps; s++) {
                double delta = s * step;
                if (increment + delta <= 0.5 - KNOT_WRAPS) {
                    continue;
                }
                move(shift, j, delta);
                double d = increment + delta;
                double l = PRIOR * d * d;
                for (int q = lo; q < n && l < bestLoss; q++) {
                    l += loss(byLastSegment[q], shift, model);
                }
                move(shift, j, -delta);
                if (l < bestLoss) {
                    bestLoss = l;
                    bestDelta = delta;
                }
            }
            move(shift, j, bestDelta);
        }

        private void move(double[] shift, int from, double delta) {
            for (int k = from; k < shift.length; k++) {
                shift[k] += delta;
            }
        }

        private void best(int j, double[] shift, LocateCostModel model, double range, double step) {
            double centre = shift[j];
            double bestValue = centre;
            double bestLoss = Double.MAX_VALUE;
            int steps = (int) Math.round(range / step);
            // keep u increasing: a knot may not pass its neighbours' wrap coordinate
            double low = j > 0 ? shift[j - 1] - KNOT_WRAPS + 0.5 : -Double.MAX_VALUE;
            double high = j + 1 < shift.length ? shift[j + 1] + KNOT_WRAPS - 0.5 : Double.MAX_VALUE;
            for (int s = -steps; s <= steps; s++) {
                double v = centre + s * step;
                if (v < low || v > high) {
                    continue;
                }
                shift[j] = v;
                double d = v - shift[j - 1];
                double l = PRIOR * d * d;
                if (j + 1 < shift.length) {
                    double e = shift[j + 1] - v;
                    l += PRIOR * e * e;
                }
                for (int k : byKnot[j]) {
                    l += loss(k, shift, model);
                    if (l >= bestLoss) {
                        break;
                    }
                }
                if (l < bestLoss) {
                    bestLoss = l;
                    bestValue = v;
                }
            }
            shift[j] = bestValue;
        }
    }
}
