package org.tapeq.scheduler.policy;

import org.tapeq.scheduler.model.MediaType;

/**
 * Estimated seconds to move the head between two blocks, in the shape of CTA's published LTO-8 cost
 * (../shared/reference/tape-and-anchors.md):
 *
 * <pre>
 *   constant + wrapChange*[wrap differs] + bandChange*[band differs] - landingZoneChange*[other half of tape]
 *            + directionChange*[direction differs] + stepBack*[same wrap, target behind] + perLength*|deltaLPOS|
 *            + behindOtherWrap*[another wrap the same way, target behind]
 * </pre>
 *
 * <p>The coefficients are a {@link LocateCosts}: CTA's (below) unless the geometry carries ones learnt from the
 * cartridge's own locates ({@link LocateCostFit}).
 *
 * with LPOS as a fraction of the tape length ({@link EstimatedGeometry}), so the distance coefficient is seconds per
 * whole tape length.
 *
 * <p>Where the numbers come from:
 * <ul>
 *   <li><b>Reference (CTA's LTO-8 fit):</b> constant 4.29 s, wrap change 6.69 s, band change 3.2 s, landing zone
 *       change -6.04 s, direction change 5.22 s, step back 11.32 s, 0.0006192 s per LPOS unit. The landing
 *       zone is the half of the tape (below or above mid-length) the position is in, as in CTA.</li>
 *   <li><b>Assumed:</b> the fixed terms are mechanical (stop, servo to another wrap, turn round) and carry over
 *       unchanged to LTO-9 and TS1160.</li>
 *   <li><b>Assumed:</b> the distance term is scaled per media so that the model's mean locate from the load
 *       point (block 0) to a uniformly random block equals {@link MediaType#averageLocateMillis()}; for LTO-9
 *       (45 s, reference) that is about 64 s per tape length. Cross-check, outside our reference: CTA
 *       configures its LTO-7M/LTO-8 media with LPOS 2 696..171 097, which with 0.0006192 s/LPOS gives about
 *       104 s per length; our LTO-8 entry (average locate 50 s, itself assumed) gives about 74 s.</li>
 *   <li><b>Assumed:</b> no locate costs less than the constant. CTA's landing-zone term is negative (a fitted
 *       correction for long moves) and would otherwise make a short hop across mid-tape cost less than nothing.</li>
 *   <li><b>Assumed:</b> a target ahead of the head in block order may be reached by reading through the gap at
 *       the native rate when that is cheaper than a locate (the drive keeps streaming, also across a wrap
 *       turn); a target exactly at the head costs nothing.</li>
 * </ul>
 * Reading a span costs its bytes at the native rate ({@link #readSeconds(long, long)}).
 */
public final class LocateCostModel {

    public static final double CONSTANT = 4.29;
    public static final double WRAP_CHANGE = 6.69;
    public static final double BAND_CHANGE = 3.2;
    public static final double LANDING_ZONE_CHANGE = 6.04;
    public static final double DIRECTION_CHANGE = 5.22;
    public static final double STEP_BACK = 11.32;
    /** CTA's LTO-8 distance coefficient, seconds per LPOS unit (reference). */
    public static final double CTA_SECONDS_PER_LPOS = 0.0006192;
    /** LPOS span of LTO-7M/LTO-8 media in CTA's media-type configuration (2 696..171 097); not in our reference. */
    public static final double CTA_LTO8_LPOS_SPAN = 171_097 - 2_696;

    private final EstimatedGeometry geometry;
    private final LocateCosts costs;
    private final double secondsPerLength;
    private final double secondsPerBlock;
    private final int[] bandOfWrap;

    /** A model with CTA's fixed terms and an explicit distance coefficient, in seconds per whole tape length. */
    public LocateCostModel(EstimatedGeometry geometry, double secondsPerLength) {
        this(geometry, LocateCosts.cta(secondsPerLength));
    }

    /** A model with the given coefficients. */
    public LocateCostModel(EstimatedGeometry geometry, LocateCosts costs) {
        this.geometry = geometry;
        this.costs = costs;
        this.secondsPerLength = costs.perLength();
        this.secondsPerBlock = geometry.readSeconds(1);
        this.bandOfWrap = new int[geometry.wraps()];
        for (int w = 0; w < bandOfWrap.length; w++) {
            bandOfWrap[w] = geometry.band(w);
        }
    }

    /**
     * The model for a geometry: the coefficients learnt for it ({@link EstimatedGeometry#locateCosts()}) if any, else
     * CTA's fixed terms with the distance term calibrated to the media's average locate (see class notes).
     */
    public static LocateCostModel of(EstimatedGeometry geometry) {
        LocateCosts learnt = geometry.locateCosts();
        return learnt != null ? new LocateCostModel(geometry, learnt)
                : new LocateCostModel(geometry, calibratedSecondsPerLength(geometry));
    }

    /** The coefficients of this model. */
    public LocateCosts costs() {
        return costs;
    }

    /**
     * Seconds per tape length such that the mean locate from block 0 to a uniform random block equals the media's
     * average locate. The fixed terms are averaged over the wraps and the two tape halves (the floor at the constant
     * never binds there); the distance averages half a length. Falls back to CTA's LTO-8 figure if the media's
     * average locate is too short to be explained by the fixed terms alone.
     */
    static double calibratedSecondsPerLength(EstimatedGeometry g) {
        double fixed = 0;
        for (int w = 0; w < g.wraps(); w++) {
            double f = CONSTANT - LANDING_ZONE_CHANGE / 2;
            if (w != 0) {
                f += WRAP_CHANGE;
            }
            if (g.band(w) != g.band(0)) {
                f += BAND_CHANGE;
            }
            if (!EstimatedGeometry.isForward(w)) {
                f += DIRECTION_CHANGE;
            }
            fixed += f;
        }
        fixed /= g.wraps();
        double perLength = 2 * (g.media().averageLocateMillis() / 1000.0 - fixed);
        return perLength > 1 ? perLength : CTA_SECONDS_PER_LPOS * CTA_LTO8_LPOS_SPAN;
    }

    public EstimatedGeometry geometry() {
        return geometry;
    }

    /** Seconds the head needs to travel one whole tape length (the distance coefficient). */
    public double secondsPerLength() {
        return secondsPerLength;
    }

    /** Estimated seconds to position at block {@code to} with the head at block {@code from}. */
    public double locateSeconds(long from, long to) {
        return locateSeconds(from, geometry.wrap(from), geometry.lpos(from), to, geometry.wrap(to), geometry.lpos(to));
    }

    /** As {@link #locateSeconds(long, long)} for positions already computed. */
    public double locateSeconds(EstimatedGeometry.Position from, EstimatedGeometry.Position to) {
        return locateSeconds(from.block(), from.wrap(), from.lpos(), to.block(), to.wrap(), to.lpos());
    }

    /** The hot-path form: blocks with their precomputed wraps and LPOS. */
    public double locateSeconds(long fromBlock, int fromWrap, double fromLpos,
                                long toBlock, int toWrap, double toLpos) {
        if (fromBlock == toBlock) {
            return 0;
        }
        LocateCosts k = costs;
        double cost = k.constant() + secondsPerLength * Math.abs(toLpos - fromLpos);
        if (fromWrap != toWrap) {
            cost += k.wrapChange();
            if (bandOfWrap[fromWrap] != bandOfWrap[toWrap]) {
                cost += k.bandChange();
            }
            if (((fromWrap ^ toWrap) & 1) != 0) {
                cost += k.directionChange();
            } else if (EstimatedGeometry.isForward(toWrap) ? toLpos < fromLpos : toLpos > fromLpos) {
                cost += k.behindOtherWrap();
            }
        } else if (toBlock < fromBlock) {
            cost += k.stepBack();
        }
        if ((fromLpos < 0.5) != (toLpos < 0.5)) {
            cost -= k.landingZone();
        }
        cost = Math.max(cost, k.constant());
        if (toBlock > fromBlock) {
            cost = Math.min(cost, (toBlock - fromBlock) * secondsPerBlock);
        }
        return cost;
    }

    /** Seconds to read the span {@code [start, end)} at the native rate. */
    public double readSeconds(long start, long end) {
        return (end - start) * secondsPerBlock;
    }
}
