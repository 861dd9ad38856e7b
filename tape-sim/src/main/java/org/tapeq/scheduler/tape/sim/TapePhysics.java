package org.tapeq.scheduler.tape.sim;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.tapeq.scheduler.model.MediaType;

/*
 * Design notes: the physical model behind the simulated library (the ground truth a scheduler is graded against).
 *
 * Geometry (TrueWrapMap). A cartridge is linear serpentine tape of W wraps (MediaType.wraps) in B bands
 * (MediaType.bands) of W/B consecutive wraps. Even wraps are recorded from the beginning of tape (BOT) towards the
 * end (EOT), odd wraps back. The longitudinal position (LPOS) is in metres from BOT along a nominal tape length.
 * Data fill wrap 0, then wrap 1 and so on, so a byte offset maps to (wrap, LPOS) through the cumulative wrap
 * capacities and a linear interpolation along the wrap's usable span. Every cartridge is slightly irregular:
 * seeded per barcode, each wrap's usable length deviates by up to +-2 % from nominal (spans are centred on the
 * tape), and with a constant linear density so does its capacity; the capacities are then scaled to add up
 * exactly to the cartridge capacity. A scheduler that assumes capacity/W bytes per wrap therefore lands close
 * to, but not exactly on, the true wrap and LPOS (the error is a random walk over the wraps before the target).
 *
 * Head state (Head). Offset, wrap and LPOS of the head; its direction of motion is the direction of its wrap,
 * because every operation leaves the head positioned to continue reading or writing that wrap. After a load the
 * head is at offset 0 (wrap 0, near BOT, moving towards EOT).
 *
 * Locate time from head h to target t, both as (wrap, LPOS):
 *   same wrap, t ahead:    SETTLE + |dLPOS| / v_locate
 *   same wrap, t behind:   SETTLE + |dLPOS| / v_locate + BACK_HITCH
 *   other wrap:            SETTLE + |dLPOS| / v_locate + HEAD_STEP
 *                          + BAND_CHANGE        if the target is in another band
 *                          + REVERSAL           if the target wrap runs the other way
 *                          + BACK_HITCH         if it runs the same way but the target is behind the head
 *   and for any t ahead in logical order, at most the time to read through to it at streaming rate (streaming
 *   crosses wrap turns as a read of a long file does)
 * A back-hitch is stop, run back past the target, stop and run forward again: the two reversals it needs are
 * folded into one constant. The penalty constants are assumptions (plausible LTO mechanics, in the spirit of the
 * published CTA/LTO cost models but not copied from them); only their sum over a random locate is calibrated.
 * Rewind time = REWIND_SETTLE + LPOS / v_rewind, to BOT from wherever the head is.
 * Streaming (read, write, read-through) moves at the drive rate: bytes / (rate x per-drive factor).
 * Filemarks, loads, unloads and robot moves are charged by the library, not here.
 *
 * Calibration (constructor). Only vendor figures from MediaType are used, never a scheduler estimate:
 *  - v_locate is chosen so that the expected locate from the load point to a uniformly random byte of a full
 *    nominal tape equals MediaType.averageLocateMillis (LTO-9: 45 s). From BOT the expected penalties are
 *    SETTLE + HEAD_STEP (1 - 1/W) + BAND_CHANGE (1 - 1/B) + REVERSAL / 2 (about 9.5 s for LTO-9) and the expected
 *    distance is half the usable span, so one end-to-end pass at locate speed takes about 71 s on LTO-9.
 *  - v_rewind is chosen so that the expected rewind from a uniformly random position equals
 *    MediaType.averageRewindMillis (LTO-9: 55 s, about 105 s for a full-length rewind). The reference gives the
 *    two averages separately, so rewind and locate speeds are calibrated separately.
 *  - Streaming speed follows from rate and capacity: an LTO-9 wrap holds about 64 GB and streams end to end in
 *    about 160 s at 400 MB/s.
 * The tests (SimPhysicsTest, SimLocateCalibrationTest) measure these averages by Monte Carlo through the library.
 */

/**
 * Timing of tape motion for one media type: locate, rewind and streaming, calibrated from the vendor figures of
 * {@link MediaType}. See the design notes at the top of this file.
 */
final class TapePhysics {

    /** Largest relative deviation of one wrap's usable length and capacity from nominal (the nominal profile). */
    static final double WRAP_JITTER = PhysicsProfile.NOMINAL.wrapJitter();
    /** Run back past a target behind the head and forward again (two reversals), nominal profile. */
    static final long BACK_HITCH_MILLIS = PhysicsProfile.NOMINAL.backHitchMillis();

    private record Key(MediaType media, PhysicsProfile profile) {
    }

    private static final Map<Key, TapePhysics> CACHE = new ConcurrentHashMap<>();

    private final MediaType media;
    private final PhysicsProfile profile;
    private final double tapeMetres;
    private final int wrapsPerBand;
    private final double locateMillisPerMetre;
    private final double rewindMillisPerMetre;
    private final long settle;
    private final long headStep;
    private final long bandChange;
    private final long reversal;
    private final long backHitch;
    private final long landingZone;
    private final long rewindSettle;

    private TapePhysics(MediaType media, PhysicsProfile profile) {
        this.media = media;
        this.profile = profile;
        this.tapeMetres = tapeMetres(media);
        this.wrapsPerBand = Math.max(1, media.wraps() / media.bands());
        this.settle = profile.scaled(profile.settleMillis());
        this.headStep = profile.scaled(profile.headStepMillis());
        this.bandChange = profile.scaled(profile.bandChangeMillis());
        this.reversal = profile.scaled(profile.reversalMillis());
        this.backHitch = profile.scaled(profile.backHitchMillis());
        this.landingZone = profile.scaled(profile.landingZoneMillis());
        this.rewindSettle = profile.scaled(profile.rewindSettleMillis());

        // calibrated with the nominal fixed costs, so that a profile's fixed costs do not change its speed
        PhysicsProfile n = PhysicsProfile.NOMINAL;
        double nominalSpan = tapeMetres / (1 + n.wrapJitter());
        double meanLocateDistance = nominalSpan / 2;
        double expectedPenalties = n.settleMillis()
                + n.headStepMillis() * (1 - 1d / media.wraps())
                + n.bandChangeMillis() * (1 - 1d / media.bands())
                + n.reversalMillis() * 0.5;
        double locateTravel = Math.max(media.averageLocateMillis() - expectedPenalties,
                0.25 * media.averageLocateMillis());
        this.locateMillisPerMetre = profile.locateSecondsPerLength() > 0
                ? profile.locateSecondsPerLength() * 1000 / tapeMetres : locateTravel / meanLocateDistance;

        double rewindTravel = Math.max(media.averageRewindMillis() - n.rewindSettleMillis(),
                0.25 * media.averageRewindMillis());
        this.rewindMillisPerMetre = profile.rewindSecondsPerLength() > 0
                ? profile.rewindSecondsPerLength() * 1000 / tapeMetres : rewindTravel / (tapeMetres / 2);
    }

    /** The (cached) physics of a media type under the nominal profile. */
    static TapePhysics of(MediaType media) {
        return of(media, PhysicsProfile.NOMINAL);
    }

    /** The (cached) physics of a media type under a profile. */
    static TapePhysics of(MediaType media, PhysicsProfile profile) {
        return CACHE.computeIfAbsent(new Key(media, profile), k -> new TapePhysics(k.media(), k.profile()));
    }

    /** Nominal tape length in metres. It only sets the unit of LPOS: all speeds are calibrated per length. */
    private static double tapeMetres(MediaType media) {
        Map<String, Double> known = Map.of("LTO-8", 960d, "LTO-9", 1035d, "TS1160", 1100d);
        return known.getOrDefault(media.name(), 1000d);
    }

    double tapeMetres() {
        return tapeMetres;
    }

    /** The irregular geometry of one cartridge, the same for the same barcode, capacity and seed. */
    TrueWrapMap geometry(String barcode, long capacityBytes, long seed) {
        long mixed = seed * 0x9E3779B97F4A7C15L ^ (long) barcode.hashCode() * 0xC2B2AE3D27D4EB4FL;
        return new TrueWrapMap(media.wraps(), capacityBytes, tapeMetres, profile.wrapJitter(),
                profile.capacityOffset(), mixed);
    }

    /** Where the head is when it is positioned at a byte offset. */
    Head headAt(TrueWrapMap geometry, long offset) {
        int wrap = geometry.wrapOf(offset);
        return new Head(offset, wrap, geometry.lpos(wrap, offset));
    }

    int band(int wrap) {
        return wrap / wrapsPerBand;
    }

    /**
     * Milliseconds to move from {@code from} to {@code to}, ready to read or write there.
     *
     * @param bytesPerSecond streaming rate of the drive, for reading through short forward hops
     */
    long locateMillis(Head from, Head to, double bytesPerSecond) {
        if (from.offset() == to.offset()) {
            return 0;
        }
        double deltaLpos = to.lpos() - from.lpos();
        double millis = settle + Math.abs(deltaLpos) * locateMillisPerMetre;
        if (from.wrap() == to.wrap()) {
            if (to.offset() < from.offset()) {
                millis += backHitch;
            }
        } else {
            millis += headStep;
            if (band(from.wrap()) != band(to.wrap())) {
                millis += bandChange;
            }
            if (from.direction() != to.direction()) {
                millis += reversal;
            } else if (deltaLpos * to.direction() < 0) {
                millis += backHitch;
            }
        }
        if (landingZone > 0 && (from.lpos() < tapeMetres / 2) != (to.lpos() < tapeMetres / 2)) {
            millis = Math.max(settle, millis - landingZone);
        }
        if (to.offset() > from.offset()) {
            millis = Math.min(millis, streamMillisExact(to.offset() - from.offset(), bytesPerSecond));
        }
        return Math.round(millis);
    }

    /** Milliseconds to rewind to BOT from the head's position. */
    long rewindMillis(Head from) {
        return Math.round(rewindSettle + from.lpos() * rewindMillisPerMetre);
    }

    /**
     * Milliseconds to bring the tape back to BOT for an unload: a plain rewind, or a locate to the start of the
     * tape (offset 0, at locate speed) and the short rewind from there, whichever is quicker, as a drive would.
     */
    long unloadRewindMillis(Head from, Head start) {
        return Math.min(rewindMillis(from), locateMillis(from, start, Double.MAX_VALUE) + rewindMillis(start));
    }

    /** Milliseconds to stream the bytes at the given rate. */
    static long streamMillis(long bytes, double bytesPerSecond) {
        return Math.round(streamMillisExact(bytes, bytesPerSecond));
    }

    private static double streamMillisExact(long bytes, double bytesPerSecond) {
        return bytes * 1000d / bytesPerSecond;
    }

    /** Milliseconds for a full-length pass at locate speed. */
    double fullLocatePassMillis() {
        return tapeMetres * locateMillisPerMetre;
    }

    /** Milliseconds for a full-length rewind (excluding the fixed part). */
    double fullRewindPassMillis() {
        return tapeMetres * rewindMillisPerMetre;
    }
}
