package org.tapeq.scheduler.tape.sim;

import java.util.Objects;

/**
 * One set of physical constants for the simulated library: the truth a scheduler is graded against. The same
 * scheduler can be measured on several profiles (a family), so that a result does not rest on one guess of the
 * drive's mechanics.
 *
 * <ul>
 *   <li>fixed costs of a locate (milliseconds): {@code settle} (every locate), {@code headStep} (another wrap),
 *       {@code bandChange} (another servo band), {@code reversal} (the target wrap runs the other way),
 *       {@code backHitch} (a target behind the head in its direction), {@code landingZone} (subtracted when the
 *       move crosses mid-tape, as in CTA's fitted model; a locate never costs less than {@code settle}), and
 *       {@code rewindSettle} (fixed part of a rewind);</li>
 *   <li>{@code fixedScale} multiplies all of these;</li>
 *   <li>{@code locateSecondsPerLength}: seconds for one tape length at locate speed; 0 calibrates it so that the
 *       <em>nominal</em> fixed costs plus travel give the media's average locate (so changing the fixed costs does
 *       not change the speed);</li>
 *   <li>{@code rewindSecondsPerLength}: the same for a rewind; 0 calibrates it to the media's average rewind;</li>
 *   <li>{@code wrapJitter}: largest relative deviation of one wrap's length and capacity from nominal (uniform);
 *       the deviations average out over a cartridge;</li>
 *   <li>{@code capacityOffset}: systematic relative deviation of every wrap's capacity from nominal (capacity
 *       variation between cartridges, compression): +0.03 means every wrap holds 3 % more than the media's
 *       nominal capacity per wrap, and the cartridge as much more in all.</li>
 * </ul>
 */
public record PhysicsProfile(String name, long settleMillis, long headStepMillis, long bandChangeMillis,
                             long reversalMillis, long backHitchMillis, long landingZoneMillis,
                             long rewindSettleMillis, double fixedScale, double locateSecondsPerLength,
                             double rewindSecondsPerLength, double wrapJitter, double capacityOffset) {

    /** The simulator's default: the constants the library always had (docs/simulator.md, "Physics profiles"). */
    public static final PhysicsProfile NOMINAL = new PhysicsProfile("nominal", 2_500, 3_500, 3_000, 2_500, 5_000, 0,
            2_500, 1, 0, 0, 0.02, 0);

    public PhysicsProfile {
        Objects.requireNonNull(name, "name");
        for (long v : new long[] {settleMillis, headStepMillis, bandChangeMillis, reversalMillis, backHitchMillis,
                landingZoneMillis, rewindSettleMillis}) {
            if (v < 0) {
                throw new IllegalArgumentException("physics profile " + name + ": a fixed cost is negative: " + v);
            }
        }
        if (!(fixedScale > 0) || !(locateSecondsPerLength >= 0) || !(rewindSecondsPerLength >= 0)) {
            throw new IllegalArgumentException("physics profile " + name
                    + ": fixedScale must be > 0 and the seconds per length >= 0");
        }
        if (!(wrapJitter >= 0 && wrapJitter < 0.5)) {
            throw new IllegalArgumentException("physics profile " + name + ": wrapJitter must be in [0, 0.5): "
                    + wrapJitter);
        }
        if (!(capacityOffset > -0.5 && capacityOffset < 0.5)) {
            throw new IllegalArgumentException("physics profile " + name + ": capacityOffset must be in (-0.5, 0.5): "
                    + capacityOffset);
        }
    }

    long scaled(long millis) {
        return Math.round(millis * fixedScale);
    }
}
