package org.tapeq.scheduler.policy;

/**
 * The baseline of CTA (../shared/reference/tape-and-anchors.md): a queue qualifies at 500 GB or 10 000 files,
 * or when its oldest request is older than the minimum age; queues go by priority, then age; a mounted tape
 * is read in file-sequence batches of at most 4 000 files or 80 GB, each ordered by CTA's software RAO from the
 * beginning of tape ({@link CtaRecallOrder}).
 */
public final class CtaMountPolicy implements MountPolicy {

    static final long MIN_BYTES = 500_000_000_000L;
    static final long MIN_FILES = 10_000;
    /** CTA mount policies set this per activity; 5 minutes is assumed, not from the reference. */
    static final long MIN_AGE_MILLIS = 300_000;

    private final ReadOrder order = new CtaRecallOrder();

    @Override
    public long eligibleAt(QueueView q) {
        long at = q.bytes() >= MIN_BYTES || q.files() >= MIN_FILES || q.writeOnly()
                ? Long.MIN_VALUE : q.oldestArrival() + MIN_AGE_MILLIS;
        return Math.max(at, q.retryNotBefore());
    }

    @Override
    public double rank(QueueView q) {
        return q.maxPriority() * 1e13 - q.oldestArrival();
    }


    @Override
    public ReadOrder readOrder() {
        return order;
    }

    /**
     * CTA hands each batch to the drive where the drive offers its recommended access order (enterprise and LTO-9
     * full-height drives: {@code EnterpriseRAOAlgorithm::performRAO}), in pieces of at most the drive's limit.
     */
    @Override
    public java.util.List<int[]> driveOrderGroups(long[] starts, long[] ends, EstimatedGeometry g) {
        return CtaRecallOrder.batches(starts, ends, g.blockSize());
    }

    @Override
    public int passLimit() {
        return CtaRecallOrder.MAX_FILES;
    }
}
