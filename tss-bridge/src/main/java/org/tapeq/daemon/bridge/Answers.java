package org.tapeq.daemon.bridge;

import static org.tapeq.daemon.bridge.BridgeContext.KIND_FLUSH;
import static org.tapeq.daemon.bridge.BridgeContext.KIND_REMOVE;
import static org.tapeq.daemon.bridge.BridgeContext.KIND_STAGE;
import static org.tapeq.daemon.bridge.BridgeContext.deleteQuietly;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.protocol.StageChecksums;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RemoveRequest;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeRequest;

/**
 * Answers through the directory, on the bridge's thread: outcomes from the scheduler become delivered files,
 * removed links, error files or parked flushes; requests refused before they reach the scheduler get their
 * error file here too.
 *
 * <p>Design notes. A stage is written under a temporary name in {@code in/} (space reserved first through
 * {@link StageBuffer}), its checksum file written first when the provider speaks tapeq's extension, then renamed
 * into place. A flush is acknowledged by removing its link, only after the catalog commit. A failure becomes an
 * error file, except for a flush from the ENDIT provider, which cannot read one: it is parked, with the reason
 * in status, until its request file changes or the daemon restarts. An outcome for a request no longer current
 * (its file went away or was rewritten) is cleaned up, never delivered; no error file is written for a request
 * the pool has withdrawn, since it would answer the pool's next request for that file.
 */
final class Answers {

    private static final Logger LOG = LoggerFactory.getLogger(Answers.class);

    private final BridgeContext cx;
    private final RequestTable table;
    private final ErrorAnswers errors;
    private final Pickups pickups;
    private final Deliveries deliveries;

    Answers(BridgeContext cx, RequestTable table, ErrorAnswers.Writer errorFiles, Pickups pickups) {
        this.cx = cx;
        this.table = table;
        this.errors = new ErrorAnswers(cx, table, errorFiles);
        this.pickups = pickups;
        this.deliveries = new Deliveries(cx.name(), cx.in(), cx.thread, this::delivered);
    }

    /** Lets the batch of staged files being committed finish; call before the bridge's thread stops. */
    void close() {
        deliveries.close();
    }

    /** An outcome from the scheduler, for {@link #outcomes}. */
    record Ended(TapeRequest request, Outcome outcome) {
    }

    /**
     * Outcomes from the scheduler that arrived together, on the bridge's thread: the directory is checked once
     * before they are answered (the check costs a few stats, as much as the answer itself), each one's failure is
     * its own.
     */
    void outcomes(List<Ended> batch) {
        boolean stopped = cx.guard.check() != null;
        for (Ended e : batch) {
            TapeRequest request = e.request();
            try {
                MDC.put("pnfsid", request.pnfsid());
                if (stopped) {
                    stopped(request);
                } else {
                    onOutcome(request, e.outcome());
                }
            } catch (RuntimeException x) {
                LOG.error("{}: handling the outcome {} of {} failed", cx.name(), e.outcome(), request.pnfsid(), x);
                abandon(request, x);
            } finally {
                MDC.remove("pnfsid");
            }
        }
    }

    /** request/ was listed in full: these pnfsids have an error file there ({@link ErrorAnswers#listed}). */
    void errorFilesListed(Set<String> pnfsids) {
        errors.listed(pnfsids);
    }

    /** An error file of {@code pnfsid} was seen created in request/. */
    void errorFileSeen(String pnfsid) {
        errors.seen(pnfsid);
    }

    /** Whether {@code pnfsid} may have an error file in request/ (false: certainly not). */
    boolean mayHaveErrorFile(String pnfsid) {
        return errors.mayExist(pnfsid);
    }

    /**
     * The bridge stopped serving its directory (a path there names something else now): the outcome is not
     * delivered; the stage's temporary file goes (from the directory held open) and its space is given back.
     */
    private void stopped(TapeRequest request) {
        if (request instanceof RemoveRequest) {
            table.removalEnded(request.pnfsid());
            return;
        }
        Tracked t = table.returned(request.id(), request.pnfsid());
        if (t != null && t.isStage()) {
            cx.deleteTemporary(t);
            cx.freeSpace(t.id);
        }
    }

    /** After a failure handling an outcome: no temporary file or reservation is left behind. */
    private void abandon(TapeRequest request, RuntimeException e) {
        Tracked t = table.get(request.pnfsid());
        if (t == null || t.id != request.id() || !(request instanceof StageRequest)) {
            return;
        }
        cx.deleteTemporary(t);
        cx.freeSpace(t.id);
        if (t.is(Tracked.State.QUEUED)) {
            answerWithError(t, ReturnCodes.FAILED, "internal error answering " + t.pnfsid + ": " + e);
        }
    }

    private void onOutcome(TapeRequest request, Outcome outcome) {
        if (request instanceof RemoveRequest) {
            removed(request.pnfsid(), outcome);
            return;
        }
        Tracked t = table.returned(request.id(), request.pnfsid());
        if (t == null) {
            LOG.warn("{}: outcome {} for unknown request {} ignored", cx.name(), outcome, request.pnfsid());
            return;
        }
        boolean current = table.isCurrent(t) && t.is(Tracked.State.QUEUED);
        if (t.isStage()) {
            stageEnded(t, outcome, current);
        } else {
            flushEnded(t, outcome, current);
        }
    }

    private void stageEnded(Tracked t, Outcome outcome, boolean current) {
        if (current && outcome instanceof Outcome.Staged s) {
            if (cx.requestFilePresent(t.pnfsid)) {
                deliver(t, s);
                return;
            }
            table.remove(t.pnfsid); // cancelled while the answer was on its way
            current = false;
        }
        cx.deleteTemporary(t);
        cx.freeSpace(t.id);
        if (!current) {
            cx.metrics.completed(cx.name(), KIND_STAGE, "cancelled", cx.seconds(t), 0);
            return;
        }
        if (outcome instanceof Outcome.Failed f) {
            answerWithError(t, f.returnCode(), f.message());
        } else {
            table.remove(t.pnfsid); // cancelled by the scheduler (shutdown): the pool will re-send
            cx.metrics.completed(cx.name(), KIND_STAGE, "cancelled", cx.seconds(t), 0);
        }
    }

    private void deliver(Tracked t, Outcome.Staged s) {
        String wanted = t.checksum();
        if (Checksums.contradicts(wanted, s.checksum())) {
            cx.deleteTemporary(t);
            cx.freeSpace(t.id);
            answerWithError(t, ReturnCodes.DATA_MISMATCH, t.pnfsid + ": read " + s.checksum() + " from tape but "
                    + "dCache expects " + wanted + "; not delivered");
            return;
        }
        byte[] checksumFile = null;
        if (t.hasExtension() && s.checksum() != null) {
            int colon = s.checksum().indexOf(':');
            checksumFile = StageChecksums.format(Map.of(s.checksum().substring(0, colon),
                    s.checksum().substring(colon + 1)));
        }
        // Group commit (Deliveries): on disk before the name says "complete", as after a power cut a restart
        // adopts any in/ file of the right size as delivered.
        t.delivering();
        deliveries.add(new Deliveries.Delivery(t, t.temporary().getFileName().toString(), checksumFile, s.bytes(),
                s.checksum()));
    }

    /** A staged file's batch was committed (or failed); on the bridge's thread. */
    private void delivered(Deliveries.Delivery d) {
        Tracked t = d.tracked;
        boolean current = table.get(t.pnfsid) == t;
        if (d.failure != null) {
            cx.deleteTemporary(t);
            deleteQuietly(cx.in(), RequestDirectory.checksumFileName(t.pnfsid));
            cx.freeSpace(t.id);
            if (current && t.requestGoneMillis() == 0) {
                answerWithError(t, ReturnCodes.FAILED, "cannot deliver " + t.pnfsid + " into "
                        + cx.dir.inFile(t.pnfsid) + ": " + d.failure.getMessage());
            } else {
                table.remove(t);
                cx.metrics.completed(cx.name(), KIND_STAGE, "cancelled", cx.seconds(t), 0);
            }
            return;
        }
        cx.buffer.written(t.id);
        LOG.debug("{}: staged {} ({} bytes, {})", cx.name(), t.pnfsid, d.bytes, d.checksum);
        cx.metrics.completed(cx.name(), KIND_STAGE, "staged", cx.seconds(t), d.bytes);
        if (!current) {
            cx.freeSpace(t.id); // a re-sent request replaced it; the pool takes the file for that one
            return;
        }
        t.delivered();
        if (t.requestGoneMillis() != 0) {
            pickups.check(t); // the pool may have taken it already
        }
    }

    private void flushEnded(Tracked t, Outcome outcome, boolean current) {
        if (outcome instanceof Outcome.Flushed) {
            // On tape and in the catalog: acknowledge even if the request went away meanwhile.
            if (current || table.get(t.pnfsid) == null) {
                acknowledgeFlush(t, t.fileSize());
            }
            return;
        }
        if (!current) {
            cx.metrics.completed(cx.name(), KIND_FLUSH, "cancelled", cx.seconds(t), 0);
            return;
        }
        if (outcome instanceof Outcome.Failed f) {
            flushFailed(t, f.returnCode(), f.message());
        } else {
            table.remove(t.pnfsid);
            cx.metrics.completed(cx.name(), KIND_FLUSH, "cancelled", cx.seconds(t), 0);
        }
    }

    void acknowledgeFlush(Tracked t, long bytes) {
        try {
            cx.out().delete(t.pnfsid);
        } catch (IOException e) {
            LOG.error("{}: {} is on tape but its link {} cannot be removed: {}; will retry", cx.name(),
                    t.pnfsid, cx.dir.outLink(t.pnfsid), e.toString());
            t.waitForLink(t.reason()); // the next rescan finds it in the catalog and retries
            return;
        }
        t.acknowledged();
        LOG.debug("{}: flushed {} ({} bytes)", cx.name(), t.pnfsid, t.fileSize());
        cx.metrics.completed(cx.name(), KIND_FLUSH, "flushed", cx.seconds(t), bytes);
    }

    /** A flush that cannot be done: an error file for tapeq's provider, parked for the ENDIT provider's. */
    void flushFailed(Tracked t, int rc, String message) {
        if (t.hasExtension()) {
            answerWithError(t, rc, message);
            return;
        }
        t.parked("rc " + rc + ": " + message);
        LOG.error("{}: flush of {} failed and the ENDIT provider has no error channel; it stays queued until "
                + "its request file changes or the daemon restarts: {}", cx.name(), t.pnfsid, message);
        cx.metrics.completed(cx.name(), KIND_FLUSH, "parked", cx.seconds(t), 0);
    }

    /** Answers {@code t} with an error file, now or as soon as one can be written ({@link ErrorAnswers}). */
    void answerWithError(Tracked t, int rc, String message) {
        errors.answer(t, rc, message);
    }

    /** {@code t}'s request went away while its error file was waiting to be written. */
    void withdrawn(Tracked t) {
        errors.withdrawn(t);
    }

    private void removed(String name, Outcome outcome) {
        table.removalEnded(name);
        if (outcome instanceof Outcome.Removed) {
            deleteQuietly(cx.trash(), name);
            cx.metrics.completed(cx.name(), KIND_REMOVE, "removed", 0, 0);
        } else {
            LOG.warn("{}: removing the tape copy of {} did not complete ({}); the trash entry stays and is tried "
                    + "again at the next rescan", cx.name(), name, outcome);
            cx.metrics.completed(cx.name(), KIND_REMOVE, "failed", 0, 0);
        }
    }
}
