package org.tapeq.scheduler.engine.dispatch;

/**
 * How much drive time background work may take from user work that waits for drives
 * ({@code scheduler.backgroundShare}), counted over one contention episode. Owned by {@link BackgroundWork}, on
 * the loop.
 *
 * <p>Design notes. An <em>episode</em> begins when user work is seen left unserved while a background slice holds
 * a drive (after a dispatch pass, or by a slice at its safe point: a ready queue the slice's drive would take and
 * no free drive for it) after none was for {@code holdoff} ms, and ends {@code holdoff} ms after the last such
 * sighting. User work that got a drive is no sighting.
 * Over an episode it sums the drive-milliseconds background slices held ({@code background}) and those user work
 * held ({@code user}); the caller advances the sums with the drive counts in force since the last call, before
 * every change of them. Background work may keep a drive while user work waits only while {@code background <
 * share * user}, and take one only while {@code background + holdoff <= share * user}. A slice begun before the episode
 * does not keep its drive at all ({@link BackgroundWork}): every drive background work held when the episode began
 * is given back at its next safe point, so a short campaign is not delayed by whole background batches. A long one earns background work its share as it goes: user work needing drive time
 * {@code W} on {@code N} drives then ends by {@code (W + share * W) / N}, i.e. within {@code 1 + share} times its
 * time alone, plus the safe-point waits (docs/scheduler.md). The take margin is the hysteresis: a task that took a
 * drive has earned at least {@code holdoff} ms on it before the sums can make it give the drive back, so a slice
 * and a mount are not traded for a few seconds of work.
 */
final class ShareBudget {

    private final double share;
    private final long holdoffMillis;
    private boolean episode;
    private long lastWait;
    private long lastAdvance;
    private double backgroundMillis;
    private double userMillis;
    private long episodes;

    ShareBudget(double share, long holdoffMillis) {
        this.share = share;
        this.holdoffMillis = holdoffMillis;
    }

    /**
     * Adds the drive time since the last call: {@code backgroundDrives} drives ran a slice and {@code userDrives}
     * user work, all along. Call before either count changes.
     */
    void advance(long now, int backgroundDrives, int userDrives) {
        if (episode) {
            long until = Math.min(now, lastWait + holdoffMillis);
            long dt = Math.max(0, until - lastAdvance);
            backgroundMillis += (double) dt * backgroundDrives;
            userMillis += (double) dt * userDrives;
            if (now >= lastWait + holdoffMillis) {
                episode = false;
            }
        }
        lastAdvance = now;
    }

    /** User work waits for a drive now: begins an episode if none runs, else extends it. Call after advance. */
    void userWaiting(long now) {
        if (!episode) {
            episode = true;
            episodes++;
            backgroundMillis = 0;
            userMillis = 0;
            lastAdvance = now;
        }
        lastWait = now;
    }

    /** Whether an episode runs: user work waited for a drive less than {@code holdoff} ms ago. */
    boolean inEpisode(long now) {
        return episode && now < lastWait + holdoffMillis;
    }

    /** When the episode ends if no user work waits meanwhile. */
    long episodeEnd() {
        return lastWait + holdoffMillis;
    }

    /** Whether a slice may keep its drive while user work waits (see the class comment). */
    boolean mayKeep() {
        return backgroundMillis < share * userMillis;
    }

    /** Whether a task may take a drive user work would take (see the class comment). */
    boolean mayTake() {
        return backgroundMillis + holdoffMillis <= share * userMillis;
    }

    /** Drive-milliseconds background work held during the current (or last) episode. */
    long backgroundMillis() {
        return (long) backgroundMillis;
    }

    /** Drive-milliseconds user work held during the current (or last) episode. */
    long userMillis() {
        return (long) userMillis;
    }

    /** Episodes begun. */
    long episodes() {
        return episodes;
    }
}
