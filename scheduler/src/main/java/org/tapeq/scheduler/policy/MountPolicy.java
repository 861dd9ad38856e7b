package org.tapeq.scheduler.policy;

/**
 * Decides when a queue deserves a mount, which one goes first, and in which order a mounted cartridge is
 * read. The engine does the rest the same way for every policy: drive and group caps, fair share, never two
 * drives on one cartridge, retries. Implementations are registered by name in {@link MountPolicies}.
 *
 * <p>{@link #rank} must not depend on the current time, so the engine can keep queues in a sorted index
 * and decide a mount in logarithmic time; ageing is expressed through arrival times instead.
 */
public interface MountPolicy {

    /** Earliest loop time at which the queue may be mounted (may be in the past). */
    long eligibleAt(QueueView queue);

    /** Order of eligible queues: higher first. Time-invariant. */
    double rank(QueueView queue);

    /**
     * Whether a drive that has just finished a pass on a mounted queue with more work should keep serving
     * it rather than switch to {@code best}, the best eligible other queue (null if none).
     */
    default boolean keepMounted(QueueView mounted, QueueView best) {
        return true;
    }

    /** Order of reads on a mounted cartridge. */
    ReadOrder readOrder();

    /** Whether reads arriving during a pass are planned into it (else they wait for the next pass). */
    default boolean joinsRunningPass() {
        return false;
    }

    /**
     * Whether the read order uses each cartridge's learnt layout ({@link CartridgeLayouts}: its locates so far, or
     * the drive-reported wrap ends) in place of the nominal estimate.
     */
    default boolean learnsLayout() {
        return false;
    }

    /**
     * Whether, learning the layout, the read order also learns each wrap's boundaries ({@link WrapFit}) rather than
     * only the bytes-per-wrap scale ({@link LayoutFit}).
     */
    default boolean learnsWraps() {
        return learnsLayout();
    }

    /**
     * Where the drive offers its recommended access order ({@code TapeLibrary.accessOrderLimit}): the groups of
     * spans (indices of {@code starts}/{@code ends}, as for {@link ReadOrder}) the policy hands to the drive, read
     * one group after the other, each in the order the drive recommends. Null (the default): the policy orders the
     * reads itself even where the drive could.
     */
    default java.util.List<int[]> driveOrderGroups(long[] starts, long[] ends, EstimatedGeometry g) {
        return null;
    }

    /** Most read units served per pass before the policy is asked again; the whole queue by default. */
    default int passLimit() {
        return Integer.MAX_VALUE;
    }
}
