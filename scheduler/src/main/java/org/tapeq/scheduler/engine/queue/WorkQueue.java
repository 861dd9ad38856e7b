package org.tapeq.scheduler.engine.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.function.LongSupplier;

import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.policy.QueueView;

/**
 * The work waiting for one cartridge (its stage requests and the aggregates bound to it for co-location),
 * or, with no barcode, the aggregates of one tape family waiting for any appendable cartridge.
 *
 * <p>Counters are exact for files, bytes and runs of tape files (a read leaving adjusts them in O(1)); the
 * oldest arrival is found by skipping finished items at the head of the arrival-ordered list; priority and
 * deadline are running maxima/minima refreshed by {@link #refresh} at each pass, so they can be stale high after
 * cancellations, which only makes a queue look more urgent than it is until its next pass.
 *
 * <p>Its state is private and changed only through these methods, on the loop: the drive holding the
 * cartridge claims and releases it ({@link #claim}, {@link #release}); the index keys are written by
 * {@link QueueIndex} alone.
 */
public final class WorkQueue implements QueueView {

    enum Slot { NONE, WAITING, READY }

    /** A drive as a queue sees it: who holds the cartridge, and how to tell it that work arrived. */
    public interface Holder {
        String id();

        /** What the drive is doing, for status. */
        String activity();

        /** A request for the cartridge it holds arrived. */
        void workArrived();

        /** One of its reads was cancelled: a drive waiting for stage buffer space tries again. */
        void retryIfWaiting();
    }

    private final String barcode;
    private final String family;
    private final MediaType media;
    /** The cartridge's written bytes as the catalogue has them now (-1 if unknown). */
    private final LongSupplier usedBytes;
    private String group;
    private final ArrayList<StageItem> reads = new ArrayList<>();
    private final List<StageItem> readsView = Collections.unmodifiableList(reads);
    private int head;
    private int finished;
    /** Reads not done, and of those the ones a drive reads now: the rest wait (the status counts them in O(1)). */
    private long readsLeft;
    private long readsBeingRead;
    private final ArrayDeque<PendingAggregate> writes = new ArrayDeque<>();
    private long files;
    private long bytes;
    private int maxPriority;
    private long earliestDeadline = Long.MAX_VALUE;
    private long lastArrival = Long.MIN_VALUE;
    private long lastUnmount = Long.MIN_VALUE;
    private long retryNotBefore = Long.MIN_VALUE;
    /** Reads that arrived since the current pass was planned. */
    private int arrivedDuringPass;
    /** Runs of the tape files of the reads not yet done, kept exact as reads arrive and leave. */
    private final TapeFileRuns readRuns = new TapeFileRuns();

    // Index state, owned by QueueIndex.
    Slot slot = Slot.NONE;
    double rankKey;
    boolean writeOnlyKeyed;
    long eligibleKey;
    final long seq;
    private String blockedReason;
    /** The drive the last error happened on; another drive is preferred for the next mount. */
    private String avoidDrive;
    /** The drive holding this cartridge (busy or idle), or null. Only for cartridge queues. */
    private Holder drive;
    /** Drives currently writing this family queue's aggregates. Only for family queues. */
    private int writers;

    WorkQueue(String barcode, String family, MediaType media, LongSupplier usedBytes, String group, long seq) {
        this.barcode = barcode;
        this.family = family;
        this.media = media;
        this.usedBytes = usedBytes;
        this.group = group;
        this.seq = seq;
    }

    /** The cartridge of a cartridge queue, or null for a family queue. */
    public String barcode() {
        return barcode;
    }

    /** The family of a family queue, or null. */
    public String family() {
        return family;
    }

    /** The group it is accounted to. */
    public String group() {
        return group;
    }

    /** An empty queue that is not filed is accounted to the group of the request that arrives. */
    public void adoptGroupIfIdle(String requestGroup) {
        if (isEmpty() && slot != Slot.READY && slot != Slot.WAITING) {
            group = requestGroup;
        }
    }

    /** Its reads in arrival order, finished ones included until compacted. */
    public List<StageItem> reads() {
        return readsView;
    }

    /** Its writes in order, read-only. */
    public Collection<PendingAggregate> writesView() {
        return Collections.unmodifiableCollection(writes);
    }

    /** The next write, without taking it, or null. */
    public PendingAggregate peekWrite() {
        return writes.peek();
    }

    public int writeCount() {
        return writes.size();
    }

    public boolean hasWrites() {
        return !writes.isEmpty();
    }

    // ---------------------------------------------------------------- the drive holding it

    /** The drive holding (or mounting) this cartridge, or null. */
    public Holder holder() {
        return drive;
    }

    public boolean isHeld() {
        return drive != null;
    }

    /** {@code d} holds the cartridge (or is about to mount it): no other drive takes the queue. */
    public void claim(Holder d) {
        drive = d;
    }

    /** {@code d} gave the cartridge back; returns whether it was the holder. */
    public boolean release(Holder d) {
        if (drive != d) {
            return false;
        }
        drive = null;
        return true;
    }

    // ---------------------------------------------------------------- family writers

    /** Drives writing this family queue's aggregates now. */
    public int writers() {
        return writers;
    }

    public void writerJoined() {
        writers++;
    }

    public void writerLeft() {
        writers = Math.max(0, writers - 1);
    }

    // ---------------------------------------------------------------- passes, errors, reasons

    /** A read arrived while its drive works through a pass. */
    public void readArrivedDuringPass() {
        arrivedDuringPass++;
    }

    /** Reads that arrived since the current pass was planned. */
    public int arrivedDuringPass() {
        return arrivedDuringPass;
    }

    /** A pass was planned over every waiting read. */
    public void passPlanned() {
        arrivedDuringPass = 0;
    }

    /** Why it cannot move, or null. */
    public String blockedReason() {
        return blockedReason;
    }

    public void blocked(String reason) {
        blockedReason = reason;
    }

    /** The drive the last error happened on, or null. */
    public String avoidDrive() {
        return avoidDrive;
    }

    public void avoid(String driveId) {
        avoidDrive = driveId;
    }

    public void retryNotBefore(long at) {
        retryNotBefore = at;
    }

    /** The cartridge was unloaded now (starts the remount guard). */
    public void unmounted(long now) {
        lastUnmount = now;
    }

    /** Whether it is in the ready set of the index. */
    public boolean isReady() {
        return slot == Slot.READY;
    }

    /** Whether it waits in the index for the time the policy makes it eligible. */
    public boolean isWaiting() {
        return slot == Slot.WAITING;
    }

    /** The policy's rank when it was last filed. */
    public double rankKey() {
        return rankKey;
    }

    /** When the policy makes it eligible, as of its last filing. */
    public long eligibleKey() {
        return eligibleKey;
    }

    public boolean isFamilyQueue() {
        return barcode == null;
    }

    public String name() {
        return barcode != null ? barcode : "family:" + family;
    }

    public void addRead(StageItem item) {
        reads.add(item);
        item.admittedTo(this);
        readsLeft++;
        if (!item.queued()) {
            readsBeingRead++;
        }
        files++;
        bytes += item.size();
        readRuns.add(item.tapeFile());
        note(item.arrival(), item.request().priority(), item.request().deadline());
    }

    public void addWrite(PendingAggregate agg) {
        writes.add(agg);
        files += agg.members().size();
        bytes += agg.bytes();
        note(agg.opened(), agg.priority(), Long.MAX_VALUE);
    }

    public void addWriteFirst(PendingAggregate agg) {
        writes.addFirst(agg);
        files += agg.members().size();
        bytes += agg.bytes();
        note(agg.opened(), agg.priority(), Long.MAX_VALUE);
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
        readsLeft--;
        files--;
        bytes -= item.size();
        readRuns.remove(item.tapeFile());
        if (++finished > 1024 && finished > reads.size() / 2) {
            compact();
        }
    }

    /** A write left the queue. */
    public PendingAggregate takeWrite() {
        PendingAggregate agg = writes.poll();
        if (agg != null) {
            files -= agg.members().size();
            bytes -= agg.bytes();
        }
        return agg;
    }

    private void compact() {
        ArrayList<StageItem> keep = new ArrayList<>(reads.size() - finished + 16);
        for (StageItem it : reads) {
            if (!it.done()) {
                keep.add(it);
            }
        }
        reads.clear();
        reads.addAll(keep);
        head = 0;
        finished = 0;
    }

    /** Recomputes priority, deadline and the retry time from the waiting items. O(n). */
    public void refresh(long now) {
        int prio = 0;
        long deadline = Long.MAX_VALUE;
        long soonestRetry = Long.MAX_VALUE;
        boolean anyNow = false;
        for (StageItem it : reads) {
            if (it.pending()) {
                prio = Math.max(prio, it.request().priority());
                if (it.request().deadline() > 0) {
                    deadline = Math.min(deadline, it.request().deadline());
                }
                if (it.notBefore() <= now) {
                    anyNow = true;
                } else {
                    soonestRetry = Math.min(soonestRetry, it.notBefore());
                }
            }
        }
        for (PendingAggregate agg : writes) {
            prio = Math.max(prio, agg.priority());
            if (agg.notBefore() <= now) {
                anyNow = true;
            } else {
                soonestRetry = Math.min(soonestRetry, agg.notBefore());
            }
        }
        maxPriority = prio;
        earliestDeadline = deadline;
        retryNotBefore = anyNow || soonestRetry == Long.MAX_VALUE ? Long.MIN_VALUE : soonestRetry;
    }

    /** A drive started reading one of its reads ({@link StageItem#reading}). */
    void readStarted() {
        readsBeingRead++;
    }

    /** A read being read went back to waiting or ended ({@link StageItem#requeued}, {@link StageItem#markDone}). */
    void readStopped() {
        readsBeingRead--;
    }

    /** Reads waiting, cancelled or not, not being read and not done ({@link StageItem#queued}); O(1). */
    public long queuedReads() {
        return readsLeft - readsBeingRead;
    }

    /** Whether any read is waiting (possibly in backoff). */
    public boolean hasPendingReads() {
        return firstPending() >= 0;
    }

    public boolean isEmpty() {
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
        long oldest = index >= 0 ? reads.get(index).arrival() : Long.MAX_VALUE;
        PendingAggregate first = writes.peek();
        return first != null ? Math.min(oldest, first.opened()) : oldest;
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
        while (head < reads.size() && reads.get(head).done()) {
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

    /** Exact: the runs of the reads not yet done (kept in O(1) per change), plus one if writes wait. */
    @Override
    public long runs() {
        return readRuns.runs() + (writes.isEmpty() ? 0 : 1);
    }

    @Override
    public long cartridgeUsedBytes() {
        return usedBytes.getAsLong();
    }
}
