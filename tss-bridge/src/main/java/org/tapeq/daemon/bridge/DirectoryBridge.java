package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.tapeq.daemon.Threads;
import org.tapeq.daemon.config.DirectoryConfig;
import org.tapeq.daemon.metrics.DaemonMetrics;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.ErrorReport;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.protocol.StageChecksums;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.FileRecord;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.Ticket;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RemoveRequest;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeRequest;
import org.tapeq.scheduler.time.EventLoop;

/**
 * Serves one ENDIT-style request directory with the scheduler: request files become scheduler requests, and
 * every outcome is answered through the directory.
 *
 * <p>Design notes.
 * <ul>
 * <li><b>One owner.</b> All state lives on one named thread; the watcher, the intake pool and the scheduler's
 *     loop only post work to it. Reading and parsing request files happens in the intake pool, in batches,
 *     because a restart may find a million of them.</li>
 * <li><b>The directory and the catalog are the truth.</b> Nothing else is persisted. At start partial stage
 *     files are removed and every request file is read again: a stage whose complete file is already in
 *     {@code in/} is delivered, a flush whose file is already in the catalog is acknowledged (its link removed),
 *     a request with an error file is answered; everything else is queued again. Each step's commit point is
 *     an atomic rename or unlink, so a kill at any moment neither loses a request nor answers one twice.</li>
 * <li><b>Answers.</b> A stage is written under a temporary name in {@code in/} (space reserved first through
 *     {@link StageBuffer}), its checksum file written first when the provider speaks tapeq's extension, then
 *     renamed into place. A flush is acknowledged by removing its link, only after the catalog commit. A failure
 *     becomes an error file, except for a flush from the ENDIT provider, which cannot read one: it is parked,
 *     with the reason in status, until its request file changes or the daemon restarts.</li>
 * <li><b>Cancellation.</b> A request file that disappears cancels the request in the scheduler; a result that
 *     arrives for it later is cleaned up, never delivered. A rewritten request file for a pnfsid still queued
 *     is the same request (dCache re-sends after a pool restart) unless its action or size changed; one
 *     rewritten after its answer is a new request. Rewrites are noticed by events, and by rescans through the
 *     file's identity (inode and time) for answered requests only, so a rescan stats no queued request.</li>
 * <li><b>Cost at a million files</b> (measured by {@code ./tapeq bench-daemon}, docs/benchmarks.md). Stages
 *     admitted together are handed to the scheduler together (one catalog query per 512). Sweeps over every
 *     file are rationed: a full rescan after lost watch events waits at least {@value #RESCAN_COST_FACTOR}
 *     times as long as the last one took, and with a working watcher delivered files are checked for pickup
 *     at each rescan rather than every second. Probes whose usual answer is "nothing there" use
 *     {@link #present}, which costs no exception. Request ids spread over hash buckets ({@link #newId}).</li>
 * </ul>
 */
public final class DirectoryBridge implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DirectoryBridge.class);

    private static final int PARSE_BATCH = 512;
    /** Reads of an empty or unreadable request file before it is refused, {@link #RETRY_MILLIS} apart. */
    private static final int READ_RETRIES = 10;
    private static final long RETRY_MILLIS = 200;
    private static final long TICK_MILLIS = 1000;
    /** A rescan for lost watch events waits at least this many times the duration of the last rescan. */
    private static final int RESCAN_COST_FACTOR = 4;
    private static final long RESCAN_MIN_DELAY_MILLIS = 100;
    private static final long ID_MULTIPLIER = 0x9E3779B97F4A7C15L;
    private static final long ID_SEQUENCE_MASK = (1L << 55) - 1;
    private static final String LOCK_FILE = ".tapeq-daemon.lock";
    private static final String KIND_STAGE = "stage";
    private static final String KIND_FLUSH = "flush";
    private static final String KIND_REMOVE = "remove";

    private final BridgeSettings settings;
    private final RequestDirectory dir;
    private final Scheduler scheduler;
    private final Catalog catalog;
    private final EventLoop loop;
    private final double speed;
    private final DaemonMetrics metrics;
    private final Executor intake;
    private final LongSupplier wallClock;
    private final StageBuffer buffer;
    private final ScheduledExecutorService thread;

    /** The current request file of each pnfsid, and delivered stages waiting for the pool. */
    private final Map<String, Tracked> requests = new HashMap<>();
    /** Requests the scheduler holds, by id, until their outcome arrives. */
    private final Map<Long, Tracked> inScheduler = new HashMap<>();
    /** Trash names being removed: name to request id. */
    private final Map<String, Long> trash = new HashMap<>();
    /** Names handed to the intake pool: name to the number of times it was found empty. */
    private final Map<String, Integer> reading = new HashMap<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    /** Stages admitted by the task running now, handed to the scheduler together at its end. */
    private final List<Tracked> stagesToSubmit = new ArrayList<>();
    private final List<StageRequest> stageRequests = new ArrayList<>();
    /** Request files created since the last {@link #readEventNames}. */
    private final List<String> eventNames = new ArrayList<>();

    private RequestWatcher watcher;
    private ExclusiveLock lock;
    private long nextSequence = 1;
    private int generation;
    private int batchesOut;
    private boolean initialScanDone;
    private boolean rescanRequested;
    private long rejected;
    private long refusalsSeen;
    private long lastRescanMillis;

    public DirectoryBridge(BridgeSettings settings, BridgeServices services) throws IOException {
        this.settings = settings;
        this.dir = RequestDirectory.at(settings.path());
        List<String> problems = dir.problems();
        if (!problems.isEmpty()) {
            throw new IOException("request directory " + settings.path() + " (" + settings.name() + "): "
                    + String.join("; ", problems));
        }
        this.scheduler = services.scheduler();
        this.catalog = services.catalog();
        this.loop = services.loop();
        this.speed = services.speed();
        this.metrics = services.metrics();
        this.intake = services.intake();
        this.wallClock = services.wallClock();
        this.buffer = new StageBuffer(settings.name(), dir.inDir(), settings.stageBuffer(), settings.reserveBytes());
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1,
                Threads.named("tapeq-" + settings.name() + "-bridge"));
        t.setRemoveOnCancelPolicy(true);
        this.thread = t;
    }

    public String name() {
        return settings.name();
    }

    public int index() {
        return settings.index();
    }

    StageBuffer buffer() {
        return buffer;
    }

    /**
     * Takes the directory's lock, removes partial files, starts watching and reads every request file. The
     * future completes when every request found at start has been handed to the scheduler or answered.
     */
    public CompletableFuture<Void> start() throws IOException {
        lock = ExclusiveLock.take(dir.base().resolve(LOCK_FILE), "request directory " + dir.base());
        removePartials();
        if (settings.watch()) {
            try {
                watcher = new RequestWatcher(settings.name(), dir, new RequestWatcher.Listener() {
                    @Override
                    public void changed(String sub, String pnfsid, boolean created) {
                        run(() -> onEvent(sub, pnfsid, created));
                    }

                    @Override
                    public void lost() {
                        run(DirectoryBridge.this::requestRescan);
                    }
                });
                watcher.start();
            } catch (IOException e) {
                LOG.warn("{}: cannot watch {} ({}); relying on rescans every {} ms", settings.name(), dir.base(),
                        e.toString(), settings.rescanMillis());
            }
        }
        run(this::rescan);
        thread.scheduleWithFixedDelay(safe(this::rescan), settings.rescanMillis(), settings.rescanMillis(),
                TimeUnit.MILLISECONDS);
        thread.scheduleWithFixedDelay(safe(this::tick), TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        return ready;
    }

    /**
     * What a crash left half-written: every temporary file in in/ (only this daemon writes there: stage targets
     * and checksum files) and this daemon's error-file temporaries in request/ ({@code .<pnfsid>.err.<random>.tmp};
     * the provider's own temporaries there are left alone).
     */
    private void removePartials() throws IOException {
        removeTemporaries(dir.inDir(), name -> true);
        String errorPart = RequestDirectory.ERROR_SUFFIX + ".";
        removeTemporaries(dir.requestDir(), name -> name.contains(errorPart));
    }

    private void removeTemporaries(Path directory, Predicate<String> ours) throws IOException {
        int removed = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory)) {
            for (Path p : ds) {
                String n = p.getFileName().toString();
                if (AtomicFiles.isTemporaryName(n) && ours.test(n)) {
                    Files.deleteIfExists(p);
                    removed++;
                }
            }
        }
        if (removed > 0) {
            LOG.info("{}: removed {} partial file(s) left in {}", settings.name(), removed, directory);
        }
    }

    /** Marks stage targets ({@code .<pnfsid>.<id>.tapeq.tmp}) for whoever lists in/. */
    private static final String TEMPORARY_MARK = ".tapeq";

    private Path temporaryFor(String pnfsid, long id) {
        return dir.inDir().resolve(AtomicFiles.TEMPORARY_PREFIX + pnfsid + '.' + Long.toHexString(id)
                + TEMPORARY_MARK + AtomicFiles.TEMPORARY_SUFFIX);
    }

    // ------------------------------------------------------------------ intake

    private void onEvent(String sub, String pnfsid, boolean created) {
        switch (sub) {
            case RequestDirectory.REQUEST:
                if (created) {
                    if (eventNames.isEmpty()) {
                        run(this::readEventNames); // after the events queued meanwhile: they are read together
                    }
                    eventNames.add(pnfsid);
                } else {
                    requestGone(pnfsid);
                }
                break;
            case RequestDirectory.OUT:
                Tracked t = requests.get(pnfsid);
                if (t != null && linkExpected(t)) {
                    startFlush(t);
                }
                break;
            case RequestDirectory.TRASH:
                remove(pnfsid);
                break;
            case RequestDirectory.IN: // only removals are watched there
                Tracked d = requests.get(pnfsid);
                if (d != null && d.state == Tracked.State.DELIVERED) {
                    checkPickup(d);
                }
                break;
            default:
                break;
        }
    }

    /**
     * A link in out/ means work for a flush waiting for it, and for an acknowledged one too: the provider links
     * again when it raced with the removal (docs/protocol.md), and the catalog then acknowledges it at once.
     */
    private static boolean linkExpected(Tracked t) {
        return t.request != null && !t.isStage()
                && (t.state == Tracked.State.WAITING_LINK || t.state == Tracked.State.ACKNOWLEDGED);
    }

    /** Request files named by watch events, read in one batch (their stages then share catalog queries). */
    private void readEventNames() {
        List<String> names = new ArrayList<>(eventNames);
        eventNames.clear();
        read(names);
    }

    /**
     * Watch events were lost (the watch service's queue overflowed): a rescan finds what they said. At a million
     * request files a rescan takes seconds, and a burst of events overflows the queue again and again, so it
     * waits at least {@value #RESCAN_COST_FACTOR} times the last one's duration: rescans then take at most a
     * fifth of this thread, and everything lost meanwhile is found by the next one.
     */
    private void requestRescan() {
        if (!rescanRequested) {
            rescanRequested = true;
            thread.schedule(safe(this::rescan), Math.max(RESCAN_MIN_DELAY_MILLIS,
                    RESCAN_COST_FACTOR * lastRescanMillis), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Lists request/ and trash/: new names are read, tracked requests whose file is gone are cancelled, links
     * that appeared in out/ start their flush. Cheap at a million files: names only, no stat per known file.
     */
    private void rescan() {
        long started = System.nanoTime();
        try {
            scanDirectories();
            if (watcher != null) {
                checkPickups(); // with events, removals from in/ are seen at once; this catches lost ones
            }
        } finally {
            lastRescanMillis = (System.nanoTime() - started) / 1_000_000;
        }
    }

    private void scanDirectories() {
        rescanRequested = false;
        int gen = ++generation;
        List<String> fresh = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir.requestDir())) {
            for (Path p : ds) {
                String n = p.getFileName().toString();
                if (!PnfsIds.isPnfsId(n)) {
                    continue;
                }
                Tracked t = requests.get(n);
                if (t != null) {
                    t.listedIn = gen;
                } else if (!reading.containsKey(n)) {
                    fresh.add(n);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("{}: cannot list {}: {}", settings.name(), dir.requestDir(), e.toString());
            if (!initialScanDone) {
                thread.schedule(safe(this::rescan), 1, TimeUnit.SECONDS);
            }
            return;
        }
        List<Tracked> gone = new ArrayList<>();
        List<String> again = new ArrayList<>();
        for (Tracked t : requests.values()) {
            if (t.listedIn != gen && t.listedIn != 0) {
                // One listing can miss a file being renamed over; only a missing file is gone.
                if (!Files.exists(dir.requestFile(t.pnfsid), LinkOption.NOFOLLOW_LINKS)) {
                    gone.add(t);
                }
            } else if (t.state != Tracked.State.QUEUED && t.state != Tracked.State.WAITING_LINK && rewritten(t)) {
                // Answered, and the pool has since sent a new request (no event on a shared filesystem). Queued
                // requests are not checked: a rescan must not stat a million files.
                again.add(t.pnfsid);
            } else if (t.state == Tracked.State.WAITING_LINK
                    || linkExpected(t) && present(dir.outLink(t.pnfsid))) {
                startFlush(t);
            }
        }
        for (Tracked t : gone) {
            requestGone(t.pnfsid);
        }
        fresh.addAll(again);
        read(fresh);
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir.trashDir())) {
            for (Path p : ds) {
                remove(p.getFileName().toString());
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("{}: cannot list {}: {}", settings.name(), dir.trashDir(), e.toString());
        }
        if (!initialScanDone) {
            initialScanDone = true;
            completeReadyIfDone();
        }
    }

    private void read(List<String> names) {
        List<String> batch = new ArrayList<>(Math.min(names.size(), PARSE_BATCH));
        for (String n : names) {
            if (reading.putIfAbsent(n, 0) == null) {
                batch.add(n);
            }
            if (batch.size() == PARSE_BATCH) {
                submitBatch(batch);
                batch = new ArrayList<>(PARSE_BATCH);
            }
        }
        if (!batch.isEmpty()) {
            submitBatch(batch);
        }
    }

    private void submitBatch(List<String> names) {
        batchesOut++;
        intake.execute(() -> {
            List<Parsed> results = new ArrayList<>(names.size());
            for (String n : names) {
                results.add(Parsed.read(n, dir.requestFile(n), settings.maxRequestBytes()));
            }
            run(() -> {
                batchesOut--;
                for (Parsed p : results) {
                    acceptSafely(p);
                }
                submitStages();
                completeReadyIfDone();
            });
        });
    }

    private void completeReadyIfDone() {
        if (initialScanDone && batchesOut == 0 && !ready.isDone()) {
            ready.complete(null);
            LOG.info("{}: serving {} ({} request(s) found at start)", settings.name(), dir.base(), requests.size());
        }
    }

    /** One request's intake must not stop the others of its batch. */
    private void acceptSafely(Parsed p) {
        try {
            accept(p);
        } catch (RuntimeException e) {
            reading.remove(p.pnfsid());
            LOG.error("{}: taking request {} failed; it is read again at the next rescan", settings.name(),
                    p.pnfsid(), e);
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
                thread.schedule(safe(() -> {
                    if (reading.containsKey(pnfsid)) {
                        submitBatch(List.of(pnfsid)); // the attempt count stays in reading
                    }
                }), RETRY_MILLIS, TimeUnit.MILLISECONDS);
                return;
            }
        }
        try {
            MDC.put("pnfsid", pnfsid);
            Tracked old = requests.get(pnfsid);
            if (p.request() == null) {
                refuse(pnfsid, old, p.error(), p.version());
                return;
            }
            String invalid = invalidChecksum(p.request());
            if (invalid != null) {
                refuse(pnfsid, old, dir.requestFile(pnfsid) + ": " + invalid, p.version());
                return;
            }
            if (old != null) {
                old.listedIn = generation;
                if (old.request != null && sameRequest(old, p.request()) && (old.state == Tracked.State.QUEUED
                        || old.state == Tracked.State.WAITING_LINK)) {
                    old.requestGoneMillis = 0;
                    old.request = p.request(); // re-sent by dCache: the same request, already being served
                    old.version = p.version();
                    return;
                }
                if (old.state == Tracked.State.QUEUED || old.state == Tracked.State.WAITING_LINK) {
                    LOG.info("{}: request file {} was rewritten with a different request; replacing it",
                            settings.name(), dir.requestFile(pnfsid));
                }
                requestGone(pnfsid);
            }
            admit(pnfsid, p.request(), p.version());
        } finally {
            MDC.remove("pnfsid");
        }
    }

    private boolean rewritten(Tracked t) {
        try {
            String now = Parsed.version(dir.requestFile(t.pnfsid));
            return now != null && !now.equals(t.version);
        } catch (IOException e) {
            return false;
        }
    }

    /** An adler32 checksum dCache sent must be one, or it could never be compared. */
    private static String invalidChecksum(Request r) {
        String sum = checksumOf(r);
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
        return t.request.action() == r.action() && t.request.fileSize() == r.fileSize();
    }

    /** An unreadable request file: an error file says why (both providers read one for a stage). */
    private void refuse(String pnfsid, Tracked old, String reason, String version) {
        if (old != null && old.state == Tracked.State.ANSWERED && reason.equals(old.reason)) {
            old.version = version;
            return;
        }
        if (old != null) {
            requestGone(pnfsid);
        }
        rejected++;
        metrics.rejected(settings.name());
        LOG.warn("{}: refused request {}: {}", settings.name(), pnfsid, reason);
        Tracked t = new Tracked(newId(), pnfsid, null, wallClock.getAsLong(), null);
        t.version = version;
        track(t);
        answerWithError(t, ReturnCodes.INVALID_REQUEST, reason);
    }

    /** Makes {@code t} the current request of its pnfsid; a delivered one it replaces gives its space back. */
    private void track(Tracked t) {
        t.listedIn = generation;
        Tracked old = requests.put(t.pnfsid, t);
        if (old != null && old.state == Tracked.State.DELIVERED) {
            freeSpace(old.id);
        }
    }

    /**
     * Whether an error file answers this request file. One older than the request file answered an earlier
     * request the pool has since withdrawn and sent again: it is removed, not taken as the answer.
     */
    private boolean answeredBefore(String pnfsid) {
        Path err = dir.errorFile(pnfsid);
        if (!present(err)) {
            return false; // the usual case, without the cost of an exception
        }
        try {
            BasicFileAttributes e = Files.readAttributes(err, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            BasicFileAttributes r = Files.readAttributes(dir.requestFile(pnfsid), BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (e.lastModifiedTime().compareTo(r.lastModifiedTime()) >= 0) {
                return true;
            }
            LOG.info("{}: removing {}: it is older than the request file, which was sent again", settings.name(), err);
            Files.deleteIfExists(err);
        } catch (NoSuchFileException e) {
            // no error file (the usual case), or the request is gone already
        } catch (IOException e) {
            LOG.warn("{}: cannot check {}: {}", settings.name(), err, e.toString());
        }
        return false;
    }

    /**
     * A new request id: this directory's index in the low 8 bits (OutcomeRouter and StageBuffers route by them),
     * above them the sequence number times an odd constant modulo 2^55, a bijection, so ids stay unique and
     * positive. Plain sequence numbers shifted left by 8 fall into one in 256 of a HashMap's buckets: at a
     * million requests every bucket in use held 16 ids, as trees, in inScheduler and the stage buffer's maps.
     */
    private long newId() {
        long scrambled = (nextSequence++ * ID_MULTIPLIER) & ID_SEQUENCE_MASK;
        return scrambled << 8 | settings.index();
    }

    private void admit(String pnfsid, Request r, String version) {
        boolean stage = r.action() == Request.Action.RECALL;
        metrics.received(settings.name(), stage ? KIND_STAGE : KIND_FLUSH);
        long id = newId();
        Tracked t = new Tracked(id, pnfsid, r, wallClock.getAsLong(), stage ? temporaryFor(pnfsid, id) : null);
        t.version = version;
        track(t);
        if (answeredBefore(pnfsid)) {
            t.state = Tracked.State.ANSWERED; // answered before a restart; the pool has not collected it yet
            t.reason = "answered by an error file";
            return;
        }
        if (stage) {
            startStage(t);
        } else {
            startFlush(t);
        }
    }

    private void startStage(Tracked t) {
        Request r = t.request;
        Path in = dir.inFile(t.pnfsid);
        try {
            if (!present(in)) {
                throw new NoSuchFileException(in.toString()); // the usual case: skip the attribute read
            }
            BasicFileAttributes a = Files.readAttributes(in, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.isRegularFile() && a.size() == r.fileSize()) {
                t.state = Tracked.State.DELIVERED; // delivered before a restart; the pool will take it
                buffer.adopt(t.id, a.size());
                return;
            }
            LOG.warn("{}: removing {} ({} bytes, not the {} requested) before staging it again", settings.name(),
                    in, a.size(), r.fileSize());
            Files.deleteIfExists(in);
        } catch (NoSuchFileException e) {
            // the usual case
        } catch (IOException e) {
            answerWithError(t, ReturnCodes.FAILED, "cannot check " + in + ": " + e.getMessage());
            return;
        }
        Request.Extension x = r.extension();
        StageRequest s = new StageRequest(t.id, t.pnfsid, r.fileSize(), r.storageClass(), r.path(), groupOf(r),
                x == null ? null : x.activity(), x == null ? 0 : x.priority(), deadline(x), t.temporary);
        t.state = Tracked.State.QUEUED;
        inScheduler.put(t.id, t);
        stagesToSubmit.add(t);
        stageRequests.add(s);
    }

    /**
     * Hands the stages admitted by the current task to the scheduler in one call: their catalog lookups are one
     * query per few hundred files, not one each (a restart may admit a million).
     */
    private void submitStages() {
        if (stagesToSubmit.isEmpty()) {
            return;
        }
        List<Tracked> tracked = new ArrayList<>(stagesToSubmit);
        List<StageRequest> requests = new ArrayList<>(stageRequests);
        stagesToSubmit.clear();
        stageRequests.clear();
        List<Ticket> tickets = scheduler.stage(requests);
        for (int i = 0; i < tickets.size(); i++) {
            tracked.get(i).ticket = tickets.get(i);
        }
    }

    private void startFlush(Tracked t) {
        Request r = t.request;
        Path link = dir.outLink(t.pnfsid);
        BasicFileAttributes a;
        try {
            if (!present(link) && !Files.isSymbolicLink(link)) {
                throw new NoSuchFileException(link.toString()); // the provider links after the request file
            }
            a = Files.readAttributes(link, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            // The provider writes the request before the link; or the flush was acknowledged before a restart
            // and the pool has not removed the request yet. Either way: wait for a link.
            t.state = Tracked.State.WAITING_LINK;
            t.reason = "waiting for " + link;
            return;
        } catch (IOException e) {
            flushFailed(t, ReturnCodes.FAILED, "cannot check " + link + ": " + e.getMessage());
            return;
        }
        if (a.isSymbolicLink() || !a.isRegularFile()) {
            flushFailed(t, ReturnCodes.INVALID_REQUEST, link + " is " + (a.isSymbolicLink()
                    ? "a symbolic link" : "not a regular file") + "; refused (the pool makes a hard link)");
            return;
        }
        if (a.size() != r.fileSize()) {
            flushFailed(t, ReturnCodes.DATA_MISMATCH, link + " has " + a.size() + " bytes but "
                    + dir.requestFile(t.pnfsid) + " says " + r.fileSize());
            return;
        }
        if (r.storageClass() == null || r.storageClass().isBlank()) {
            flushFailed(t, ReturnCodes.INVALID_REQUEST, dir.requestFile(t.pnfsid) + " has no storage class");
            return;
        }
        String checksum = checksumOf(r);
        if (alreadyOnTape(t, checksum)) {
            acknowledgeFlush(t, 0);
            return;
        }
        Request.Extension x = r.extension();
        FlushRequest f = new FlushRequest(t.id, t.pnfsid, r.fileSize(), r.storageClass(), r.path(),
                x == null ? null : x.colocation(), groupOf(r), x == null ? 0 : x.priority(), deadline(x),
                checksum, link);
        t.state = Tracked.State.QUEUED;
        t.reason = null;
        inScheduler.put(t.id, t);
        t.ticket = scheduler.flush(f);
    }

    /** Committed to the catalog before a restart, but its link was not removed yet. */
    private boolean alreadyOnTape(Tracked t, String checksum) {
        Optional<FileRecord> found;
        try {
            found = catalog.file(t.pnfsid);
        } catch (RuntimeException e) {
            LOG.warn("{}: catalog lookup of {} failed ({}); flushing it", settings.name(), t.pnfsid, e.toString());
            return false;
        }
        if (found.isEmpty() || found.get().isHint() || found.get().size() != t.request.fileSize()) {
            return false;
        }
        return !Checksums.contradicts(checksum, found.get().checksum());
    }

    private static String checksumOf(Request r) {
        if (r.checksumType() == null || r.checksumValue() == null) {
            return null;
        }
        return r.checksumType().toLowerCase(Locale.ROOT) + ':' + r.checksumValue().toLowerCase(Locale.ROOT);
    }

    private String groupOf(Request r) {
        return DirectoryConfig.groupOf(settings.group(), r.storageClass());
    }

    /** dCache's deadline (epoch ms) on the scheduler's clock, which may run faster than the wall clock. */
    private long deadline(Request.Extension x) {
        if (x == null || x.deadline() <= 0) {
            return 0;
        }
        long left = x.deadline() - wallClock.getAsLong();
        return Math.max(1, loop.now() + (long) (left * speed));
    }

    private void remove(String name) {
        if (!PnfsIds.isPnfsId(name) || trash.containsKey(name)) {
            return;
        }
        long id = newId();
        trash.put(name, id);
        metrics.received(settings.name(), KIND_REMOVE);
        scheduler.remove(new RemoveRequest(id, name, DirectoryConfig.groupOf(settings.group(), null)));
    }

    /** The request file is gone: the pool cancelled, collected its answer, or rewrote it as another request. */
    private void requestGone(String pnfsid) {
        Tracked t = requests.get(pnfsid);
        if (t == null) {
            reading.remove(pnfsid);
            return;
        }
        switch (t.state) {
            case QUEUED:
                requests.remove(pnfsid);
                t.state = Tracked.State.CANCELLING;
                scheduler.cancel(t.ticket);
                LOG.info("{}: {} cancelled (its request file was removed)", settings.name(), pnfsid);
                break;
            case DELIVERED:
                if (t.requestGoneMillis == 0) {
                    t.requestGoneMillis = wallClock.getAsLong();
                }
                checkPickup(t);
                break;
            case PARKED:
            case WAITING_LINK:
                requests.remove(pnfsid);
                metrics.completed(settings.name(), KIND_FLUSH, "cancelled", seconds(t), 0);
                break;
            default:
                requests.remove(pnfsid);
                break;
        }
    }

    // ------------------------------------------------------------------ outcomes

    /** Called by the scheduler's listener on its loop; the work happens on this bridge's thread. */
    public void completed(TapeRequest request, Outcome outcome) {
        run(() -> {
            try {
                MDC.put("pnfsid", request.pnfsid());
                onOutcome(request, outcome);
            } catch (RuntimeException e) {
                LOG.error("{}: handling the outcome {} of {} failed", settings.name(), outcome, request.pnfsid(), e);
                abandon(request, e);
            } finally {
                MDC.remove("pnfsid");
            }
        });
    }

    /** After a failure handling an outcome: no temporary file or reservation is left behind. */
    private void abandon(TapeRequest request, RuntimeException e) {
        Tracked t = requests.get(request.pnfsid());
        if (t == null || t.id != request.id() || !(request instanceof StageRequest)) {
            return;
        }
        deleteQuietly(t.temporary);
        freeSpace(t.id);
        if (t.state == Tracked.State.QUEUED) {
            answerWithError(t, ReturnCodes.FAILED, "internal error answering " + t.pnfsid + ": " + e);
        }
    }

    private void onOutcome(TapeRequest request, Outcome outcome) {
        if (request instanceof RemoveRequest) {
            removed(request.pnfsid(), outcome);
            return;
        }
        Tracked t = inScheduler.remove(request.id());
        if (t == null) {
            LOG.warn("{}: outcome {} for unknown request {} ignored", settings.name(), outcome, request.pnfsid());
            return;
        }
        boolean current = requests.get(t.pnfsid) == t && t.state == Tracked.State.QUEUED;
        if (t.isStage()) {
            stageEnded(t, outcome, current);
        } else {
            flushEnded(t, outcome, current);
        }
    }

    private void stageEnded(Tracked t, Outcome outcome, boolean current) {
        if (current && outcome instanceof Outcome.Staged) {
            Outcome.Staged s = (Outcome.Staged) outcome;
            if (Files.exists(dir.requestFile(t.pnfsid), LinkOption.NOFOLLOW_LINKS)) {
                deliver(t, s);
                return;
            }
            requests.remove(t.pnfsid); // cancelled while the answer was on its way
            current = false;
        }
        deleteQuietly(t.temporary);
        freeSpace(t.id);
        if (!current) {
            metrics.completed(settings.name(), KIND_STAGE, "cancelled", seconds(t), 0);
            return;
        }
        if (outcome instanceof Outcome.Failed) {
            Outcome.Failed f = (Outcome.Failed) outcome;
            answerWithError(t, f.returnCode(), f.message());
        } else {
            requests.remove(t.pnfsid); // cancelled by the scheduler (shutdown): the pool will re-send
            metrics.completed(settings.name(), KIND_STAGE, "cancelled", seconds(t), 0);
        }
    }

    private void deliver(Tracked t, Outcome.Staged s) {
        String wanted = checksumOf(t.request);
        if (Checksums.contradicts(wanted, s.checksum())) {
            deleteQuietly(t.temporary);
            freeSpace(t.id);
            answerWithError(t, ReturnCodes.DATA_MISMATCH, t.pnfsid + ": read " + s.checksum() + " from tape but "
                    + "dCache expects " + wanted + "; not delivered");
            return;
        }
        Path in = dir.inFile(t.pnfsid);
        try {
            if (t.hasExtension() && s.checksum() != null) {
                int colon = s.checksum().indexOf(':');
                AtomicFiles.write(dir.checksumFile(t.pnfsid), StageChecksums.format(
                        Map.of(s.checksum().substring(0, colon), s.checksum().substring(colon + 1))), true);
            }
            // On disk before the name says "complete": after a power cut a restart adopts any in/ file of the
            // right size as delivered.
            AtomicFiles.commit(t.temporary, in);
        } catch (IOException e) {
            deleteQuietly(t.temporary);
            deleteQuietly(dir.checksumFile(t.pnfsid));
            freeSpace(t.id);
            answerWithError(t, ReturnCodes.FAILED, "cannot deliver " + t.pnfsid + " into " + in + ": "
                    + e.getMessage());
            return;
        }
        buffer.written(t.id);
        t.state = Tracked.State.DELIVERED;
        LOG.info("{}: staged {} ({} bytes, {})", settings.name(), t.pnfsid, s.bytes(), s.checksum());
        metrics.completed(settings.name(), KIND_STAGE, "staged", seconds(t), s.bytes());
    }

    private void flushEnded(Tracked t, Outcome outcome, boolean current) {
        if (outcome instanceof Outcome.Flushed) {
            // On tape and in the catalog: acknowledge even if the request went away meanwhile.
            if (current || requests.get(t.pnfsid) == null) {
                acknowledgeFlush(t, t.request.fileSize());
            }
            return;
        }
        if (!current) {
            metrics.completed(settings.name(), KIND_FLUSH, "cancelled", seconds(t), 0);
            return;
        }
        if (outcome instanceof Outcome.Failed) {
            Outcome.Failed f = (Outcome.Failed) outcome;
            flushFailed(t, f.returnCode(), f.message());
        } else {
            requests.remove(t.pnfsid);
            metrics.completed(settings.name(), KIND_FLUSH, "cancelled", seconds(t), 0);
        }
    }

    private void acknowledgeFlush(Tracked t, long bytes) {
        try {
            Files.deleteIfExists(dir.outLink(t.pnfsid));
        } catch (IOException e) {
            LOG.error("{}: {} is on tape but its link {} cannot be removed: {}; will retry", settings.name(),
                    t.pnfsid, dir.outLink(t.pnfsid), e.toString());
            t.state = Tracked.State.WAITING_LINK; // the next rescan finds it in the catalog and retries
            return;
        }
        t.state = Tracked.State.ACKNOWLEDGED;
        t.reason = null;
        LOG.info("{}: flushed {} ({} bytes)", settings.name(), t.pnfsid, t.request.fileSize());
        metrics.completed(settings.name(), KIND_FLUSH, "flushed", seconds(t), bytes);
    }

    /** A flush that cannot be done: an error file for tapeq's provider, parked for the ENDIT provider's. */
    private void flushFailed(Tracked t, int rc, String message) {
        if (t.hasExtension()) {
            answerWithError(t, rc, message);
            return;
        }
        t.state = Tracked.State.PARKED;
        t.reason = "rc " + rc + ": " + message;
        LOG.error("{}: flush of {} failed and the ENDIT provider has no error channel; it stays queued until "
                + "its request file changes or the daemon restarts: {}", settings.name(), t.pnfsid, message);
        metrics.completed(settings.name(), KIND_FLUSH, "parked", seconds(t), 0);
    }

    private void answerWithError(Tracked t, int rc, String message) {
        t.state = Tracked.State.ANSWERED;
        t.reason = message;
        String kind = t.request == null ? "invalid" : t.isStage() ? KIND_STAGE : KIND_FLUSH;
        if (!Files.exists(dir.requestFile(t.pnfsid), LinkOption.NOFOLLOW_LINKS)
                || t.request != null && !t.isStage() && !Files.exists(dir.outLink(t.pnfsid), LinkOption.NOFOLLOW_LINKS)) {
            // Withdrawn by the pool meanwhile: an error file now would answer the next request for this file.
            requests.remove(t.pnfsid, t);
            metrics.completed(settings.name(), kind, "cancelled", seconds(t), 0);
            return;
        }
        try {
            AtomicFiles.write(dir.errorFile(t.pnfsid), new ErrorReport(rc, message).toBytes());
            LOG.warn("{}: answered {} with rc {}: {}", settings.name(), t.pnfsid, rc, message);
        } catch (IOException e) {
            LOG.error("{}: cannot write the error file for {} (rc {}: {}): {}", settings.name(), t.pnfsid, rc,
                    message, e.toString());
        }
        metrics.completed(settings.name(), kind, "failed", seconds(t), 0);
    }

    private void removed(String name, Outcome outcome) {
        trash.remove(name);
        if (outcome instanceof Outcome.Removed) {
            deleteQuietly(dir.trashFile(name));
            metrics.completed(settings.name(), KIND_REMOVE, "removed", 0, 0);
        } else {
            LOG.warn("{}: removing the tape copy of {} did not complete ({}); the trash entry stays and is tried "
                    + "again at the next rescan", settings.name(), name, outcome);
            metrics.completed(settings.name(), KIND_REMOVE, "failed", 0, 0);
        }
    }

    // ------------------------------------------------------------------ delivered files

    /** Gives a request's buffer space back and lets waiting drives try again. */
    private void freeSpace(long id) {
        if (buffer.release(id)) {
            scheduler.spaceFreed();
        }
    }

    /**
     * Once a second: free space is measured (the scheduler's loop must not wait for a filesystem), drives that
     * were refused space ask again (the pool's disk may have room now even though nothing was released), and
     * without a watcher taken files release their space (with one, removal events and rescans say it).
     */
    private void tick() {
        buffer.measure();
        long refusals = buffer.refusals();
        if (refusals != refusalsSeen) {
            refusalsSeen = refusals;
            scheduler.spaceFreed();
        }
        if (watcher == null) {
            checkPickups(); // one stat per delivered file: only when no removal events say it
        }
    }

    private void checkPickups() {
        List<Tracked> delivered = new ArrayList<>();
        for (Tracked t : requests.values()) {
            if (t.state == Tracked.State.DELIVERED) {
                delivered.add(t);
            }
        }
        for (Tracked t : delivered) {
            checkPickup(t);
        }
    }

    /** A delivered file the pool took frees its space; one left behind by a cancelled request is an orphan. */
    private void checkPickup(Tracked t) {
        Path in = dir.inFile(t.pnfsid);
        if (!present(in)) {
            finishDelivered(t);
            return;
        }
        if (t.requestGoneMillis != 0 && wallClock.getAsLong() - t.requestGoneMillis > settings.orphanMillis()) {
            LOG.info("{}: removing {}: delivered, but its request went away {} ms ago and the pool never took it",
                    settings.name(), in, wallClock.getAsLong() - t.requestGoneMillis);
            deleteQuietly(in);
            deleteQuietly(dir.checksumFile(t.pnfsid));
            finishDelivered(t);
        }
    }

    private void finishDelivered(Tracked t) {
        requests.remove(t.pnfsid, t);
        freeSpace(t.id);
        t.state = Tracked.State.ACKNOWLEDGED;
        if (t.requestGoneMillis == 0 && Files.exists(dir.requestFile(t.pnfsid), LinkOption.NOFOLLOW_LINKS)) {
            // Both providers remove the request before they take the file; someone else removed it.
            LOG.warn("{}: {} disappeared from in/ but its request is still there; staging it again",
                    settings.name(), t.pnfsid);
            read(List.of(t.pnfsid));
        }
    }

    // ------------------------------------------------------------------ status and shutdown

    /** A snapshot, taken on the bridge's thread. */
    public CompletableFuture<BridgeStatus> status(int maxListed) {
        CompletableFuture<BridgeStatus> f = new CompletableFuture<>();
        Runnable snapshot = () -> {
            Map<Tracked.State, Integer> byState = new EnumMap<>(Tracked.State.class);
            long oldest = 0;
            List<Tracked> attention = new ArrayList<>();
            for (Tracked t : requests.values()) {
                byState.merge(t.state, 1, Integer::sum);
                if (t.state == Tracked.State.QUEUED || t.state == Tracked.State.WAITING_LINK) {
                    oldest = oldest == 0 ? t.seenMillis : Math.min(oldest, t.seenMillis);
                }
                if (t.state == Tracked.State.PARKED) {
                    attention.add(t);
                }
            }
            attention.sort(Comparator.comparingLong(t -> t.seenMillis));
            List<BridgeStatus.Parked> parked = new ArrayList<>();
            for (Iterator<Tracked> it = attention.iterator(); it.hasNext() && parked.size() < maxListed; ) {
                Tracked t = it.next();
                parked.add(new BridgeStatus.Parked(t.pnfsid, t.seenMillis, t.reason));
            }
            Map<String, Integer> states = new HashMap<>();
            byState.forEach((k, v) -> states.put(k.name().toLowerCase(Locale.ROOT), v));
            f.complete(new BridgeStatus(settings.name(), dir.base().toString(), states, trash.size(),
                    inScheduler.size(), oldest, buffer.reservedBytes(), buffer.capacity(), buffer.refusals(),
                    rejected, attention.size(), parked));
        };
        try {
            thread.execute(snapshot);
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(new IllegalStateException(settings.name() + " is stopped"));
        }
        return f;
    }

    /**
     * Whether a file is at {@code p}, following a symbolic link (a dangling one counts as nothing, as it does for
     * the provider reading it). For probes whose usual answer is no: unlike {@code Files.exists(p,
     * NOFOLLOW_LINKS)}, which builds and catches a NoSuchFileException, this costs one stat and no exception.
     * At a million requests those exceptions took a third of this thread at restart.
     */
    private static boolean present(Path p) {
        return Files.exists(p);
    }

    private void run(Runnable task) {
        try {
            thread.execute(safe(task));
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: stopping; a task was dropped (its request stays in the directory)", settings.name());
        }
    }

    /** A task for the bridge thread that logs what it throws: an executor would swallow it, and stop repeating. */
    private Runnable safe(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.error("{}: unexpected failure on the bridge thread", settings.name(), e);
            }
        };
    }

    private double seconds(Tracked t) {
        return (wallClock.getAsLong() - t.seenMillis) / 1000.0;
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", p, e.toString());
        }
    }

    /** Stops watching and serving; requests in the scheduler are left to it. The directory stays as it is. */
    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (lock != null) {
                lock.close();
            }
        } catch (IOException e) {
            LOG.debug("releasing the lock: {}", e.toString());
        }
    }
}
