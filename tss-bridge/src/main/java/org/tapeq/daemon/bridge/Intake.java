package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.format.Checksums;

/**
 * Intake, on the bridge's thread: watch events and rescans find request files, the intake pool reads them,
 * and what was read is admitted, refused, or recognised as a request already being served.
 *
 * <p>Design notes.
 * <ul>
 * <li><b>Finding.</b> Events name files at once; a full rescan lists request/ and trash/ every
 *     {@code rescanMillis} and soon after lost events. It costs names only: a queued request is a hash lookup,
 *     not a stat. Requests no longer queued get one stat of their file, through its identity (inode and time):
 *     one rewritten after its answer is read again. A rescan after lost events waits at least
 *     {@value #RESCAN_COST_FACTOR} times as long as the last one took, so rescans take at most a fifth of this
 *     thread at a million files, and everything lost meanwhile is found by the next one. While the first
 *     listing's files are still being read (a restart), a rescan that comes due waits until they are: it would
 *     list every queued name again for nothing.</li>
 * <li><b>Reading, with back-pressure.</b> Names to read wait here in batches of {@value #PARSE_BATCH}; at most
 *     {@code maxBatchesOut} of this directory's batches are in the shared {@link ReadPool} at a time, and the
 *     next is handed over when one comes back, so one directory's million files do not starve the others. If
 *     the pool is full anyway it refuses the batch (nothing is ever read on this thread): intake pauses, the
 *     batch stays first in line, and the pool's call-back resumes it as soon as the pool has drained. A name
 *     waits in {@link #reading} from the moment it is found until what was read is taken, so it is never
 *     read twice at once, and a request file removed meanwhile is forgotten. Nothing is lost by pausing: the
 *     names are kept, and the files stay in the directory.</li>
 * <li><b>Same pnfsid again.</b> A rewritten request file for a pnfsid still queued is the same request (dCache
 *     re-sends after a pool restart) unless its action or size changed; one rewritten after its answer is a
 *     new request. An unreadable file is read again a few times before it is refused: the ENDIT provider
 *     writes in place.</li>
 * </ul>
 */
final class Intake {

    private static final Logger LOG = LoggerFactory.getLogger(Intake.class);

    static final int PARSE_BATCH = 512;
    /** Reads of an empty or unreadable request file before it is refused, {@link #RETRY_MILLIS} apart. */
    private static final int READ_RETRIES = 10;
    private static final long RETRY_MILLIS = 200;
    /** A rescan for lost watch events waits at least this many times the duration of the last rescan. */
    private static final int RESCAN_COST_FACTOR = 4;
    private static final long RESCAN_MIN_DELAY_MILLIS = 100;

    private final BridgeContext cx;
    private final RequestTable table;
    private final Admission admission;
    private final Answers answers;
    private final Pickups pickups;
    private final ReadPool pool;
    private final int maxBatchesOut;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();

    /**
     * Names found and not yet taken (waiting, or in the pool): name to the number of times it was found empty. Made
     * anew, at its size, for the first listing (a restart's million names), and small again once they are read.
     */
    private Map<String, Integer> reading = new HashMap<>();
    /** Batches of names waiting for room in the pool, in order. */
    private final ArrayDeque<List<String>> waiting = new ArrayDeque<>();
    /** Request files created since the last {@link #eventsDone}. */
    private final List<String> eventNames = new ArrayList<>();
    private int generation;
    private int batchesOut;
    /** The pool refused a batch; its call-back ends the pause. */
    private boolean paused;
    private boolean initialScanDone;
    private boolean rescanRequested;
    /** A rescan came due while the first listing's files were read; it runs once they are. */
    private boolean rescanAfterReady;
    private long lastRescanMillis;
    private long rescans;
    private long reads;
    private long rejected;
    private long pauses;

    Intake(BridgeContext cx, RequestTable table, Admission admission, Answers answers, Pickups pickups,
           ReadPool pool, int maxBatchesOut) {
        this.cx = cx;
        this.table = table;
        this.admission = admission;
        this.answers = answers;
        this.pickups = pickups;
        this.pool = pool;
        this.maxBatchesOut = maxBatchesOut;
    }

    /** Completes when every request found by the first rescan has been handed to the scheduler or answered. */
    CompletableFuture<Void> ready() {
        return ready;
    }

    long rescans() {
        return rescans;
    }

    long rejected() {
        return rejected;
    }

    /** Request files read and taken (one gone before it could be read is not; an empty one read again is). */
    long reads() {
        return reads;
    }

    /** Request files found and not yet taken: waiting for the pool or being read. */
    int backlog() {
        return reading.size();
    }

    /** How often the pool was found full. */
    long pauses() {
        return pauses;
    }

    // ------------------------------------------------------------------ events

    /** One watch event (names are pnfsids); request files created are read at {@link #eventsDone}. */
    void onEvent(String sub, String pnfsid, boolean created) {
        if (cx.guard.stopped() != null) {
            return;
        }
        switch (sub) {
            case RequestDirectory.REQUEST:
                if (created) {
                    eventNames.add(pnfsid);
                } else {
                    requestGone(pnfsid);
                }
                break;
            case RequestDirectory.OUT:
                Tracked t = table.get(pnfsid);
                if (t != null && Admission.linkExpected(t)) {
                    admission.startFlush(t);
                }
                break;
            case RequestDirectory.TRASH:
                admission.remove(pnfsid);
                break;
            case RequestDirectory.IN: // only removals are watched there
                Tracked d = table.get(pnfsid);
                if (d != null && d.is(Tracked.State.DELIVERED)) {
                    pickups.check(d);
                }
                break;
            default:
                break;
        }
    }

    /** An error file was created in request/ (by this daemon: only it writes them; or by hand). */
    void errorFileCreated(String pnfsid) {
        answers.errorFileSeen(pnfsid);
    }

    /** The events drained together end: the request files they named are read in one batch. */
    void eventsDone() {
        if (!eventNames.isEmpty()) {
            List<String> names = new ArrayList<>(eventNames);
            eventNames.clear();
            read(names);
        }
    }

    private void requestGone(String pnfsid) {
        if (!admission.requestGone(pnfsid)) {
            reading.remove(pnfsid);
        }
    }

    // ------------------------------------------------------------------ rescans

    /** Watch events were lost: a rescan finds what they said, rationed by the cost of the last one. */
    void requestRescan() {
        if (!rescanRequested) {
            rescanRequested = true;
            cx.thread.later(this::rescan, Math.max(RESCAN_MIN_DELAY_MILLIS, RESCAN_COST_FACTOR * lastRescanMillis));
        }
    }

    /**
     * Lists request/ and trash/: new names are read, tracked requests whose file is gone are cancelled, links
     * that appeared in out/ start their flush. Cheap at a million files: names only, no stat per known file.
     */
    void rescan() {
        if (initialScanDone && !ready.isDone()) {
            // The first listing's files are still being read (a restart with millions queued): listing them all
            // again would find nothing new but what events name, at seconds per pass. One rescan follows the
            // first read instead, for whatever was lost meanwhile.
            rescanAfterReady = true;
            return;
        }
        long started = System.nanoTime();
        try {
            scanDirectories();
            pickups.rescanned();
        } finally {
            long nanos = System.nanoTime() - started;
            lastRescanMillis = nanos / 1_000_000;
            rescans++;
            cx.metrics.rescanned(cx.name(), nanos / 1e9);
        }
    }

    private void scanDirectories() {
        rescanRequested = false;
        if (cx.guard.check() != null) {
            stoppedBeforeReady(); // the bridge stopped serving the directory (DirectoryBridge says why)
            return;
        }
        int gen = ++generation;
        List<String> fresh = new ArrayList<>();
        Set<String> errorFiles = new HashSet<>();
        try {
            for (String n : cx.requests().list()) {
                if (!PnfsIds.isPnfsId(n)) {
                    String answered = RequestDirectory.pnfsIdOfErrorFile(n);
                    if (answered != null) {
                        errorFiles.add(answered);
                    }
                    continue;
                }
                Tracked t = table.get(n);
                if (t != null) {
                    t.listedIn(gen);
                } else if (!reading.containsKey(n)) {
                    fresh.add(n);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("{}: cannot list {}: {}", cx.name(), cx.dir.requestDir(), e.toString());
            if (!initialScanDone) {
                cx.thread.later(this::rescan, 1000);
            }
            return;
        }
        answers.errorFilesListed(errorFiles);
        List<Tracked> gone = new ArrayList<>();
        for (Tracked t : table.all()) {
            if (t.listedIn() != gen && t.listedIn() != 0) {
                // One listing can miss a file being renamed over; only a missing file is gone.
                if (!cx.requestFilePresent(t.pnfsid)) {
                    gone.add(t);
                }
            } else if (!t.inProgress() && rewritten(t)) {
                // Answered, and the pool has since sent a new request (no event on a shared filesystem). Queued
                // requests are not checked: a rescan must not stat a million files.
                fresh.add(t.pnfsid);
            } else if (t.is(Tracked.State.WAITING_LINK)
                    || Admission.linkExpected(t) && cx.out().probablyExists(t.pnfsid)) {
                admission.startFlush(t);
            }
        }
        for (Tracked t : gone) {
            requestGone(t.pnfsid);
        }
        if (!initialScanDone) {
            table.reserve(table.size() + fresh.size()); // filled at once, not by doubling
            if (reading.isEmpty()) {
                reading = new HashMap<>(Math.max(16, (int) (fresh.size() / 0.75f) + 1));
            }
        }
        read(fresh);
        try {
            for (String n : cx.trash().list()) {
                admission.remove(n);
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("{}: cannot list {}: {}", cx.name(), cx.dir.trashDir(), e.toString());
        }
        if (!initialScanDone) {
            initialScanDone = true;
            completeReadyIfDone();
        }
    }

    private boolean rewritten(Tracked t) {
        try {
            FileVersion now = Parsed.version(cx.requests(), t.pnfsid);
            return now != null && !now.equals(t.version());
        } catch (IOException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ reading

    /** Reads these request files (names already waiting or being read are skipped). */
    void read(List<String> names) {
        List<String> batch = new ArrayList<>(Math.min(names.size(), PARSE_BATCH));
        for (String n : names) {
            if (reading.putIfAbsent(n, 0) == null) {
                batch.add(n);
            }
            if (batch.size() == PARSE_BATCH) {
                waiting.add(batch);
                batch = new ArrayList<>(PARSE_BATCH);
            }
        }
        if (!batch.isEmpty()) {
            waiting.add(batch);
        }
        handOver();
    }

    /** Hands waiting batches to the pool while it takes them and this directory's share allows. */
    private void handOver() {
        while (!paused && batchesOut < maxBatchesOut && !waiting.isEmpty()) {
            List<String> names = waiting.peekFirst();
            if (!pool.offer(() -> readBatch(names), () -> cx.thread.run(this::resume))) {
                paused = true;
                pauses++;
                LOG.debug("{}: the intake pool is full; {} request file(s) wait", cx.name(), reading.size());
                break;
            }
            waiting.pollFirst();
            batchesOut++;
        }
        cx.metrics.intakeBacklog(cx.name(), reading.size());
    }

    private void resume() {
        paused = false;
        handOver();
    }

    /** In the pool: reads the files, then posts what was read back to the bridge's thread. */
    private void readBatch(List<String> names) {
        List<Parsed> results = new ArrayList<>(names.size());
        for (String n : names) {
            results.add(Parsed.read(cx.requests(), n, cx.settings.maxRequestBytes()));
        }
        cx.thread.run(() -> taken(results));
    }

    private void taken(List<Parsed> results) {
        batchesOut--;
        if (cx.guard.check() != null) {
            results.forEach(p -> reading.remove(p.pnfsid())); // read from the directory held open, not served
            stoppedBeforeReady();
            return;
        }
        for (Parsed p : results) {
            reads += p.gone() ? 0 : 1;
            acceptSafely(p);
        }
        admission.submitStages();
        handOver();
        completeReadyIfDone();
    }

    /**
     * A directory no longer served will never finish its first read: the daemon's start must not wait for it (the
     * bridge's status says it stopped, and why).
     */
    private void stoppedBeforeReady() {
        if (!ready.isDone()) {
            ready.complete(null);
            LOG.error("{}: {} not served: it changed while its requests were first read", cx.name(), cx.dir.base());
        }
    }

    private void completeReadyIfDone() {
        if (initialScanDone && batchesOut == 0 && waiting.isEmpty() && !ready.isDone()) {
            ready.complete(null);
            LOG.info("{}: serving {} ({} request(s) found at start)", cx.name(), cx.dir.base(), table.size());
            table.reserve(0);
            if (reading.isEmpty()) {
                reading = new HashMap<>();
            }
            if (rescanAfterReady) {
                rescanAfterReady = false;
                cx.thread.run(this::rescan);
            }
        }
    }

    /** One request's intake must not stop the others of its batch. */
    private void acceptSafely(Parsed p) {
        try {
            accept(p);
        } catch (RuntimeException e) {
            reading.remove(p.pnfsid());
            LOG.error("{}: taking request {} failed; it is read again at the next rescan", cx.name(), p.pnfsid(), e);
        }
    }

    private void accept(Parsed p) {
        String pnfsid = p.pnfsid();
        Integer attempts = reading.remove(pnfsid);
        if (p.gone() || attempts == null) {
            return; // gone, or its file was removed while it was being read
        }
        if (p.retry()) {
            // Empty, truncated or unreadable: perhaps still being written (the ENDIT provider writes in
            // place) or a transient NFS error. Read it again a few times before refusing it.
            int times = attempts + 1;
            if (times < READ_RETRIES) {
                reading.put(pnfsid, times);
                cx.thread.later(() -> {
                    if (reading.containsKey(pnfsid)) {
                        waiting.add(List.of(pnfsid)); // the attempt count stays in reading
                        handOver();
                    }
                }, RETRY_MILLIS);
                return;
            }
        }
        try {
            MDC.put("pnfsid", pnfsid);
            Tracked old = table.get(pnfsid);
            if (p.request() == null) {
                refuse(pnfsid, old, p.error(), p.version());
                return;
            }
            String invalid = invalidChecksum(p.request());
            if (invalid != null) {
                refuse(pnfsid, old, cx.dir.requestFile(pnfsid) + ": " + invalid, p.version());
                return;
            }
            if (old != null) {
                old.listedIn(generation);
                if (!old.refused() && sameRequest(old, p.request()) && old.inProgress()) {
                    old.resent(p.request(), p.version()); // re-sent by dCache: the same request, being served
                    return;
                }
                if (old.inProgress()) {
                    LOG.info("{}: request file {} was rewritten with a different request; replacing it",
                            cx.name(), cx.dir.requestFile(pnfsid));
                }
                requestGone(pnfsid);
            }
            admission.admit(pnfsid, p.request(), p.version(), generation);
        } finally {
            MDC.remove("pnfsid");
        }
    }

    /** An adler32 checksum dCache sent must be one, or it could never be compared. */
    private static String invalidChecksum(Request r) {
        String sum = BridgeContext.checksumOf(r);
        if (Checksums.isAdler32(sum)) {
            try {
                Checksums.parse(sum);
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        }
        return null;
    }

    private static boolean sameRequest(Tracked t, Request r) {
        return t.isStage() == (r.action() == Request.Action.RECALL) && t.fileSize() == r.fileSize();
    }

    /** An unreadable request file: an error file says why (both providers read one for a stage). */
    private void refuse(String pnfsid, Tracked old, String reason, FileVersion version) {
        if (old != null && old.is(Tracked.State.ANSWERED) && reason.equals(old.reason())) {
            old.version(version);
            return;
        }
        if (old != null) {
            requestGone(pnfsid);
        }
        rejected++;
        cx.metrics.rejected(cx.name());
        LOG.warn("{}: refused request {}: {}", cx.name(), pnfsid, reason);
        Tracked t = new Tracked(table.newId(), pnfsid, null, cx.wallClock.getAsLong(), version);
        admission.track(t, generation);
        answers.answerWithError(t, ReturnCodes.INVALID_REQUEST, reason);
    }
}
