package org.tapeq.scheduler.policy;

/**
 * The coefficients of {@link LocateCostModel}, in seconds: the fixed terms of a locate and its travel per tape
 * length. {@link #cta(double)} gives CTA's published LTO-8 fit (the default); {@link LocateCostFit} fits them to the
 * locates a cartridge's drive was seen to make.
 *
 * @param constant        every locate (also the least any locate costs)
 * @param perLength       travel per whole tape length (|deltaLPOS| = 1)
 * @param wrapChange      the target is on another wrap
 * @param bandChange      ... in another band
 * @param directionChange ... on a wrap that runs the other way
 * @param stepBack        same wrap, the target behind the head
 * @param behindOtherWrap another wrap running the same way, the target behind the head in that direction (the
 *                        drive must stop and come back); 0 in CTA's model
 * @param landingZone     subtracted when the move crosses mid-tape (CTA's fitted landing-zone term)
 */
public record LocateCosts(double constant, double perLength, double wrapChange, double bandChange,
                          double directionChange, double stepBack, double behindOtherWrap, double landingZone) {

    public LocateCosts {
        for (double v : new double[] {constant, perLength, wrapChange, bandChange, directionChange, stepBack,
                behindOtherWrap, landingZone}) {
            if (!(v >= 0) || Double.isInfinite(v)) {
                throw new IllegalArgumentException("locate cost coefficients must be finite and >= 0: " + v);
            }
        }
        if (!(perLength > 0)) {
            throw new IllegalArgumentException("seconds per tape length must be positive: " + perLength);
        }
    }

    /** CTA's LTO-8 fixed terms with the given travel per tape length. */
    public static LocateCosts cta(double perLength) {
        return new LocateCosts(LocateCostModel.CONSTANT, perLength, LocateCostModel.WRAP_CHANGE,
                LocateCostModel.BAND_CHANGE, LocateCostModel.DIRECTION_CHANGE, LocateCostModel.STEP_BACK, 0,
                LocateCostModel.LANDING_ZONE_CHANGE);
    }
}
