package org.tapeq.daemon.bridge;

import static org.tapeq.daemon.bridge.BridgeContext.KIND_FLUSH;
import static org.tapeq.daemon.bridge.BridgeContext.KIND_REMOVE;
import static org.tapeq.daemon.bridge.BridgeContext.KIND_STAGE;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.daemon.config.DirectoryConfig;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.engine.queue.Ticket;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.RemoveRequest;
import org.tapeq.scheduler.model.StageRequest;

/**
 * Admission, on the bridge's thread: a request read from its file becomes a scheduler request, or is answered
 * at once from what the directory and the catalog already say (after a restart); a request file that went
 * away withdraws its request.
 *
 * <p>Design notes. The directory and the catalog are the truth: a stage whose complete file is already in
 * {@code in/} is delivered, a flush whose file is already in the catalog is acknowledged, a request with an
 * error file newer than itself is answered; everything else goes to the scheduler, with this bridge as its
 * origin. Stages admitted by one task are handed over together at its end ({@link #submitStages}): one catalog
 * query per few hundred files, not one each (a restart may admit a million); so are the catalog lookups of the
 * flushes a task starts ({@link #lookUpFlushes}).
 */
final class Admission {

    private static final Logger LOG = LoggerFactory.getLogger(Admission.class);

    private final BridgeContext cx;
    private final RequestTable table;
    private final Answers answers;
    private final Pickups pickups;
    /** Stages admitted by the task running now, handed to the scheduler together at its end. */
    private final List<Tracked> stagesToSubmit = new ArrayList<>();
    private final List<StageRequest> stageRequests = new ArrayList<>();
    /** Flushes started by the task running now, looked up in the catalog together right after it. */
    private final List<Tracked> flushesToCheck = new ArrayList<>();
    /** Queued requests the pool withdrew since the last {@link #reportCancellations}. */
    private long cancelled;

    Admission(BridgeContext cx, RequestTable table, Answers answers, Pickups pickups) {
        this.cx = cx;
        this.table = table;
        this.answers = answers;
        this.pickups = pickups;
    }

    /**
     * A link in out/ means work for a flush waiting for it, and for an acknowledged one too: the provider links
     * again when it raced with the removal (docs/protocol.md), and the catalog then acknowledges it at once.
     */
    static boolean linkExpected(Tracked t) {
        return t.isFlush() && (t.is(Tracked.State.WAITING_LINK) || t.is(Tracked.State.ACKNOWLEDGED));
    }

    /** Makes {@code t} the current request of its pnfsid; a delivered one it replaces gives its space back. */
    void track(Tracked t, int generation) {
        t.listedIn(generation);
        Tracked old = table.put(t);
        if (old != null && old.is(Tracked.State.DELIVERED)) {
            cx.freeSpace(old.id);
        }
    }

    void admit(String pnfsid, Request r, FileVersion version, int generation) {
        boolean stage = r.action() == Request.Action.RECALL;
        cx.metrics.received(cx.name(), stage ? KIND_STAGE : KIND_FLUSH);
        long id = table.newId();
        Tracked t = new Tracked(id, pnfsid, r, cx.wallClock.getAsLong(), version);
        track(t, generation);
        if (answeredBefore(pnfsid)) {
            t.answered("answered by an error file"); // answered before a restart; the pool has not collected it
            return;
        }
        if (stage) {
            startStage(t, r);
        } else {
            startFlush(t);
        }
    }

    /**
     * Whether an error file answers this request file. One older than the request file answered an earlier
     * request the pool has since withdrawn and sent again: it is removed, not taken as the answer.
     */
    private boolean answeredBefore(String pnfsid) {
        String err = RequestDirectory.errorFileName(pnfsid);
        if (!answers.mayHaveErrorFile(pnfsid) || !cx.requests().probablyExists(err)) {
            return false; // the usual case: known from the last listing, or without the cost of an exception
        }
        try {
            BasicFileAttributes e = cx.requests().attributes(err);
            BasicFileAttributes r = cx.requests().attributes(pnfsid);
            if (e.lastModifiedTime().compareTo(r.lastModifiedTime()) >= 0) {
                return true;
            }
            LOG.info("{}: removing {}: it is older than the request file, which was sent again", cx.name(),
                    cx.requests().resolve(err));
            cx.requests().delete(err);
        } catch (NoSuchFileException e) {
            // no error file (the usual case), or the request is gone already
        } catch (IOException e) {
            LOG.warn("{}: cannot check {}: {}", cx.name(), cx.requests().resolve(err), e.toString());
        }
        return false;
    }

    private void startStage(Tracked t, Request r) {
        Path in = cx.dir.inFile(t.pnfsid);
        try {
            if (!cx.in().probablyExists(t.pnfsid)) {
                throw new NoSuchFileException(in.toString()); // the usual case: skip the attribute read
            }
            BasicFileAttributes a = cx.in().attributes(t.pnfsid);
            if (a.isRegularFile() && a.size() == r.fileSize()) {
                t.delivered(); // delivered before a restart; the pool will take it
                cx.buffer.adopt(t.id, a.size());
                return;
            }
            LOG.warn("{}: removing {} ({} bytes, not the {} requested) before staging it again", cx.name(),
                    in, a.size(), r.fileSize());
            cx.in().delete(t.pnfsid);
        } catch (NoSuchFileException e) {
            // the usual case
        } catch (IOException e) {
            answers.answerWithError(t, ReturnCodes.FAILED, "cannot check " + in + ": " + e.getMessage());
            return;
        }
        Request.Extension x = r.extension();
        // No dCache path: ten million queued stages would keep ten million of them, and only a log would show it
        // (the request file and the catalog have it).
        StageRequest s = StageRequest.named(t.id, t.pnfsid, r.fileSize(), r.storageClass(), null, cx.groupOf(r),
                x == null ? null : x.activity(), x == null ? 0 : x.priority(), deadline(x), table.targets(), cx.origin);
        t.queued();
        table.handedOver(t);
        stagesToSubmit.add(t);
        stageRequests.add(s);
    }

    /**
     * Hands the stages admitted by the current task to the scheduler in one call: their catalog lookups are one
     * query per few hundred files, not one each (a restart may admit a million).
     */
    void submitStages() {
        if (stagesToSubmit.isEmpty()) {
            return;
        }
        List<Tracked> tracked = new ArrayList<>(stagesToSubmit);
        List<StageRequest> requests = new ArrayList<>(stageRequests);
        stagesToSubmit.clear();
        stageRequests.clear();
        List<Ticket> tickets = cx.scheduler.stage(requests);
        for (int i = 0; i < tickets.size(); i++) {
            tracked.get(i).ticket(tickets.get(i));
        }
    }

    void startFlush(Tracked t) {
        Request r = t.flushRequest();
        Path link = cx.dir.outLink(t.pnfsid);
        BasicFileAttributes a;
        try {
            a = cx.out().attributes(t.pnfsid); // a dangling link too: it is refused below
        } catch (NoSuchFileException e) {
            // The provider writes the request before the link; or the flush was acknowledged before a restart
            // and the pool has not removed the request yet. Either way: wait for a link.
            t.waitForLink("waiting for " + link);
            return;
        } catch (IOException e) {
            answers.flushFailed(t, ReturnCodes.FAILED, "cannot check " + link + ": " + e.getMessage());
            return;
        }
        if (a.isSymbolicLink() || !a.isRegularFile()) {
            answers.flushFailed(t, ReturnCodes.INVALID_REQUEST, link + " is " + (a.isSymbolicLink()
                    ? "a symbolic link" : "not a regular file") + "; refused (the pool makes a hard link)");
            return;
        }
        if (a.size() != r.fileSize()) {
            answers.flushFailed(t, ReturnCodes.DATA_MISMATCH, link + " has " + a.size() + " bytes but "
                    + cx.dir.requestFile(t.pnfsid) + " says " + r.fileSize());
            return;
        }
        if (r.storageClass() == null || r.storageClass().isBlank()) {
            answers.flushFailed(t, ReturnCodes.INVALID_REQUEST, cx.dir.requestFile(t.pnfsid) + " has no storage class");
            return;
        }
        // Committed to the catalog before a restart, but its link not removed yet? The lookup runs on the
        // catalog writer, never here: the bridge goes on with other requests, also while the catalog is down.
        t.checking("looking for an earlier copy in the catalog");
        if (flushesToCheck.isEmpty()) {
            cx.thread.run(this::lookUpFlushes); // after the task running now: its flushes go in one lookup
        }
        flushesToCheck.add(t);
    }

    /**
     * Looks up the flushes started by the task before, together: the catalog writer is one FIFO, and a lookup
     * each would queue a restart's million reads ahead of the commits.
     */
    private void lookUpFlushes() {
        List<Tracked> batch = new ArrayList<>(flushesToCheck);
        flushesToCheck.clear();
        List<String> ids = new ArrayList<>(batch.size());
        for (Tracked t : batch) {
            ids.add(t.pnfsid);
        }
        cx.scheduler.lookUp(ids, new CatalogWriter.Done<>() {
            @Override
            public void succeeded(Map<String, FileRecord> found) {
                cx.thread.run(() -> batch.forEach(t -> checked(t, Optional.ofNullable(found.get(t.pnfsid)))));
            }

            @Override
            public void failed(RuntimeException e) {
                cx.thread.run(() -> {
                    LOG.warn("{}: catalog lookup of {} flush(es) failed ({}); flushing them", cx.name(), batch.size(),
                            e.toString());
                    batch.forEach(t -> checked(t, Optional.empty()));
                });
            }
        });
    }

    /** The catalog's answer for a flush being {@link Tracked.State#CHECKING checked}; on the bridge thread. */
    private void checked(Tracked t, Optional<FileRecord> found) {
        if (table.get(t.pnfsid) != t || !t.is(Tracked.State.CHECKING) || cx.guard.stopped() != null) {
            return; // withdrawn or replaced while it was looked up, or the directory is no longer served
        }
        Request r = t.flushRequest();
        String checksum = t.checksum();
        if (alreadyOnTape(r, checksum, found)) {
            answers.acknowledgeFlush(t, 0);
            return;
        }
        Request.Extension x = r.extension();
        FlushRequest f = new FlushRequest(t.id, t.pnfsid, r.fileSize(), r.storageClass(), r.path(),
                x == null ? null : x.colocation(), cx.groupOf(r), x == null ? 0 : x.priority(), deadline(x),
                checksum, cx.dir.outLink(t.pnfsid), cx.origin);
        t.queued();
        table.handedOver(t);
        t.ticket(cx.scheduler.flush(f));
    }

    /** Committed to the catalog before a restart, but its link was not removed yet. */
    private static boolean alreadyOnTape(Request r, String checksum, Optional<FileRecord> found) {
        if (found.isEmpty() || found.get().isHint() || found.get().size() != r.fileSize()) {
            return false;
        }
        return !Checksums.contradicts(checksum, found.get().checksum());
    }

    /** dCache's deadline (epoch ms) on the scheduler's clock, which may run faster than the wall clock. */
    private long deadline(Request.Extension x) {
        if (x == null || x.deadline() <= 0) {
            return 0;
        }
        long left = x.deadline() - cx.wallClock.getAsLong();
        return Math.max(1, cx.loop.now() + (long) (left * cx.speed));
    }

    /**
     * One INFO line for the queued requests the pool withdrew since the last call (a pool restart or a cancel
     * withdraws thousands at once; each one is at DEBUG).
     */
    void reportCancellations() {
        if (cancelled > 0) {
            LOG.info("{}: {} queued request(s) cancelled by the pool (request file removed)", cx.name(), cancelled);
            cancelled = 0;
        }
    }

    /** A name in trash/: the tape copy of that file is deleted (once at a time). */
    void remove(String name) {
        if (!PnfsIds.isPnfsId(name)) {
            return;
        }
        long id = table.startRemoval(name);
        if (id < 0) {
            return;
        }
        cx.metrics.received(cx.name(), KIND_REMOVE);
        cx.scheduler.remove(new RemoveRequest(id, name, DirectoryConfig.groupOf(cx.settings.group(), null),
                cx.origin));
    }

    /**
     * The request file is gone: the pool cancelled, collected its answer, or rewrote it as another request.
     *
     * @return false if no request of that name is tracked
     */
    boolean requestGone(String pnfsid) {
        Tracked t = table.get(pnfsid);
        if (t == null) {
            return false;
        }
        switch (t.state()) {
            case QUEUED:
                table.remove(pnfsid);
                t.cancelling();
                cx.scheduler.cancel(t.ticket());
                cancelled++;
                LOG.debug("{}: {} cancelled (its request file was removed)", cx.name(), pnfsid);
                break;
            case DELIVERED:
                t.requestGone(cx.wallClock.getAsLong());
                pickups.check(t);
                break;
            case DELIVERING:
                t.requestGone(cx.wallClock.getAsLong()); // checked once its batch is in in/
                break;
            case UNWRITTEN:
                table.remove(pnfsid);
                answers.withdrawn(t);
                break;
            case PARKED:
            case WAITING_LINK:
            case CHECKING: // its lookup's answer finds it withdrawn
                table.remove(pnfsid);
                cx.metrics.completed(cx.name(), KIND_FLUSH, "cancelled", cx.seconds(t), 0);
                break;
            default:
                table.remove(pnfsid);
                break;
        }
        return true;
    }
}
