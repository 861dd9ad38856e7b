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
        /** Handed to the scheduler. */
        QUEUED,
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
    /** Where a stage's bytes are written before they are renamed into {@code in/}; null for flushes. */
    final Path temporary;

    /** The request as last read (a re-sent request replaces it); null for a file that was refused. */
    private Request request;
    private State state;
    private String reason;
    private Ticket ticket;
    /** The request file's identity when it was last read ({@link Parsed#version}). */
    private String version;
    /** The rescan generation that last listed this request file. */
    private int listedIn;
    /** When a delivered file's request file was seen gone (for the orphan timeout), or 0. */
    private long requestGoneMillis;

    Tracked(long id, String pnfsid, Request request, long seenMillis, Path temporary, String version) {
        this.id = id;
        this.pnfsid = pnfsid;
        this.request = request;
        this.seenMillis = seenMillis;
        this.temporary = temporary;
        this.version = version;
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

    /** Queued or waiting for its link: being served, not answered yet. */
    boolean inProgress() {
        return state == State.QUEUED || state == State.WAITING_LINK;
    }

    String reason() {
        return reason;
    }

    Ticket ticket() {
        return ticket;
    }

    String version() {
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

    void listedIn(int generation) {
        listedIn = generation;
    }

    /** The request file now has this identity (read again, same request). */
    void version(String v) {
        version = v;
    }

    /** dCache sent the same request again: it replaces the old one, which is being served. */
    void resent(Request r, String v) {
        requestGoneMillis = 0;
        request = r;
        version = v;
    }

    void waitForLink(String why) {
        state = State.WAITING_LINK;
        reason = why;
    }

    void queued() {
        state = State.QUEUED;
        reason = null;
    }

    void ticket(Ticket t) {
        ticket = t;
    }

    void delivered() {
        state = State.DELIVERED;
    }

    void acknowledged() {
        state = State.ACKNOWLEDGED;
        reason = null;
    }

    void answered(String why) {
        state = State.ANSWERED;
        reason = why;
    }

    void unwritten(String why) {
        state = State.UNWRITTEN;
        reason = why;
    }

    void parked(String why) {
        state = State.PARKED;
        reason = why;
    }

    void cancelling() {
        state = State.CANCELLING;
    }

    /** The request file was seen gone at {@code now}; the first time counts. */
    void requestGone(long now) {
        if (requestGoneMillis == 0) {
            requestGoneMillis = now;
        }
    }
}
