package org.tapeq.scheduler.engine.queue;

import org.tapeq.scheduler.model.StageRequest;

/**
 * A stage request in a cartridge queue, with the part of its catalog location the read needs. Kept small:
 * ten million of them must fit in a few GB (docs/benchmarks.md).
 *
 * <p>Its life: queued, being read, queued again after a failed read (with a backoff and a drive to avoid),
 * done. Only the engine's one finish path marks it done ({@link #markDone()}), which also takes it off its
 * queue's counters.
 */
public final class StageItem implements Ticket {

    private static final byte QUEUED = 0;
    private static final byte READING = 1;
    private static final byte DONE = 2;

    private final StageRequest request;
    private final long arrival;
    private final int tapeFile;
    private final long block;
    private final long offset;
    private final long size;
    private final String checksum;
    private WorkQueue queue;
    private byte state;
    private boolean cancelled;
    private byte attempts;
    private long notBefore = Long.MIN_VALUE;
    private String excludedDrive;

    public StageItem(StageRequest request, long arrival, int tapeFile, long block, long offset, long size,
                     String checksum) {
        this.request = request;
        this.arrival = arrival;
        this.tapeFile = tapeFile;
        this.block = block;
        this.offset = offset;
        this.size = size;
        this.checksum = checksum;
    }

    @Override
    public StageRequest request() {
        return request;
    }

    public long arrival() {
        return arrival;
    }

    public int tapeFile() {
        return tapeFile;
    }

    /** First block of the member's bytes. */
    public long block() {
        return block;
    }

    /** Offset of the member in its tape file. */
    public long offset() {
        return offset;
    }

    public long size() {
        return size;
    }

    /** The checksum the catalog has, or null. */
    public String checksum() {
        return checksum;
    }

    /** The queue it was admitted to, or null (rejected before admission). */
    public WorkQueue queue() {
        return queue;
    }

    void admittedTo(WorkQueue q) {
        queue = q;
    }

    /** Waiting to be read: queued (possibly in backoff) and not cancelled. */
    public boolean pending() {
        return state == QUEUED && !cancelled;
    }

    /** Queued (cancelled or not), not being read and not done. */
    public boolean queued() {
        return state == QUEUED;
    }

    public boolean done() {
        return state == DONE;
    }

    public boolean cancelled() {
        return cancelled;
    }

    /** Marks the request cancelled; a read in progress still finishes. */
    public void cancel() {
        cancelled = true;
    }

    /** A drive reads it now. */
    public void reading() {
        state = READING;
    }

    /** Back in the queue after a failed read. */
    public void requeued() {
        state = QUEUED;
    }

    /**
     * Ends it: it leaves its queue's counters. Returns false if it was done already (an outcome is given once).
     */
    public boolean markDone() {
        if (state == DONE) {
            return false;
        }
        state = DONE;
        if (queue != null) {
            queue.readGone(this);
        }
        return true;
    }

    /** Counts one more failed read; returns the attempts so far. */
    public int failedAttempt() {
        return ++attempts;
    }

    public int attempts() {
        return attempts;
    }

    /** Retried no earlier than {@code notBefore}, preferably not on {@code drive}. */
    public void retryAfter(long notBefore, String drive) {
        this.notBefore = notBefore;
        this.excludedDrive = drive;
    }

    /** Earliest time of the next read (after a failed one), or Long.MIN_VALUE. */
    public long notBefore() {
        return notBefore;
    }

    /** The drive the last read failed on, or null. */
    public String excludedDrive() {
        return excludedDrive;
    }
}
