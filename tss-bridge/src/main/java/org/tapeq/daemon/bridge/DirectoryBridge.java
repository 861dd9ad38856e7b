package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.DirectoryWatcher;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.RequestOrigin;
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
 * </ul>
 */
public final class DirectoryBridge implements RequestOrigin, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DirectoryBridge.class);

    private static final long TICK_MILLIS = 1000;
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
    private final BridgeThread thread;
    private final StageBuffer buffer;
    private final RequestTable table = new RequestTable();
    private final Answers answers;
    private final Pickups pickups;
    private final Admission admission;
    private final Intake intake;
    private final WatchEvents events;
    private DirectoryWatcher watcher;
    private ExclusiveLock lock;

    public DirectoryBridge(BridgeSettings settings, BridgeServices services) throws IOException {
        this(settings, services, AtomicFiles::write);
    }

    /** With the writer of error files given (tests make it fail as a full filesystem would). */
    DirectoryBridge(BridgeSettings settings, BridgeServices services, ErrorAnswers.Writer errorFiles)
            throws IOException {
        this.settings = settings;
        this.dir = RequestDirectory.at(settings.path());
        List<String> problems = dir.problems();
        if (!problems.isEmpty()) {
            throw new IOException("request directory " + settings.path() + " (" + settings.name() + "): "
                    + String.join("; ", problems));
        }
        this.buffer = new StageBuffer(settings.name(), dir.inDir(), settings.stageBuffer(), settings.reserveBytes());
        this.thread = new BridgeThread(settings.name());
        BridgeContext cx = new BridgeContext(settings, dir, services, buffer, thread, this);
        this.answers = new Answers(cx, table, errorFiles);
        this.pickups = new Pickups(cx, table, this::reread);
        this.admission = new Admission(cx, table, answers, pickups);
        this.intake = new Intake(cx, table, admission, answers, pickups, services.intake(), services.intakeBatches());
        this.events = new WatchEvents(cx, intake);
        services.metrics().directory(settings.name());
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

    /** Where the watcher's events go (tests call it as the watcher would). */
    DirectoryWatcher.Listener watchListener() {
        return events;
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
        thread.every(pickups::tick, TICK_MILLIS);
        return intake.ready();
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

    /** Called by the scheduler's listener on its loop; the work happens on this bridge's thread. */
    public void completed(TapeRequest request, Outcome outcome) {
        thread.run(() -> answers.outcome(request, outcome));
    }

    /** A snapshot, taken on the bridge's thread. */
    public CompletableFuture<BridgeStatus> status(int maxListed) {
        CompletableFuture<BridgeStatus> f = new CompletableFuture<>();
        Runnable snapshot = () -> {
            RequestTable.Summary s = table.summary(maxListed);
            f.complete(new BridgeStatus(settings.name(), dir.base().toString(), s.states(), s.removing(),
                    s.inScheduler(), s.oldestMillis(), buffer.reservedBytes(), buffer.capacity(), buffer.refusals(),
                    intake.rejected(), s.parkedCount(), s.parked(), intake.rescans(), intake.backlog(),
                    intake.pauses(), intake.reads()));
        };
        if (!thread.tryRun(snapshot)) {
            f.completeExceptionally(new IllegalStateException(settings.name() + " is stopped"));
        }
        return f;
    }

    /** Stops watching and serving; requests in the scheduler are left to it. The directory stays as it is. */
    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
        thread.close();
        try {
            if (lock != null) {
                lock.close();
            }
        } catch (IOException e) {
            LOG.debug("releasing the lock: {}", e.toString());
        }
    }
}
