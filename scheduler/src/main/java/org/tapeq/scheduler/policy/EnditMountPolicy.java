package org.tapeq.scheduler.policy;

/**
 * The baseline of ENDIT's tape reader (../shared/reference/tape-and-anchors.md): requests grouped per volume,
 * a volume is mounted 600 s after its last new request (forced 7200 s after its first), never remounted
 * within 7200 s, and read in file-sequence order; the set read is the one present at mount time.
 */
public final class EnditMountPolicy implements MountPolicy {

    static final long QUIET_MILLIS = 600_000;
    static final long FORCE_MILLIS = 7_200_000;
    static final long REMOUNT_GUARD_MILLIS = 7_200_000;

    private final ReadOrder order = new FileSequenceOrder();

    @Override
    public long eligibleAt(QueueView q) {
        long at = q.writeOnly() ? Long.MIN_VALUE
                : Math.min(q.lastArrival() + QUIET_MILLIS, q.oldestArrival() + FORCE_MILLIS);
        if (q.lastUnmount() != Long.MIN_VALUE) {
            at = Math.max(at, q.lastUnmount() + REMOUNT_GUARD_MILLIS);
        }
        return Math.max(at, q.retryNotBefore());
    }

    @Override
    public double rank(QueueView q) {
        return -(double) q.oldestArrival();
    }

    @Override
    public boolean keepMounted(QueueView mounted, QueueView best) {
        return false;
    }

    @Override
    public ReadOrder readOrder() {
        return order;
    }

}
