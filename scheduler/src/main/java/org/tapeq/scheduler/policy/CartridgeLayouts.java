package org.tapeq.scheduler.policy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import org.tapeq.scheduler.model.MediaType;

/*
 * Design notes: what is kept, and how much. Per cartridge: the last HISTORY locates (from block, to block,
 * seconds) in a ring, the scale last fitted from the latest WINDOW of them (LayoutFit) and, for policies that learn
 * wraps, the wrap boundaries last fitted from all of them (WrapFit, on top of the scale). The scale is refitted every
 * REFIT_EVERY locates, the boundaries every WRAP_REFIT_EVERY (a boundary fit is some million predicted locates):
 * from scratch whenever the locates have doubled or grown by FRESH_EVERY since the last fit from scratch, and then
 * the last fit refined too, the one that explains the locates better kept (a fit from scratch on more locates may
 * find a mode the refinement does not leave, or miss one the earlier fit found); else refining the last one.
 * Cartridges are kept in access order and the least recently used is dropped past MAX_CARTRIDGES, so memory is
 * bounded by MAX_CARTRIDGES * HISTORY * 24 bytes (about 12.6 MB) whatever the library's size. Nothing is persisted:
 * a restarted daemon starts from nominal and relearns within a few dozen locates of a mount.
 *
 * Drive-reported end-of-wrap positions (READ END OF WRAP POSITION) are the drive's own map and replace any fit.
 * On them the locate cost coefficients are learnt too (LocateCostFit), every COST_REFIT_EVERY locates, and kept
 * only when they change what the model predicts for the observed locates by more than COST_MIN_CHANGE (each new
 * estimate makes the read pass replan). Not on the nominal or scale estimate: there the positions of the observed
 * locates are off by up to a tenth of a wrap (the per-wrap capacity varies), the fitted travel term comes out too
 * small, and in the simulator's physics family the orders on such a fit located more than on the defaults. The
 * wrap boundary fit does carry the coefficients it fitted on its own boundaries (WrapFit).
 *
 * Shared between the cartridges of one media type (MediaPrior): the locate cost coefficients and the scale of the
 * latest boundary fit accepted on at least PRIOR_MIN_OBSERVATIONS locates. Keyed by media type, not by drive: the
 * scale is the cartridges' (capacity variation of a batch, compression of a site's data), and the coefficients are
 * seconds per tape length and per wrap or band change, i.e. the drive's mechanics on the media's length and layout;
 * the drives of one model in a library move alike, so a key per drive would learn the same coefficients once per
 * drive, and a key per drive model is not known here (one model per media type in the simulated library; a library
 * mixing generations on one media type relies on the check below). A cartridge with no boundary fit of its own in
 * use orders with the prior's coefficients (new cartridges also start at its scale) as long as they explain its own
 * locates no worse than the defaults do (checked with every scale refit; a prior that fails is dropped for that
 * cartridge, and the cartridge's own fit replaces it once accepted); a learnt scale is checked as before
 * (LayoutFit.stillExplains). The boundary fits of every cartridge start their coefficient fit from the prior
 * (LocateCostFit's weak prior in place of CTA's; kept only if it beats both). Only for the policies that learn
 * boundaries; not on drive-reported wrap ends.
 */

/**
 * What the scheduler has learnt of each cartridge's real layout from its locates (or been told by the drive), and
 * the estimate its read order should use; see the design notes. Owned by the engine's loop thread.
 */
public final class CartridgeLayouts {

    /** Locates the scale fit uses (the latest). */
    public static final int WINDOW = 64;
    /** Locates kept per cartridge, the evidence of the wrap boundary fit (the latest). */
    public static final int HISTORY = 512;
    /** Locates between fits of the wrap boundaries. */
    public static final int WRAP_REFIT_EVERY = 32;
    /** Locates after which the boundaries are fitted from scratch again (also whenever the locates have doubled). */
    public static final int FRESH_EVERY = 64;
    /** A refit of the boundaries replaces the estimate only if a knot moved at least this much (wraps). */
    public static final double MIN_SHIFT_CHANGE = 0.02;
    /** Locates between fits while no fit is accepted, and once one is (it then only needs confirming). */
    public static final int REFIT_EVERY = 4;
    public static final int REFIT_EVERY_ACCEPTED = 32;
    /** A refit replaces the estimate only if its scale moved at least this much (0.14 LTO-9 wraps at the end). */
    public static final double MIN_CHANGE = 0.0005;
    public static final int MAX_CARTRIDGES = 1024;
    /** Locates between fits of the cost coefficients (on drive-reported wrap ends). */
    public static final int COST_REFIT_EVERY = 16;
    /** A refit replaces the coefficients only if it moves the predicted locates by this mean fraction. */
    public static final double COST_MIN_CHANGE = 0.05;
    /** Locates a boundary fit needs before its coefficients and scale become the media type's prior. */
    public static final int PRIOR_MIN_OBSERVATIONS = 128;

    private final Map<String, Layout> layouts = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Layout> eldest) {
            return size() > MAX_CARTRIDGES;
        }
    };

    private final Map<MediaType, MediaPrior> priors = new HashMap<>();

    /** What the cartridges of one media type learnt (see the design notes); a new cartridge's first estimate. */
    private static final class MediaPrior {
        double scale = 1.0;
        LocateCosts costs;
        int observations;
        EstimatedGeometry geometry;
    }

    /** One cartridge's observations and current estimate. */
    private static final class Layout {
        final LayoutFit fit;
        final WrapFit wrapFit;
        final long[] from = new long[HISTORY];
        final long[] to = new long[HISTORY];
        final double[] seconds = new double[HISTORY];
        int count;
        int sinceFit;
        int sinceWrapFit;
        double scale = 1.0;
        EstimatedGeometry scaleGeometry;
        EstimatedGeometry geometry;
        LayoutFit.Result last;
        WrapFit.Result lastWrap;
        /** The shift of the last boundary fit (its next start), and of the one in the estimate (null: none). */
        double[] shift;
        double[] applied;
        /** Locates seen at the last fit of the boundaries from scratch. */
        int freshAt;
        boolean reported;
        LocateCosts costs;
        int sinceCostFit;
        /** The media prior's coefficients in use while no boundary fit is (null: none), and the last one dropped. */
        LocateCosts prior;
        LocateCosts dropped;

        Layout(EstimatedGeometry nominal, MediaPrior prior) {
            MediaPrior p = prior == null || prior.geometry == null ? null : prior;
            this.fit = new LayoutFit(nominal);
            this.wrapFit = new WrapFit(nominal);
            this.scaleGeometry = p == null ? nominal : p.geometry;
            this.geometry = scaleGeometry;
            if (p != null) {
                this.scale = p.scale;
                this.prior = p.costs;
            }
        }
    }

    /**
     * The estimate for {@code barcode}: the drive-reported wrap ends if any, else the learnt scale once a fit is
     * accepted, else {@code nominal}.
     */
    public EstimatedGeometry geometry(String barcode, EstimatedGeometry nominal) {
        return geometry(barcode, nominal, true);
    }

    /**
     * As {@link #geometry(String, EstimatedGeometry)}, but a learnt scale only if {@code learnt}: the drive-reported
     * wrap ends are used by every policy, the scale learnt from locates only by the policies that learn.
     */
    public EstimatedGeometry geometry(String barcode, EstimatedGeometry nominal, boolean learnt) {
        Layout l = barcode == null ? null : layouts.get(barcode);
        if (l == null && learnt && barcode != null) {
            MediaPrior p = priors.get(nominal.media());
            return p == null || p.geometry == null ? nominal : p.geometry;
        }
        return l == null || !(learnt || l.reported) ? nominal : l.geometry;
    }

    /**
     * A locate on {@code barcode} from block {@code fromBlock} (where the drive was known to be) to {@code toBlock}
     * took {@code millis}; the bytes-per-wrap scale is learnt from it, and the wrap boundaries too if
     * {@code wraps}. Locates with an unknown start or no move are ignored.
     */
    public void located(String barcode, EstimatedGeometry nominal, long fromBlock, long toBlock, long millis,
                        boolean wraps) {
        if (barcode == null || fromBlock < 0 || toBlock < 0 || fromBlock == toBlock || millis <= 0) {
            return;
        }
        MediaPrior start = wraps ? priors.get(nominal.media()) : null;
        Layout l = layouts.computeIfAbsent(barcode, b -> new Layout(nominal, start));
        int i = l.count % HISTORY;
        l.from[i] = fromBlock;
        l.to[i] = toBlock;
        l.seconds[i] = millis / 1000.0;
        l.count++;
        if (l.reported) {
            if (++l.sinceCostFit >= COST_REFIT_EVERY) {
                l.sinceCostFit = 0;
                fitCosts(l);
            }
            return;
        }
        boolean scaleMoved = false;
        int every = l.last != null && l.last.accepted() ? REFIT_EVERY_ACCEPTED : REFIT_EVERY;
        if (++l.sinceFit >= every && l.count >= LayoutFit.MIN_OBSERVATIONS) {
            l.sinceFit = 0;
            Recent r = recent(l, WINDOW);
            LayoutFit.Result f = l.fit.fit(r.from, r.to, r.seconds, r.from.length);
            if (!f.accepted() && l.scale != 1.0
                    && l.fit.stillExplains(l.scale, l.from, l.to, l.seconds, Math.min(l.count, HISTORY))) {
                // the latest window does not tell the scales apart; all the locates still prefer the one learnt
                f = new LayoutFit.Result(l.scale, f.residual(), f.nominalResidual(), f.observations());
            }
            l.last = f;
            double scale = l.last.scale();
            // a new instance only when it moved: the read pass replans the rest of its pass on a new instance
            if (Math.abs(scale - l.scale) >= MIN_CHANGE || (scale == 1.0) != (l.scale == 1.0)) {
                l.scale = scale;
                l.scaleGeometry = withPrior(l.fit.geometry(scale), l.prior);
                l.geometry = l.scaleGeometry;
                l.shift = null;
                l.applied = null;
                scaleMoved = true;
            }
            if (l.prior != null && !priorExplains(l)) {
                usePrior(l, null);
            }
        }
        if (wraps && (++l.sinceWrapFit >= WRAP_REFIT_EVERY || scaleMoved) && l.count >= WrapFit.MIN_OBSERVATIONS) {
            l.sinceWrapFit = 0;
            fitWraps(l, priors.computeIfAbsent(nominal.media(), m -> new MediaPrior()));
        }
        MediaPrior p = wraps ? priors.get(nominal.media()) : null;
        if (p != null && p.costs != l.prior && p.costs != l.dropped && l.applied == null) {
            // a newer prior while no boundary fit of the cartridge's own is in use
            usePrior(l, p.costs);
        }
    }

    /**
     * Orders {@code l} with {@code costs} (null: drops the prior in use) on its scale estimate, unless a boundary fit
     * of its own is in use.
     */
    private static void usePrior(Layout l, LocateCosts costs) {
        if (costs == null) {
            l.dropped = l.prior;
        }
        l.prior = costs;
        l.scaleGeometry = withPrior(l.scaleGeometry.withLocateCosts(null), costs);
        if (l.applied == null) {
            l.geometry = l.scaleGeometry;
        }
    }

    private static EstimatedGeometry withPrior(EstimatedGeometry g, LocateCosts prior) {
        return prior == null ? g : g.withLocateCosts(prior);
    }

    /**
     * Whether the prior's coefficients explain the cartridge's own locates (all kept, on its scale estimate) no
     * worse than the defaults: squared error, forward hops that may have been read through left out.
     */
    private static boolean priorExplains(Layout l) {
        EstimatedGeometry layout = l.scaleGeometry.withLocateCosts(null);
        LocateCostModel prior = new LocateCostModel(layout, l.prior);
        LocateCostModel defaults = LocateCostModel.of(layout);
        double priorError = 0;
        double defaultError = 0;
        int n = Math.min(l.count, HISTORY);
        for (int i = 0; i < n; i++) {
            if (LocateCostFit.mayBeReadThrough(layout, l.from[i], l.to[i], l.seconds[i])) {
                continue;
            }
            double e = prior.locateSeconds(l.from[i], l.to[i]) - l.seconds[i];
            double d = defaults.locateSeconds(l.from[i], l.to[i]) - l.seconds[i];
            priorError += e * e;
            defaultError += d * d;
        }
        return priorError <= defaultError;
    }

    /**
     * Refits the wrap boundaries on the scale estimate; the estimate changes only if the fit moved. An accepted fit on
     * enough locates becomes the media type's prior {@code p}.
     */
    private static void fitWraps(Layout l, MediaPrior p) {
        // from scratch whenever the evidence has doubled or grown by FRESH_EVERY (a fit may sit in a wrong minimum
        // that refining does not leave), and then the refined last fit too, the one with less loss kept; else
        // refining the last fit
        boolean fresh = l.shift == null || l.count >= 2 * l.freshAt || l.count >= l.freshAt + FRESH_EVERY;
        if (fresh) {
            l.freshAt = l.count;
        }
        int n = Math.min(l.count, HISTORY);
        WrapFit.Result r = l.wrapFit.fit(l.scale, fresh ? null : l.shift, p.costs, l.from, l.to, l.seconds, n);
        if (fresh && l.shift != null) {
            WrapFit.Result refined = l.wrapFit.fit(l.scale, l.shift, p.costs, l.from, l.to, l.seconds, n);
            if (refined.loss() < r.loss()) {
                r = refined;
            }
        }
        l.lastWrap = r;
        l.shift = r.shift();
        if (!r.accepted()) {
            if (l.applied != null) {
                l.applied = null;
                l.geometry = l.scaleGeometry;
            }
            return;
        }
        if (l.applied == null || maxDifference(l.applied, r.shift()) >= MIN_SHIFT_CHANGE) {
            l.applied = r.shift();
            l.geometry = r.geometry();
        }
        // the latest fit on at least as many locates as the prior's, or on half the history
        if (r.observations() >= PRIOR_MIN_OBSERVATIONS && r.observations() >= Math.min(p.observations, HISTORY / 2)
                && r.geometry().locateCosts() != null) {
            p.observations = r.observations();
            p.scale = l.scale;
            p.costs = r.geometry().locateCosts();
            p.geometry = withPrior(l.fit.geometry(l.scale), p.costs);
        }
    }

    private static double maxDifference(double[] a, double[] b) {
        double max = 0;
        for (int k = 0; k < a.length; k++) {
            max = Math.max(max, Math.abs(a[k] - b[k]));
        }
        return max;
    }

    /** The latest (at most {@code n}) locates of a cartridge, newest first. */
    private record Recent(long[] from, long[] to, double[] seconds) {
    }

    private static Recent recent(Layout l, int window) {
        int n = Math.min(l.count, Math.min(window, HISTORY));
        Recent r = new Recent(new long[n], new long[n], new double[n]);
        for (int k = 0; k < n; k++) {
            int j = Math.floorMod(l.count - 1 - k, HISTORY);
            r.from[k] = l.from[j];
            r.to[k] = l.to[j];
            r.seconds[k] = l.seconds[j];
        }
        return r;
    }

    private static void fitCosts(Layout l) {
        Recent r = recent(l, WINDOW);
        int n = r.from.length;
        EstimatedGeometry layout = l.geometry.withLocateCosts(null);
        LocateCosts fitted = LocateCostFit.fit(layout, r.from, r.to, r.seconds, n);
        if (fitted == null || (l.costs != null && meanChange(layout, l.costs, fitted, r, n) < COST_MIN_CHANGE)) {
            return;
        }
        l.costs = fitted;
        l.geometry = layout.withLocateCosts(fitted);
    }

    /** Mean relative change of the predicted locate times of the observations from coefficients a to b. */
    private static double meanChange(EstimatedGeometry g, LocateCosts a, LocateCosts b, Recent r, int n) {
        LocateCostModel ma = new LocateCostModel(g, a);
        LocateCostModel mb = new LocateCostModel(g, b);
        double change = 0;
        double total = 0;
        for (int i = 0; i < n; i++) {
            double pa = ma.locateSeconds(r.from[i], r.to[i]);
            change += Math.abs(mb.locateSeconds(r.from[i], r.to[i]) - pa);
            total += pa;
        }
        return total > 0 ? change / total : 0;
    }

    /**
     * The drive reported {@code barcode}'s end-of-wrap blocks (possibly only up to the wrap holding end of data, the
     * last one at end of data: completed by {@link ReportedWrapEnds}): they replace any learnt scale; locate costs
     * learnt on them are kept. Locates observed before stay evidence: their blocks and times are what the drive did,
     * and the cost fit places them on the reported wraps. Throws {@link IllegalArgumentException} for ends it cannot
     * use.
     */
    public void wrapEnds(String barcode, EstimatedGeometry nominal, long[] ends) {
        EstimatedGeometry reported = nominal.withWrapEnds(ReportedWrapEnds.complete(ends, nominal.wraps()));
        Layout l = layouts.computeIfAbsent(barcode, b -> new Layout(nominal, null));
        l.geometry = reported.withLocateCosts(l.costs);
        l.reported = true;
    }

    /**
     * Forgets all that was learnt or reported of {@code barcode}'s layout: its data is gone (a label was written at
     * the start of the tape), so the old wrap ends and locates no longer describe it. Its estimate is nominal again
     * until the drive reports anew (at the next mount) or new locates are learnt.
     */
    public void forget(String barcode) {
        layouts.remove(barcode);
    }

    /** The locate cost coefficients learnt for {@code barcode}, or null (for logs and tests). */
    public LocateCosts learntCosts(String barcode) {
        Layout l = layouts.get(barcode);
        return l == null ? null : l.costs;
    }

    /** The last fit for {@code barcode}, or null (for logs and tests). */
    public LayoutFit.Result lastFit(String barcode) {
        Layout l = layouts.get(barcode);
        return l == null ? null : l.last;
    }

    /** The last wrap boundary fit for {@code barcode}, or null (for logs and tests). */
    public WrapFit.Result lastWrapFit(String barcode) {
        Layout l = layouts.get(barcode);
        return l == null ? null : l.lastWrap;
    }

    /** Cartridges with learnt state (at most {@link #MAX_CARTRIDGES}). */
    public int size() {
        return layouts.size();
    }
}
