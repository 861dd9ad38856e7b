package org.tapeq.scheduler.policy;

/**
 * The baseline of dCache's own recall scheduler, the SrmManager's {@code tape-recall-scheduling} bring-online
 * strategy, with the defaults its requirements checker declares (see docs/simulator.md for the sources).
 *
 * <p>Design notes. dCache keeps one queue of bring-online requests per tape and releases a tape's whole queue
 * to the pools at once ("activates" it). A tape is released when its oldest request has waited
 * {@link #MAX_WAIT_MILLIS}, or when no new request has arrived for it for {@link #MIN_WAIT_MILLIS} and its
 * requested volume is at least {@link #MIN_CAPACITY_PERCENT} % of the tape's capacity or
 * {@link #MIN_USED_PERCENT} % of what is written on it. Otherwise (and the request-count criterion is off by
 * default) it waits. Requests that arrive after a release form a new queue that goes through the same test.
 * Released requests reach the tape system in arrival order, so a mounted tape is read in arrival order. The
 * "at most one active tape" rule is not modelled: a tape is active only while its requests are being handed to
 * the pools (one per request slot freed), which within the in-progress limit takes no time, so it caps no drive.
 * The rank is oldest request first, which is dCache's order for tapes released by age; when several tapes pass
 * the volume test at the same moment dCache takes the largest first, which a time-invariant rank cannot
 * express.
 */
public final class DcacheMountPolicy implements MountPolicy {

    static final long MIN_WAIT_MILLIS = 120_000;
    static final long MAX_WAIT_MILLIS = 3_600_000;
    static final int MIN_CAPACITY_PERCENT = 80;
    static final int MIN_USED_PERCENT = 95;

    private final ReadOrder order = new ArrivalOrder();

    @Override
    public long eligibleAt(QueueView q) {
        if (q.writeOnly()) {
            return q.retryNotBefore(); // the recall scheduler sees bring-online requests only
        }
        long expired = q.oldestArrival() + MAX_WAIT_MILLIS;
        long at = volumeSufficient(q) ? Math.min(expired, q.lastArrival() + MIN_WAIT_MILLIS) : expired;
        return Math.max(at, q.retryNotBefore());
    }

    /** Whether the requested bytes reach the share of the tape's capacity, or nearly all it holds. */
    static boolean volumeSufficient(QueueView q) {
        long used = q.cartridgeUsedBytes();
        if (used > 0 && q.bytes() * 100.0 >= used * (double) MIN_USED_PERCENT) {
            return true;
        }
        return q.bytes() * 100.0 >= q.media().capacityBytes() * (double) MIN_CAPACITY_PERCENT;
    }

    @Override
    public double rank(QueueView q) {
        return -(double) q.oldestArrival();
    }

    @Override
    public ReadOrder readOrder() {
        return order;
    }
}
