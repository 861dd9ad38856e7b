package org.tapeq.loadtest.run;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Every measured request of a run in parallel arrays (a million requests cost about 30 MB): kind, experiment,
 * size, when it was submitted and when it ended (nanoseconds since the start of the measured phase) and how.
 * Requests are added by the one issuing thread and ended by the provider's threads. Running totals per kind feed
 * the live progress and the samples.
 */
public final class RequestLog {

    /** What a request was. */
    public enum Kind { FLUSH, STAGE }

    /** How a request ended. */
    public enum End {
        /** not ended: still outstanding when a run was stopped */
        OUTSTANDING,
        COMPLETED,
        FAILED,
        /** never answered before the timeout, or a completed stage whose file is not on disk */
        LOST
    }

    private final byte[] kind;
    private final byte[] experiment;
    private final long[] size;
    private final long[] submitted;
    private final long[] ended;
    private final byte[] end;
    private volatile int count;
    /** per kind: requests issued, requests ended, bytes of completed requests */
    private final AtomicLongArray issued = new AtomicLongArray(2);
    private final AtomicLongArray finished = new AtomicLongArray(2);
    private final AtomicLongArray bytesDone = new AtomicLongArray(2);

    public RequestLog(int capacity) {
        kind = new byte[capacity];
        experiment = new byte[capacity];
        size = new long[capacity];
        submitted = new long[capacity];
        ended = new long[capacity];
        end = new byte[capacity];
    }

    /** Adds a request submitted at {@code nanos}; returns its index. Called by one thread. */
    public int add(Kind k, int exp, long bytes, long nanos) {
        int i = count;
        kind[i] = (byte) k.ordinal();
        experiment[i] = (byte) exp;
        size[i] = bytes;
        submitted[i] = nanos;
        end[i] = (byte) End.OUTSTANDING.ordinal();
        count = i + 1;
        issued.incrementAndGet(k.ordinal());
        return i;
    }

    /** Ends request {@code i} at {@code nanos}; a request ends once (later calls are ignored). */
    public synchronized void end(int i, End how, long nanos) {
        if (end[i] != End.OUTSTANDING.ordinal() || how == End.OUTSTANDING) {
            return;
        }
        end[i] = (byte) how.ordinal();
        ended[i] = nanos;
        finished.incrementAndGet(kind[i]);
        if (how == End.COMPLETED) {
            bytesDone.addAndGet(kind[i], size[i]);
        }
    }

    /** Every request still outstanding ends {@code how} (LOST at a timeout). */
    public synchronized void endOutstanding(End how, long nanos) {
        for (int i = 0; i < count; i++) {
            end(i, how, nanos);
        }
    }

    public Kind kind(int i) {
        return Kind.values()[kind[i]];
    }

    public int experiment(int i) {
        return experiment[i];
    }

    public long bytes(int i) {
        return size[i];
    }

    public long submittedNanos(int i) {
        return submitted[i];
    }

    public long issued(Kind k) {
        return issued.get(k.ordinal());
    }

    public long finished(Kind k) {
        return finished.get(k.ordinal());
    }

    public long bytesDone(Kind k) {
        return bytesDone.get(k.ordinal());
    }

    /** Requests issued and not ended. */
    public long outstanding() {
        long n = 0;
        for (Kind k : Kind.values()) {
            n += issued(k) - finished(k);
        }
        return n;
    }

    /** A copy of the ends, for reports (one lock, not one per request). */
    public synchronized End[] ends() {
        End[] out = new End[count];
        End[] values = End.values();
        for (int i = 0; i < count; i++) {
            out[i] = values[end[i]];
        }
        return out;
    }

    public synchronized long[] endedNanos() {
        return Arrays.copyOf(ended, count);
    }
}
