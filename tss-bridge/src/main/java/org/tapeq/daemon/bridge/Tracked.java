package org.tapeq.daemon.bridge;

import java.nio.file.Path;

import org.tapeq.protocol.Request;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.engine.queue.Ticket;

/**
 * What the daemon knows about one request file of one directory. Owned by its bridge's thread; its fields
 * change only through the transitions below, so every state a request can reach is named here.
 *
 * <p>Design note: a daemon may hold ten million queued stages, so a stage keeps only what the bridge uses after
 * handing it to the scheduler (the kind, the size, the checksum, whether the file had tapeq's extension), not the
 * parsed request: its other fields went into the scheduler's entry. A flush keeps its parsed request until it is
 * handed over, as its {@code FlushRequest} is made from it after the catalog lookup (and again after a restart of
 * the wait for its link).
 */
final class Tracked {

    /** Where a request stands. */
    enum State {
        /** A flush whose {@code out/} link has not appeared yet. */
        WAITING_LINK,
        /** A flush whose link is there, looked up in the catalog (on tape already?) before it is queued. */
        CHECKING,
        /** Handed to the scheduler. */
        QUEUED,
        /** A stage whose file is being committed into {@code in/} with its batch ({@link Deliveries}). */
        DELIVERING,
        /** A stage whose file is in {@code in/}, waiting for the pool to take it. */
        DELIVERED,
        /** A flush that is on tape and whose link was removed; the pool removes the request file. */
        ACKNOWLEDGED,
        /** An error file was written; the pool removes the request and the error file. */
        ANSWERED,
        /** Failed, and its error file could not be written yet: tried again until written or withdrawn. */
        UNWRITTEN,
        /** Failed with no channel to say so (a flush from the ENDIT provider): kept, with the reason in status. */
        PARKED,
        /** The request file disappeared; waiting for the scheduler to confirm the cancellation. */
        CANCELLING
    }

    final long id;
    final String pnfsid;
    /** Wall-clock milliseconds when the daemon first saw the request. */
    final long seenMillis;
    /** What the directory's requests share: where stages write, the counts by state. Set when first current. */
    private Ledger ledger;
    /** Counted in the ledger: the current request of its pnfsid. */
    private boolean counted;
    /** Handed to the scheduler, its outcome not back yet. */
    private boolean inScheduler;
    /** In the ledger's list of waiting requests (the oldest one for status); written by the {@link Ledger}. */
    boolean listedWaiting;

    /** {@link #STAGE}, {@link #FLUSH} or neither (a file that was refused), and {@link #EXTENSION}. */
    private byte kind;
    private static final byte STAGE = 1;
    private static final byte FLUSH = 2;
    private static final byte EXTENSION = 4;
    private static final byte ADLER32 = 8;
    /** The size the request file gives. */
    private long fileSize;
    /** The checksum the request gives, unless it is a canonical Adler-32 (then {@link #adler32}), or null. */
    private String checksum;
    private int adler32;
    /** A flush's request as last read (a re-sent request replaces it); null for a stage or a refused file. */
    private Request flush;
    private State state;
    private String reason;
    private Ticket ticket;
    /**
     * The request file's {@link FileVersion} when it was last read, as numbers (a ten-million-entry table keeps no
     * object or string per request for it): {@link #versionKey} is null when the key has the Linux form, and all
     * three are unset ({@link #versionMillis} {@link Long#MIN_VALUE}) when the version is not known.
     */
    private String versionKey;
    private long versionDev;
    private long versionIno;
    private long versionMillis = Long.MIN_VALUE;
    /** The rescan generation that last listed this request file. */
    private int listedIn;
    /** When a delivered file's request file was seen gone (for the orphan timeout), or 0. */
    private long requestGoneMillis;

    Tracked(long id, String pnfsid, Request request, long seenMillis, FileVersion version) {
        this.id = id;
        this.pnfsid = pnfsid;
        keep(request);
        this.seenMillis = seenMillis;
        version(version);
    }

    /**
     * Where a stage's bytes are written before they are renamed into {@code in/} (named anew at each call, the
     * same every time); null for flushes and refused files.
     */
    Path temporary() {
        return isStage() && ledger != null ? ledger.targets.of(id, pnfsid) : null;
    }

    boolean inScheduler() {
        return inScheduler;
    }

    /** What is kept of a request (the design note above); null: a refused file. */
    private void keep(Request r) {
        String c = r == null ? null : BridgeContext.checksumOf(r);
        boolean isAdler32 = Checksums.isCanonicalAdler32(c);
        kind = (byte) ((r == null ? 0 : r.action() == Request.Action.RECALL ? STAGE : FLUSH)
                | (r != null && r.extension() != null ? EXTENSION : 0) | (isAdler32 ? ADLER32 : 0));
        fileSize = r == null ? 0 : r.fileSize();
        adler32 = isAdler32 ? (int) Checksums.parse(c) : 0;
        checksum = isAdler32 ? null : c;
        flush = (kind & FLUSH) != 0 ? r : null;
    }

    /** A flush's request as last read, or null (a stage, a refused file). */
    Request flushRequest() {
        return flush;
    }

    /** The file was refused: no request could be read from it. */
    boolean refused() {
        return (kind & (STAGE | FLUSH)) == 0;
    }

    boolean isFlush() {
        return (kind & FLUSH) != 0;
    }

    /** The size the request file gives. */
    long fileSize() {
        return fileSize;
    }

    /** The request's checksum as {@code type:value} in lower case, or null. */
    String checksum() {
        return (kind & ADLER32) != 0 ? Checksums.formatInt(adler32) : checksum;
    }

    State state() {
        return state;
    }

    boolean is(State s) {
        return state == s;
    }

    /** Queued, being checked or waiting for its link: being served, not answered yet. */
    boolean inProgress() {
        return state == State.QUEUED || state == State.WAITING_LINK || state == State.CHECKING;
    }

    String reason() {
        return reason;
    }

    Ticket ticket() {
        return ticket;
    }

    /** The request file's version when it was last read, or null if not known. */
    FileVersion version() {
        if (versionMillis == Long.MIN_VALUE && versionKey == null) {
            return null;
        }
        return versionKey == null ? FileVersion.of(versionDev, versionIno, versionMillis)
                : FileVersion.of(versionKey, versionMillis);
    }

    int listedIn() {
        return listedIn;
    }

    long requestGoneMillis() {
        return requestGoneMillis;
    }

    boolean isStage() {
        return (kind & STAGE) != 0;
    }

    boolean hasExtension() {
        return (kind & EXTENSION) != 0;
    }

    // ------------------------------------------------------------------ transitions

    /** Became the current request of its pnfsid in a table sharing {@code l}: counted from now on. */
    void joined(Ledger l) {
        ledger = l;
        counted = true;
        l.moved(this, null, state);
    }

    /** No longer the current request of its pnfsid: not counted any more. */
    void left() {
        if (counted) {
            counted = false;
            ledger.moved(this, state, null);
        }
    }

    boolean counted() {
        return counted;
    }

    void inScheduler(boolean held) {
        inScheduler = held;
    }

    private void to(State s) {
        State from = state;
        state = s;
        if (counted) {
            ledger.moved(this, from, s);
        }
    }

    void listedIn(int generation) {
        listedIn = generation;
    }

    /** The request file now has this identity (read again, same request). */
    void version(FileVersion v) {
        versionKey = v == null ? null : v.key();
        versionDev = v == null ? 0 : v.dev();
        versionIno = v == null ? 0 : v.ino();
        versionMillis = v == null ? Long.MIN_VALUE : v.millis();
    }

    /** dCache sent the same request again: it replaces the old one, which is being served. */
    void resent(Request r, FileVersion v) {
        requestGoneMillis = 0;
        keep(r);
        version(v);
    }

    void waitForLink(String why) {
        to(State.WAITING_LINK);
        reason = why;
    }

    void checking(String why) {
        to(State.CHECKING);
        reason = why;
    }

    void queued() {
        to(State.QUEUED);
        reason = null;
    }

    void ticket(Ticket t) {
        ticket = t;
    }

    void delivering() {
        to(State.DELIVERING);
    }

    void delivered() {
        to(State.DELIVERED);
    }

    void acknowledged() {
        to(State.ACKNOWLEDGED);
        reason = null;
    }

    void answered(String why) {
        to(State.ANSWERED);
        reason = why;
    }

    void unwritten(String why) {
        to(State.UNWRITTEN);
        reason = why;
    }

    void parked(String why) {
        to(State.PARKED);
        reason = why;
    }

    void cancelling() {
        to(State.CANCELLING);
    }

    /** The request file was seen gone at {@code now}; the first time counts. */
    void requestGone(long now) {
        if (requestGoneMillis == 0) {
            requestGoneMillis = now;
        }
    }
}
