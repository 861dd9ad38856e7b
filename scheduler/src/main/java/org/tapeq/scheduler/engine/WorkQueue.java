package org.tapeq.scheduler.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;

import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.policy.QueueView;

/**
 * The work waiting for one cartridge (its stage requests and the aggregates bound to it for co-location),
 * or, with no barcode, the aggregates of one tape family waiting for any appendable cartridge.
 *
 * <p>Counters are exact for files and bytes (cancellation adjusts them in O(1)); the oldest arrival is found
 * by skipping finished items at the head of the arrival-ordered list; priority and deadline are running
 * maxima/minima refreshed by {@link #refresh} at each pass, so they can be stale high after cancellations,
 * which only makes a queue look more urgent than it is until its next pass.
 */
final class WorkQueue implements QueueView {

    enum Slot { NONE, WAITING, READY }

    final String barcode;
    final String family;
    final MediaType media;
    String group;
    final ArrayList<StageItem> reads = new ArrayList<>();
    private int head;
    private int finished;
    final ArrayDeque<PendingAggregate> writes = new ArrayDeque<>();
    long files;
    long bytes;
    int maxPriority;
    long earliestDeadline = Long.MAX_VALUE;
    long lastArrival = Long.MIN_VALUE;
    long lastUnmount = Long.MIN_VALUE;
    long retryNotBefore = Long.MIN_VALUE;
    /** Reads that arrived since the current pass was planned. */
    int arrivedDuringPass;

    // Index state, owned by QueueIndex.
    Slot slot = Slot.NONE;
    double rankKey;
    boolean writeOnlyKeyed;
    long eligibleKey;
    final long seq;
    String blockedReason;
    /** The drive the last error happened on; another drive is preferred for the next mount. */
    String avoidDrive;
    /** The drive holding this cartridge (busy or idle), or null. Only for cartridge queues. */
    DriveRunner drive;
    /** Drives currently writing this family queue's aggregates. Only for family queues. */
    int writers;

    WorkQueue(String barcode, String family, MediaType media, String group, long seq) {
        this.barcode = barcode;
        this.family = family;
        this.media = media;
        this.group = group;
        this.seq = seq;
    }

    boolean isFamilyQueue() {
        return barcode == null;
    }

    String name() {
        return barcode != null ? barcode : "family:" + family;
    }

    void addRead(StageItem item) {
        reads.add(item);
        item.queue = this;
        files++;
        bytes += item.size;
        note(item.arrival, item.request.priority(), item.request.deadline());
    }

    void addWrite(PendingAggregate agg) {
        writes.add(agg);
        files += agg.members.size();
        bytes += agg.bytes;
        note(agg.opened, agg.priority, Long.MAX_VALUE);
    }

    void addWriteFirst(PendingAggregate agg) {
        writes.addFirst(agg);
        files += agg.members.size();
        bytes += agg.bytes;
        note(agg.opened, agg.priority, Long.MAX_VALUE);
    }

    private void note(long arrival, int priority, long deadline) {
        lastArrival = Math.max(lastArrival, arrival);
        maxPriority = Math.max(maxPriority, priority);
        if (deadline > 0) {
            earliestDeadline = Math.min(earliestDeadline, deadline);
        }
    }

    /** A read left the queue (served, failed or cancelled). */
    void readGone(StageItem item) {
        files--;
        bytes -= item.size;
        if (++finished > 1024 && finished > reads.size() / 2) {
            compact();
        }
    }

    /** A write left the queue. */
    PendingAggregate takeWrite() {
        PendingAggregate agg = writes.poll();
        if (agg != null) {
            files -= agg.members.size();
            bytes -= agg.bytes;
        }
        return agg;
    }

    private void compact() {
        ArrayList<StageItem> keep = new ArrayList<>(reads.size() - finished + 16);
        for (StageItem it : reads) {
            if (it.state != StageItem.DONE) {
                keep.add(it);
            }
        }
        reads.clear();
        reads.addAll(keep);
        head = 0;
        finished = 0;
    }

    /** Recomputes priority, deadline and the retry time from the waiting items. O(n). */
    void refresh(long now) {
        int prio = 0;
        long deadline = Long.MAX_VALUE;
        long soonestRetry = Long.MAX_VALUE;
        boolean anyNow = false;
        for (StageItem it : reads) {
            if (it.pending()) {
                prio = Math.max(prio, it.request.priority());
                if (it.request.deadline() > 0) {
                    deadline = Math.min(deadline, it.request.deadline());
                }
                if (it.notBefore <= now) {
                    anyNow = true;
                } else {
                    soonestRetry = Math.min(soonestRetry, it.notBefore);
                }
            }
        }
        for (PendingAggregate agg : writes) {
            prio = Math.max(prio, agg.priority);
            if (agg.notBefore <= now) {
                anyNow = true;
            } else {
                soonestRetry = Math.min(soonestRetry, agg.notBefore);
            }
        }
        maxPriority = prio;
        earliestDeadline = deadline;
        retryNotBefore = anyNow || soonestRetry == Long.MAX_VALUE ? Long.MIN_VALUE : soonestRetry;
    }

    /** Whether any read is waiting (possibly in backoff). */
    boolean hasPendingReads() {
        return firstPending() >= 0;
    }

    boolean isEmpty() {
        return files <= 0 && writes.isEmpty();
    }

    @Override
    public long files() {
        return files;
    }

    @Override
    public long bytes() {
        return bytes;
    }

    @Override
    public long oldestArrival() {
        int index = firstPending();
        long oldest = index >= 0 ? reads.get(index).arrival : Long.MAX_VALUE;
        PendingAggregate first = writes.peek();
        return first != null ? Math.min(oldest, first.opened) : oldest;
    }

    @Override
    public long lastArrival() {
        return lastArrival;
    }

    @Override
    public int maxPriority() {
        return maxPriority;
    }

    @Override
    public long earliestDeadline() {
        return earliestDeadline;
    }

    @Override
    public long lastUnmount() {
        return lastUnmount;
    }

    @Override
    public long retryNotBefore() {
        return retryNotBefore;
    }

    @Override
    public boolean writeOnly() {
        return !writes.isEmpty() && firstPending() < 0;
    }

    /**
     * Index of the oldest waiting read, or -1. The head only moves past finished items; items being read
     * are skipped without moving it, since a failed read puts them back.
     */
    private int firstPending() {
        while (head < reads.size() && reads.get(head).state == StageItem.DONE) {
            head++;
        }
        for (int i = head; i < reads.size(); i++) {
            if (reads.get(i).pending()) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public MediaType media() {
        return media;
    }
}
