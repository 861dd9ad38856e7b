package org.tapeq.scheduler.policy;

/**
 * tapeq's policy. A queue becomes eligible when it holds a full mount's worth of work (bytes or files), or
 * when its requests stopped arriving for the quiet time (a burst has landed), or when its oldest request is
 * due (maximum wait, or a deadline minus the time a mount needs). A cartridge unmounted less than the remount
 * guard ago waits for the guard unless it has a full mount's worth or a deadline. Among eligible queues the
 * rank is an estimate of the mount's duration (the streaming time it delivers plus one locate per run of requested
 * tape files) plus priority, minus how late the queue's due time is, in seconds; so a queue that has waited an hour
 * longer outranks one with 1.4 TB more at 400 MB/s, and in a burst the longest mounts go first, which leaves the
 * short ones to even out the drives at the end (a list schedule, longest first). A mounted
 * cartridge keeps being served while it has work, and its queue is read in one whole-queue serpentine order.
 */
public final class TapeqMountPolicy implements MountPolicy {

    /** One priority step is worth an hour of waiting. */
    static final double PRIORITY_SECONDS = 3600;
    /**
     * Seconds of positioning per run of requested tape files (one locate each): tapeq's mean locate per file on
     * {@code bulk-recall-scattered} (500 requested files per LTO-9 cartridge, about 12 s; docs/benchmarks.md). Fewer
     * runs further apart cost more each, but then the runs' share of the mount is small anyway. Not scaled by the
     * media's locate speed (docs/scheduler.md, "Rank"); starvation is left to the due term ("Starvation").
     */
    static final double RUN_SECONDS = 12;
    /** Robot exchange, load, first locate and unload, roughly. */
    static final long MOUNT_OVERHEAD_MILLIS = 150_000;
    /** Extra margin before a deadline. */
    static final long DEADLINE_MARGIN_MILLIS = 300_000;

    private final MountCriteria config;
    private final ReadOrder order;

    public TapeqMountPolicy(MountCriteria config) {
        this.config = config;
        this.order = new SerpentineOrder();
    }

    private boolean fullMount(QueueView q) {
        return q.bytes() >= config.minMountBytes() || q.files() >= config.minMountFiles();
    }

    /** When the deadline forces a mount: the deadline minus the time the mount and the reading take. */
    private long deadlineDue(QueueView q) {
        long deadline = q.earliestDeadline();
        if (deadline == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return deadline - MOUNT_OVERHEAD_MILLIS - q.media().streamMillis(q.bytes()) - DEADLINE_MARGIN_MILLIS;
    }

    private long due(QueueView q) {
        long byWait = q.oldestArrival() == Long.MAX_VALUE ? Long.MAX_VALUE : q.oldestArrival() + config.maxWaitMillis();
        return Math.min(byWait, deadlineDue(q));
    }

    @Override
    public long eligibleAt(QueueView q) {
        long at;
        if (fullMount(q) || q.writeOnly()) {
            at = Long.MIN_VALUE;
        } else {
            at = Math.min(q.lastArrival() + config.quietMillis(), due(q));
        }
        if (q.lastUnmount() != Long.MIN_VALUE && !fullMount(q)) {
            at = Math.max(at, Math.min(q.lastUnmount() + config.remountGuardMillis(), deadlineDue(q)));
        }
        return Math.max(at, q.retryNotBefore());
    }

    @Override
    public double rank(QueueView q) {
        long cappedBytes = Math.min(q.bytes(), q.media().capacityBytes());
        double value = q.media().streamMillis(cappedBytes) / 1000d + q.runs() * RUN_SECONDS
                + q.maxPriority() * PRIORITY_SECONDS;
        long due = due(q);
        return due == Long.MAX_VALUE ? value - 1e12 : value - due / 1000d;
    }


    @Override
    public boolean joinsRunningPass() {
        return true;
    }

    @Override
    public boolean learnsLayout() {
        return true;
    }

    @Override
    public ReadOrder readOrder() {
        return order;
    }

    /**
     * Where the drive offers its recommended access order, tapeq hands it every span of the pass in one group in
     * block order (the engine cuts it at the drive's limit, so each request covers one stretch of the tape): the
     * drive orders with the true layout, which tapeq only estimates. Except where the spans fall into at most
     * {@link RunTours#MAX_RUNS} runs read one after the other (datasets recalled from co-located data): there tapeq's
     * exact order of whole runs needs no layout beyond the runs' ends, and a drive ordering span by span (nearest
     * next, as the simulated drive does) would cut the runs up.
     */
    @Override
    public java.util.List<int[]> driveOrderGroups(long[] starts, long[] ends, EstimatedGeometry g) {
        SpanTable t = new SpanTable(0, starts, ends, g);
        double maxHop = SerpentineOrder.RUN_MAX_HOPS[SerpentineOrder.RUN_MAX_HOPS.length - 1];
        if (t.n > 1 && RunTours.runHeads(t, maxHop) != null) {
            return null;
        }
        return java.util.List.of(SpanTable.sortedBy(starts));
    }

}
