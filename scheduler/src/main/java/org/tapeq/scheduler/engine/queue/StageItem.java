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
    /** The catalog's form of an Adler-32 checksum: this prefix and eight lower-case hex digits. */
    private static final String ADLER32 = "adler32:";

    private final StageRequest request;
    private final long arrival;
    private final int tapeFile;
    private final long block;
    private final long offset;
    private final long size;
    /** The catalog's checksum if it is not a canonical Adler-32 ({@link #ADLER32}), else null. */
    private final String checksum;
    /** A canonical Adler-32 checksum's value, kept as an int: ten million strings would be half a GB. */
    private final int adler32;
    private final boolean isAdler32;
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
        this.isAdler32 = checksum != null && checksum.length() == ADLER32.length() + 8 && checksum.startsWith(ADLER32)
                && isLowerHex(checksum, ADLER32.length());
        this.adler32 = isAdler32 ? Integer.parseUnsignedInt(checksum, ADLER32.length(), checksum.length(), 16) : 0;
        this.checksum = isAdler32 ? null : checksum;
    }

    private static boolean isLowerHex(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
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
        if (isAdler32) {
            String hex = Integer.toHexString(adler32);
            return ADLER32 + "0".repeat(8 - hex.length()) + hex;
        }
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
