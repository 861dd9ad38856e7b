package org.tapeq.daemon.bridge;

import static org.tapeq.daemon.bridge.BridgeContext.KIND_FLUSH;
import static org.tapeq.daemon.bridge.BridgeContext.KIND_STAGE;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.ErrorReport;

/**
 * Error files, on the bridge's thread: a failed request is answered by one, and one that cannot be written (a
 * full or failing filesystem) is tried again until it is written or its request goes away.
 *
 * <p>Design notes. A request whose error file could not be written is {@link Tracked.State#UNWRITTEN}: the pool
 * still waits for it. It is tried again on the bridge's own timers, {@value #FIRST_RETRY_MILLIS} ms after the
 * failure and then twice as long each time up to {@value #MAX_RETRY_MILLIS} ms, so a long outage costs a few
 * attempts a minute per request and nothing waits on the thread. The failure is logged once per request (and
 * its eventual answer once); the number waiting is the gauge {@code tapeq_answers_unwritten} and the status's
 * {@code unwritten} count. A request withdrawn meanwhile (its request file removed or rewritten, a flush's link
 * gone) is forgotten: an error file written then would answer the pool's next request for the file.
 */
final class ErrorAnswers {

    /** Writes an error file; the daemon's writes through the request/ directory held open, tests can fail it. */
    interface Writer {
        void write(Path file, byte[] content) throws IOException;
    }

    static final long FIRST_RETRY_MILLIS = 1000;
    static final long MAX_RETRY_MILLIS = 60_000;

    private static final Logger LOG = LoggerFactory.getLogger(ErrorAnswers.class);

    /** An error file not written yet. */
    private static final class Unwritten {
        final int rc;
        final String message;
        int attempts = 1;
        long delayMillis = FIRST_RETRY_MILLIS;

        Unwritten(int rc, String message) {
            this.rc = rc;
            this.message = message;
        }
    }

    private final BridgeContext cx;
    private final RequestTable table;
    private final Writer writer;
    private final Map<Tracked, Unwritten> unwritten = new HashMap<>();
    /**
     * The pnfsids whose error file may be in request/: those of the last full listing, every one written since,
     * and every one a watch event said was created (only this daemon writes error files, the pool removes them;
     * one left by an earlier run is in the listing at start). Null until the first listing: until then every
     * request is looked for on disk. What it saves: a stat of request/ per request admitted.
     */
    private Set<String> mayExist;

    ErrorAnswers(BridgeContext cx, RequestTable table, Writer writer) {
        this.cx = cx;
        this.table = table;
        this.writer = writer;
    }

    /** Answers {@code t} with an error file now, or as soon as one can be written. */
    void answer(Tracked t, int rc, String message) {
        if (unwanted(t)) {
            table.remove(t);
            cx.metrics.completed(cx.name(), kind(t), "cancelled", cx.seconds(t), 0);
            return;
        }
        forget(t); // a new answer replaces one not written yet
        try {
            write(t, rc, message);
        } catch (IOException e) {
            t.unwritten(message);
            unwritten.put(t, new Unwritten(rc, message));
            cx.metrics.answersUnwritten(cx.name(), unwritten.size());
            LOG.error("{}: cannot write the error file for {} (rc {}: {}): {}; trying again until it is written or "
                    + "the request goes away", cx.name(), t.pnfsid, rc, message, e.toString());
            cx.thread.later(() -> retry(t), FIRST_RETRY_MILLIS);
            return;
        }
        LOG.warn("{}: answered {} with rc {}: {}", cx.name(), t.pnfsid, rc, message);
    }

    /** {@code t}'s request went away (removed or replaced) while its error file was waiting to be written. */
    void withdrawn(Tracked t) {
        if (forget(t)) {
            cx.metrics.completed(cx.name(), kind(t), "cancelled", cx.seconds(t), 0);
        }
    }

    private void retry(Tracked t) {
        Unwritten u = unwritten.get(t);
        if (u == null) {
            return; // withdrawn, or answered again meanwhile
        }
        if (cx.guard.check() != null) {
            forget(t); // the directory is no longer served: nothing is written there any more
            return;
        }
        if (!table.isCurrent(t) || unwanted(t)) {
            table.remove(t);
            withdrawn(t);
            return;
        }
        try {
            write(t, u.rc, u.message);
        } catch (IOException e) {
            u.attempts++;
            u.delayMillis = Math.min(MAX_RETRY_MILLIS, 2 * u.delayMillis);
            LOG.debug("{}: error file for {} still not written (attempt {}): {}", cx.name(), t.pnfsid, u.attempts,
                    e.toString());
            cx.thread.later(() -> retry(t), u.delayMillis);
            return;
        }
        forget(t);
        LOG.warn("{}: answered {} with rc {} after {} failed attempt(s) to write its error file: {}", cx.name(),
                t.pnfsid, u.rc, u.attempts, u.message);
    }

    /** request/ was listed in full: these pnfsids have an error file there. */
    void listed(Set<String> pnfsids) {
        mayExist = pnfsids;
    }

    /** An error file of {@code pnfsid} was seen created in request/ (a watch event). */
    void seen(String pnfsid) {
        if (mayExist != null) {
            mayExist.add(pnfsid);
        }
    }

    /**
     * Whether {@code pnfsid} may have an error file in request/ (false: certainly not, no need to look on disk).
     */
    boolean mayExist(String pnfsid) {
        return mayExist == null || mayExist.contains(pnfsid);
    }

    private void write(Tracked t, int rc, String message) throws IOException {
        if (mayExist != null) {
            mayExist.add(t.pnfsid); // before the write: a failed one may still have left the file
        }
        writer.write(cx.dir.errorFile(t.pnfsid), new ErrorReport(rc, message).toBytes());
        t.answered(message);
        cx.metrics.completed(cx.name(), kind(t), "failed", cx.seconds(t), 0);
    }

    private boolean forget(Tracked t) {
        boolean was = unwritten.remove(t) != null;
        if (was) {
            cx.metrics.answersUnwritten(cx.name(), unwritten.size());
        }
        return was;
    }

    /** Withdrawn by the pool: its request file is gone, or for a flush its link. */
    private boolean unwanted(Tracked t) {
        return !cx.requestFilePresent(t.pnfsid) || t.isFlush() && !cx.out().exists(t.pnfsid);
    }

    private static String kind(Tracked t) {
        return t.refused() ? "invalid" : t.isStage() ? KIND_STAGE : KIND_FLUSH;
    }
}
