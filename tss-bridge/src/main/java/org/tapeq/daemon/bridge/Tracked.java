package org.tapeq.daemon.bridge;

import java.nio.file.Path;

import org.tapeq.protocol.Request;
import org.tapeq.scheduler.engine.queue.Ticket;

/**
 * What the daemon knows about one request file of one directory. Owned by its bridge's thread; its fields
 * change only through the transitions below, so every state a request can reach is named here.
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

    /** The request as last read (a re-sent request replaces it); null for a file that was refused. */
    private Request request;
    private State state;
    private String reason;
    private Ticket ticket;
    /**
     * The request file's identity when it was last read ({@link Parsed#version}): in {@link #versionDev},
     * {@link #versionIno} and {@link #versionMillis} when {@link FileVersion} takes it apart (versionMillis is then
     * not {@link Long#MIN_VALUE}), else here.
     */
    private String version;
    private long versionDev;
    private long versionIno;
    private long versionMillis = Long.MIN_VALUE;
    /** The rescan generation that last listed this request file. */
    private int listedIn;
    /** When a delivered file's request file was seen gone (for the orphan timeout), or 0. */
    private long requestGoneMillis;

    Tracked(long id, String pnfsid, Request request, long seenMillis, String version) {
        this.id = id;
        this.pnfsid = pnfsid;
        this.request = kept(request);
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

    /**
     * What is kept of a request: a stage's dCache path is left out (only logs would show it, and the request file
     * and the catalog have it), as ten million queued stages would keep ten million paths.
     */
    private static Request kept(Request r) {
        return r != null && r.action() == Request.Action.RECALL && r.path() != null ? r.withoutPath() : r;
    }

    Request request() {
        return request;
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

    String version() {
        if (versionMillis != Long.MIN_VALUE) {
            return FileVersion.format(versionDev, versionIno, versionMillis);
        }
        return version;
    }

    int listedIn() {
        return listedIn;
    }

    long requestGoneMillis() {
        return requestGoneMillis;
    }

    boolean isStage() {
        return request != null && request.action() == Request.Action.RECALL;
    }

    boolean hasExtension() {
        return request != null && request.extension() != null;
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
    void version(String v) {
        long[] parts = FileVersion.parse(v);
        version = parts == null ? v : null;
        versionDev = parts == null ? 0 : parts[0];
        versionIno = parts == null ? 0 : parts[1];
        versionMillis = parts == null ? Long.MIN_VALUE : parts[2];
    }

    /** dCache sent the same request again: it replaces the old one, which is being served. */
    void resent(Request r, String v) {
        requestGoneMillis = 0;
        request = kept(r);
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
