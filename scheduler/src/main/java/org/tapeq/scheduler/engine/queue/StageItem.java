package org.tapeq.scheduler.engine.queue;

import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.model.StageRequest;

/**
 * A stage request in a cartridge queue, with the part of its catalog location the read needs. Kept small:
 * ten million of them must fit in a few GB (docs/benchmarks.md), so it is the request itself (it extends
 * {@link StageRequest}, whose fields it takes over when admitted: the caller's request object is not kept) and
 * what only a failed read needs ({@link Retry}) is kept apart. {@link #request()} is this object; equality is
 * identity (two entries are two reads), while a {@link StageRequest} compared with it compares the fields.
 *
 * <p>Its life: queued, being read, queued again after a failed read (with a backoff and a drive to avoid),
 * done. Only the engine's one finish path marks it done ({@link #markDone()}), which also takes it off its
 * queue's counters.
 */
public final class StageItem extends StageRequest implements Ticket {

    private static final byte QUEUED = 0;
    private static final byte READING = 1;
    private static final byte DONE = 2;

    /** What an entry made without a request carries (a member to checksum): no pnfsid, no target. */
    private static final StageRequest NO_REQUEST = new StageRequest(-1, "", -1, null, null, "", null, 0, 0, null);

    private final long arrival;
    private final int tapeFile;
    private final long block;
    private final long offset;
    private final long size;
    /** The catalog's checksum if it is not a canonical Adler-32 ({@link Checksums#isCanonicalAdler32}), else null. */
    private final String checksum;
    /** A canonical Adler-32 checksum's value, kept as an int: ten million strings would be half a GB. */
    private final int adler32;
    private final boolean isAdler32;
    private WorkQueue queue;
    private byte state;
    private boolean cancelled;
    private byte attempts;
    /** Set after a failed read only: most entries never fail, and ten million would carry it. */
    private Retry retry;

    /** When and where a failed read may be tried again. */
    private record Retry(long notBefore, String excludedDrive) {
    }

    /**
     * @param request the request it queues (its fields are copied, the object is not kept), or null for an entry
     *                that only describes a member's place and checksum
     * @param size    the catalog's size of the file (the request's, if it gave one, was checked to be the same)
     */
    public StageItem(StageRequest request, long arrival, int tapeFile, long block, long offset, long size,
                     String checksum) {
        super(request == null ? NO_REQUEST : request);
        this.arrival = arrival;
        this.tapeFile = tapeFile;
        this.block = block;
        this.offset = offset;
        this.size = size;
        this.isAdler32 = Checksums.isCanonicalAdler32(checksum);
        this.adler32 = isAdler32 ? (int) Checksums.parse(checksum) : 0;
        this.checksum = isAdler32 ? null : checksum;
    }

    /** This entry: it is the request. */
    @Override
    public StageRequest request() {
        return this;
    }

    /** Identity: two entries are two reads, even of equal requests. */
    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
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

    /** The catalog's size of the file. */
    @Override
    public long size() {
        return size;
    }

    /** The checksum the catalog has, or null. */
    public String checksum() {
        return isAdler32 ? Checksums.formatInt(adler32) : checksum;
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
        if (state == QUEUED && queue != null) {
            queue.readStarted();
        }
        state = READING;
    }

    /** Back in the queue after a failed read. */
    public void requeued() {
        if (state == READING && queue != null) {
            queue.readStopped();
        }
        state = QUEUED;
    }

    /**
     * Ends it: it leaves its queue's counters. Returns false if it was done already (an outcome is given once).
     */
    public boolean markDone() {
        if (state == DONE) {
            return false;
        }
        if (state == READING && queue != null) {
            queue.readStopped();
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
        this.retry = new Retry(notBefore, drive);
    }

    /** Earliest time of the next read (after a failed one), or Long.MIN_VALUE. */
    public long notBefore() {
        return retry == null ? Long.MIN_VALUE : retry.notBefore();
    }

    /** The drive the last read failed on, or null. */
    public String excludedDrive() {
        return retry == null ? null : retry.excludedDrive();
    }
}
