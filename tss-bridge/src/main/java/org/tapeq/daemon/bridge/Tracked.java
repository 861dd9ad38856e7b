package org.tapeq.daemon.bridge;

import java.nio.file.Path;

import org.tapeq.protocol.Request;
import org.tapeq.scheduler.engine.Ticket;

/**
 * What the daemon knows about one request file of one directory. Owned by its bridge's thread; only
 * {@link #ticket} is written from another thread (the intake pool hands it over) and is volatile.
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
        /** Failed with no channel to say so (a flush from the ENDIT provider): kept, with the reason in status. */
        PARKED,
        /** The request file disappeared; waiting for the scheduler to confirm the cancellation. */
        CANCELLING
    }

    final long id;
    final String pnfsid;
    final Request request;
    /** Wall-clock milliseconds when the daemon first saw the request. */
    final long seenMillis;
    /** Where a stage's bytes are written before they are renamed into {@code in/}; null for flushes. */
    final Path temporary;

    State state;
    String reason;
    volatile Ticket ticket;
    /** The rescan generation that last listed this request file. */
    int listedIn;
    /** When a delivered file's request file was seen gone (for the orphan timeout), or 0. */
    long requestGoneMillis;
    /** The request file as last read; a rescan reads a finished request's file again when it differs. */
    Parsed.Version version;

    Tracked(long id, String pnfsid, Request request, long seenMillis, Path temporary) {
        this.id = id;
        this.pnfsid = pnfsid;
        this.request = request;
        this.seenMillis = seenMillis;
        this.temporary = temporary;
    }

    boolean isStage() {
        return request.action() == Request.Action.RECALL;
    }

    /**
     * Answered (error file, acknowledged flush) or parked: a request file for this pnfsid that differs from the one
     * read is the pool's next request, not this one.
     */
    boolean isFinished() {
        return state == State.ANSWERED || state == State.ACKNOWLEDGED || state == State.PARKED;
    }

    boolean hasExtension() {
        return request.extension() != null;
    }
}
