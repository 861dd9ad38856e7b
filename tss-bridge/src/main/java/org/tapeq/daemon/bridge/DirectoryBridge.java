package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.DirectoryWatcher;
import org.tapeq.protocol.HeldDirectory;
import org.tapeq.protocol.HeldRequestDirectory;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.RequestOrigin;
import org.tapeq.scheduler.model.SourceAccess;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.model.TapeRequest;

/**
 * Serves one ENDIT-style request directory with the scheduler: request files become scheduler requests, and
 * every outcome is answered through the directory. This class is the wiring; the work is done by its parts.
 *
 * <p>Design notes.
 * <ul>
 * <li><b>One owner.</b> All state lives on one named thread ({@link BridgeThread}); the watcher, the intake pool
 *     and the scheduler's loop only post work to it. The parts, each owning its own state: {@link Intake}
 *     (events, rescans, reads, back-pressure), {@link RequestTable} (the requests being served),
 *     {@link Admission} (requests to the scheduler, withdrawals), {@link Answers} (outcomes to the directory),
 *     {@link Pickups} (delivered files and their space); {@link Tracked} holds one request's state.</li>
 * <li><b>Origin.</b> The bridge is the {@link RequestOrigin} of every request it hands to the scheduler:
 *     {@link #LISTENER} and {@link #STAGE_SPACE} find a request's bridge through it, whatever the number of
 *     directories.</li>
 * <li><b>The directory and the catalog are the truth.</b> Nothing else is persisted. At start partial stage
 *     files are removed and every request file is read again; each step's commit point is an atomic rename or
 *     unlink, so a kill at any moment neither loses a request nor answers one twice.</li>
 * <li><b>Held open.</b> The base directory and its subdirectories are opened at start and every file access
 *     goes through those handles ({@link HeldRequestDirectory}), stage targets included ({@link #openTarget}):
 *     a subdirectory renamed and replaced by a link or another directory at run time redirects nothing. Once a
 *     second, at every rescan and before every batch of answers (the outcomes that arrived together), the
 *     bridge checks that the paths still name what it opened; if not it stops serving the directory for good
 *     (an ERROR, {@code stopped} in status, its requests withdrawn from the scheduler) until the operator
 *     restores it and restarts the daemon. Flush sources too are looked at and read through the held
 *     {@code out/} ({@link #sources}).</li>
 * </ul>
 */
public final class DirectoryBridge implements RequestOrigin, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DirectoryBridge.class);

    private static final long TICK_MILLIS = 1000;
    /**
     * How often each part of the daemon publishes its status snapshot on its own thread (a bridge, the scheduler's
     * loop): a status shows what is at most this old while the thread is free, and never waits for it.
     */
    public static final long STATUS_REFRESH_MILLIS = 250;
    /** Outcomes answered by one task of the bridge's thread at most. */
    private static final int OUTCOME_BATCH = 4096;
    private static final String LOCK_FILE = ".tapeq-daemon.lock";

    /** The scheduler's one listener for every directory: hands each outcome to the bridge its request came from. */
    public static final RequestListener LISTENER = (request, outcome) -> {
        if (request.origin() instanceof DirectoryBridge b) {
            b.completed(request, outcome);
        } else {
            LOG.error("Outcome {} of {} (id {}) has no directory; dropped", outcome, request.pnfsid(), request.id());
        }
    };

    /** The scheduler's stage-space hook for every directory: each file's room is asked of its own directory. */
    public static final StageSpace STAGE_SPACE = new StageBuffers();

    private final BridgeSettings settings;
    private final RequestDirectory dir;
    private final DirectoryGuard guard;
    private final BridgeThread thread;
    private final StageBuffer buffer;
    private final RequestTable table;
    private final Answers answers;
    private final Pickups pickups;
    private final Admission admission;
    private final Intake intake;
    private final WatchEvents events;
    private final BridgeServices services;
    /** Outcomes from the scheduler's loop not yet taken by the bridge's thread, and whether a task will take them. */
    private final Queue<Answers.Ended> ended = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean endedPosted = new AtomicBoolean();
    private DirectoryWatcher watcher;
    private ExclusiveLock lock;
    /** The last reason logged while waiting for the lock (logged once), written by the starting thread only. */
    private String lockWaitReported;
    /** Whether the stop of service was logged; on the bridge's thread. */
    private boolean stopReported;
    /** The status as the bridge's thread last published it ({@link #publishStatus}); read by any thread. */
    private volatile BridgeStatus published;

    public DirectoryBridge(BridgeSettings settings, BridgeServices services) throws IOException {
        this(settings, services, null);
    }

    /**
     * With the writer of error files given (tests make it fail as a full filesystem would); null writes them
     * through the request/ directory held open.
     */
    DirectoryBridge(BridgeSettings settings, BridgeServices services, ErrorAnswers.Writer errorFiles)
            throws IOException {
        this.settings = settings;
        this.services = services;
        this.dir = RequestDirectory.at(settings.path());
        List<String> problems = dir.problems();
        if (!problems.isEmpty()) {
            throw new IOException("request directory " + settings.path() + " (" + settings.name() + "): "
                    + String.join("; ", problems));
        }
        HeldRequestDirectory held = HeldRequestDirectory.open(dir);
        this.guard = new DirectoryGuard(held);
        try {
            this.buffer = new StageBuffer(settings.name(), dir.inDir(), settings.stageBuffer(), settings.reserveBytes());
        } catch (IOException | RuntimeException e) {
            held.close();
            throw e;
        }
        this.thread = new BridgeThread(settings.name());
        this.table = new RequestTable(new StageTargets(dir.inDir()));
        BridgeContext cx = new BridgeContext(settings, guard, services, buffer, thread, this);
        this.pickups = new Pickups(cx, table, this::reread);
        this.answers = new Answers(cx, table, errorFiles != null ? errorFiles
                : (file, content) -> guard.held.request().write(file.getFileName().toString(), content, false),
                pickups);
        this.admission = new Admission(cx, table, answers, pickups);
        this.intake = new Intake(cx, table, admission, answers, pickups, services.intake(), services.intakeBatches());
        this.events = new WatchEvents(cx, intake);
        services.metrics().directory(settings.name());
        publishStatus(); // nothing read yet; no thread runs: the first snapshot is taken here
    }

    /** A delivered file vanished while its request is still there: the request is read again. */
    private void reread(String pnfsid) {
        intake.read(List.of(pnfsid));
    }

    @Override
    public String name() {
        return settings.name();
    }

    StageBuffer buffer() {
        return buffer;
    }

    /** Runs {@code task} on the bridge's thread, after the work already posted (tests block the thread with it). */
    void onThread(Runnable task) {
        thread.run(task);
    }

    /** Where the watcher's events go (tests call it as the watcher would). */
    DirectoryWatcher.Listener watchListener() {
        return events;
    }

    /**
     * Takes the directory's lock, removes partial files, starts watching and reads every request file. The
     * future completes when every request found at start has been handed to the scheduler or answered.
     */
    public CompletableFuture<Void> start() throws IOException {
        return start(why -> { });
    }

    /**
     * {@link #start()}, waiting up to {@code lockWaitMillis} for a lock held by another process; {@code lockWaiting}
     * is told why meanwhile (null once it is taken or the wait given up).
     */
    public CompletableFuture<Void> start(Consumer<String> lockWaiting) throws IOException {
        lock = ExclusiveLock.takeWaiting(guard.held.base(), LOCK_FILE, "request directory " + dir.base(),
                settings.lockWaitMillis(), why -> {
                    if (why != null && !why.equals(lockWaitReported)) {
                        LOG.warn("{}: {}", settings.name(), why);
                    }
                    lockWaitReported = why;
                    lockWaiting.accept(why);
                });
        removePartials();
        if (settings.watch()) {
            try {
                watcher = DirectoryWatcher.of(dir)
                        .watch(RequestDirectory.REQUEST, DirectoryWatcher.Change.CREATED,
                                DirectoryWatcher.Change.REMOVED, DirectoryWatcher.Change.MODIFIED)
                        .watch(RequestDirectory.OUT, DirectoryWatcher.Change.CREATED)
                        .watch(RequestDirectory.TRASH, DirectoryWatcher.Change.CREATED)
                        .watch(RequestDirectory.IN, DirectoryWatcher.Change.REMOVED)
                        .threadName("tapeq-" + settings.name() + "-watch")
                        .listener(events)
                        .build();
            } catch (IOException e) {
                LOG.warn("{}: cannot watch {} ({}); relying on rescans every {} ms", settings.name(), dir.base(),
                        e.toString(), settings.rescanMillis());
            }
        }
        pickups.watched(watcher != null);
        if (watcher != null) {
            watcher.start();
        }
        thread.run(intake::rescan);
        thread.every(intake::rescan, settings.rescanMillis());
        thread.every(this::tick, TICK_MILLIS);
        thread.every(this::publishStatus, STATUS_REFRESH_MILLIS);
        // The status is published when every request found at start is read, before the caller hears of it.
        CompletableFuture<Void> ready = new CompletableFuture<>();
        intake.ready().whenComplete((v, e) -> {
            Runnable tell = () -> {
                if (e != null) {
                    ready.completeExceptionally(e);
                } else {
                    ready.complete(null);
                }
            };
            if (!thread.tryRun(() -> {
                publishStatus();
                tell.run();
            })) {
                tell.run(); // stopping: nothing more to publish
            }
        });
        return ready;
    }

    private void tick() {
        String stopped = guard.check();
        admission.reportCancellations();
        if (stopped == null) {
            pickups.tick();
        } else if (!stopReported) {
            stopReported = true;
            stopServing(stopped);
        }
    }

    /**
     * A path in the directory names something else now: nothing more is read or written there, and the requests
     * in the scheduler are withdrawn (the pool sends them again once the directory is served again).
     */
    private void stopServing(String why) {
        List<Tracked> queued = table.inState(Tracked.State.QUEUED);
        for (Tracked t : queued) {
            if (t.ticket() != null) {
                services.scheduler().cancel(t.ticket());
            }
        }
        LOG.error("{}: STOPPED serving request directory {}: {}. Nothing is read or written there any more and "
                + "{} queued request(s) were withdrawn. Restore the directory (a real directory, not a link) and "
                + "restart the daemon; see docs/operations.md", settings.name(), dir.base(), why, queued.size());
    }

    /**
     * Opens a stage's target in the in/ directory held open at start, never by its path; refused once the bridge
     * stopped serving the directory.
     */
    @Override
    public SeekableByteChannel openTarget(StageRequest request) throws IOException {
        Path target = request.target();
        String stopped = guard.stopped();
        if (stopped != null) {
            throw new IOException("not writing " + target + ": request directory " + dir.base()
                    + " is no longer served (" + stopped + ")");
        }
        try {
            return guard.held.openStageTarget(target);
        } catch (ClosedDirectoryStreamException e) {
            // Only if a drive outlived the stop's wait for it: the request stays for the next start.
            throw new IOException("not writing " + target + ": the daemon is stopping and has let go of "
                    + dir.inDir() + "; the request is served after the next start", e);
        }
    }

    /** Flush sources are looked at and read in the out/ directory held open at start, never by their path. */
    @Override
    public SourceAccess sources() {
        return sources;
    }

    private final SourceAccess sources = new SourceAccess() {
        @Override
        public BasicFileAttributes attributes(Path source) throws IOException {
            return guard.held.out().attributes(inOut(source));
        }

        @Override
        public InputStream open(Path source) throws IOException {
            return guard.held.out().openRead(inOut(source));
        }

        @Override
        public boolean pooled() {
            return true;
        }
    };

    /** The name of {@code source} in out/; refused once the bridge stopped serving the directory. */
    private String inOut(Path source) throws IOException {
        String stopped = guard.stopped();
        if (stopped != null) {
            throw new IOException("request directory " + dir.base() + " is no longer served (" + stopped + ")");
        }
        return guard.held.sourceName(source);
    }

    /**
     * What a crash left half-written: every temporary file in in/ (only this daemon writes there: stage targets
     * and checksum files) and this daemon's error-file temporaries in request/ ({@code .<pnfsid>.err.<random>.tmp};
     * the provider's own temporaries there are left alone), and checksum files in in/ without their data file (a
     * crash between a batch's two renames, see Deliveries; the provider reads a checksum file before it moves the
     * data file out, so one whose data file is gone is no longer needed).
     */
    private void removePartials() throws IOException {
        removeTemporaries(guard.held.in(), name -> true);
        removeLoneChecksumFiles(guard.held.in());
        String errorPart = RequestDirectory.ERROR_SUFFIX + ".";
        removeTemporaries(guard.held.request(), name -> name.contains(errorPart));
    }

    private void removeTemporaries(HeldDirectory directory, Predicate<String> ours) throws IOException {
        int removed = 0;
        for (String n : directory.list()) {
            if (AtomicFiles.isTemporaryName(n) && ours.test(n)) {
                directory.delete(n);
                removed++;
            }
        }
        if (removed > 0) {
            LOG.info("{}: removed {} partial file(s) left in {}", settings.name(), removed, directory);
        }
    }

    private void removeLoneChecksumFiles(HeldDirectory in) throws IOException {
        int removed = 0;
        for (String n : in.list()) {
            String pnfsid = RequestDirectory.pnfsIdOfChecksumFile(n);
            if (pnfsid != null && !in.exists(pnfsid)) {
                in.delete(n);
                removed++;
            }
        }
        if (removed > 0) {
            LOG.info("{}: removed {} checksum file(s) without their staged file from {}", settings.name(), removed,
                    in);
        }
    }

    /**
     * Called by the scheduler's listener on its loop; the work happens on this bridge's thread, for every outcome
     * that arrived meanwhile at once (an aggregate's commit ends hundreds of flushes together).
     */
    public void completed(TapeRequest request, Outcome outcome) {
        ended.add(new Answers.Ended(request, outcome));
        if (endedPosted.compareAndSet(false, true)) {
            thread.run(this::answerEnded);
        }
    }

    /** On the bridge's thread: the outcomes posted so far, at most {@value #OUTCOME_BATCH} at a time. */
    private void answerEnded() {
        endedPosted.set(false); // before taking them: one added after this posts again
        List<Answers.Ended> batch = new ArrayList<>();
        while (batch.size() < OUTCOME_BATCH) {
            Answers.Ended e = ended.poll();
            if (e == null) {
                break;
            }
            batch.add(e);
        }
        if (batch.size() == OUTCOME_BATCH && !ended.isEmpty() && endedPosted.compareAndSet(false, true)) {
            thread.run(this::answerEnded); // the rest after the other work waiting on this thread
        }
        answers.outcomes(batch);
    }

    /**
     * The status the bridge's thread last published, with parked flushes {@code offset} to {@code offset + limit}
     * (oldest first); any thread, never waits for the bridge's thread. It is at most
     * {@link #STATUS_REFRESH_MILLIS} old while that thread is free ({@link BridgeStatus#takenMillis}).
     */
    public BridgeStatus status(int offset, int limit) {
        return published.page(offset, limit);
    }

    /**
     * Asks the bridge's thread for a snapshot after the work already posted to it; completes once it is published,
     * so that a {@link #status} read then shows everything the thread did before the call. Completes at once if the
     * thread has stopped (its last snapshot no longer changes). Never waits itself.
     */
    public CompletableFuture<Void> publishStatusNow() {
        CompletableFuture<Void> published = new CompletableFuture<>();
        if (!thread.tryRun(() -> {
            publishStatus();
            published.complete(null);
        })) {
            published.complete(null);
        }
        return published;
    }

    /**
     * Publishes a snapshot (on the bridge's thread, or before it runs): the counts kept as requests change
     * ({@link Ledger}) and every parked flush, never a walk through the requests.
     */
    private void publishStatus() {
        RequestTable.Summary s = table.summary(0, Integer.MAX_VALUE);
        published = new BridgeStatus(settings.name(), dir.base().toString(), s.states(), s.removing(),
                s.inScheduler(), s.oldestMillis(), buffer.reservedBytes(), buffer.capacity(), buffer.refusals(),
                intake.rejected(), s.parkedCount(), s.parked(), intake.rescans(), intake.backlog(),
                intake.pauses(), intake.reads(), guard.stopped(), services.wallClock().getAsLong());
    }

    /**
     * Stops watching, reading and answering (the first step of a stop); the directory stays held open, so a
     * drive still writing a stage into {@code in/} finishes its write. Its answer is not given: the request
     * stays for the next start. {@link #close} then lets go of the directory.
     */
    public void stop() {
        if (watcher != null) {
            watcher.close();
        }
        answers.close();
        thread.close();
    }

    /**
     * Stops (if not yet) and lets go of the directory: removes the lock and closes the held handles. Requests in
     * the scheduler are left to it. The directory stays as it is.
     */
    @Override
    public void close() {
        stop();
        try {
            if (lock != null) {
                lock.close();
            }
        } catch (IOException e) {
            LOG.warn("{}: removing the lock {}: {}", settings.name(), dir.base().resolve(LOCK_FILE), e.toString());
        }
        try {
            guard.held.close();
        } catch (IOException e) {
            LOG.debug("closing the request directory: {}", e.toString());
        }
    }
}
