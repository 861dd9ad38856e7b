package org.tapeq.loadtest.run;

import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import diskCacheV111.util.PnfsId;
import org.dcache.pool.nearline.spi.NearlineStorage;
import org.dcache.util.Checksum;
import org.dcache.util.ChecksumType;
import org.tapeq.scheduler.time.Threads;
import org.tapeq.poolemulator.ProviderPlugin;
import org.tapeq.loadtest.run.RequestLog.End;
import org.tapeq.loadtest.run.RequestLog.Kind;
import org.tapeq.poolemulator.EmulatedFileRequest;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.poolemulator.PoolEmulator;
import org.tapeq.workload.CarouselWindow;
import org.tapeq.workload.scenario.Activity;
import org.tapeq.workload.scenario.Experiment;
import org.tapeq.workload.scenario.Scenario;

/**
 * One load test: the real provider plugin, driven by the dCache pool emulator, against a {@link Target}'s
 * request directory, issuing a {@link Plan} and recording every request and a {@link Sample} of the chain every
 * 10 s of library time (between 0.1 and 1 s of wall time).
 *
 * <p>Design notes.
 * <ol>
 * <li><b>Phases.</b> First the inputs of A-DT and carousel experiments are flushed and their disk copies dropped
 *     (not measured; an A-DT with {@code inputs} recalls what an earlier run wrote and writes nothing), and the
 *     drives are emptied where the target can ({@link Target#emptyDrives}), so that a recall pays for its mounts;
 *     then the measured phase issues each experiment's requests from one thread: a DT when each file's time has
 *     come, an A-DT all at once or up to {@code maxOutstanding}, a carousel while fewer than its window are
 *     requested or on disk, a burst all at once in batches of {@value #BATCH}.</li>
 * <li><b>Time.</b> The scenario is in library time; the issuing thread divides every time by the target's speed,
 *     the report multiplies back.</li>
 * <li><b>Files.</b> Disk copies are sparse files (zeros) of the planned size, so any size costs no disk and their
 *     Adler-32 is known without reading them; the provider checks each staged file against it. A stage that
 *     completes without its file of the right size on disk is lost. Files are consumed (deleted) when done: at
 *     once, or after the carousel's processing time.</li>
 * <li><b>End.</b> The run ends when every request has ended, at the timeout (what is outstanding is lost), or at
 *     {@link #stop} (Ctrl-C: outstanding requests stay outstanding and the record is partial). The record lists
 *     the files whose flush completed ({@link FileList}), for a later A-DT to recall.</li>
 * </ol>
 */
public final class LoadRun {

    static final int BATCH = 1000;
    private static final String HSM_TYPE = "osm";
    private static final String HSM_NAME = "loadtest";
    /** Samples are 10 s of library time apart, but at least 100 ms and at most 1 s of wall time. */
    private static final long SAMPLE_LIBRARY_MILLIS = 10_000;
    private static final long SAMPLE_MIN_MILLIS = 100;
    private static final long SAMPLE_MAX_MILLIS = 1000;
    private static final long IDLE_SLEEP_MILLIS = 2;
    private static final int MAX_PROBLEMS = 20;
    /** How long (wall time) the drives may take to give their cartridges back before the measured phase. */
    static final long EMPTY_DRIVES_MINUTES = 15;

    private final Scenario scenario;
    private final Plan plan;
    private final Target target;
    private final Path poolDir;
    private final Progress progress;
    private final double speed;
    private final RequestLog log;
    private final long sampleMillis;
    private final Map<UUID, Integer> inFlight = new ConcurrentHashMap<>();
    /** pnfsids of the measured phase's flushes that completed */
    private final Set<String> flushed = ConcurrentHashMap.newKeySet();
    private final AtomicIntegerArray outstanding;
    /** Per experiment: its carousel window, or null; set before the measured phase issues anything. */
    private volatile CarouselWindow[] windows;
    private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopped;
    private volatile String stopReason;
    private volatile long t0;
    private volatile String phase = "prepare";
    private ScheduledExecutorService background;
    private ScheduledExecutorService prober;
    private volatile Target.Probe lastProbe = Target.Probe.UNKNOWN;
    private PoolEmulator pool;

    public LoadRun(Scenario scenario, Plan plan, Target target, Path poolDir, PrintStream progressOut,
                   boolean terminal) {
        this.scenario = scenario;
        this.plan = plan;
        this.target = target;
        this.poolDir = poolDir;
        this.progress = new Progress(progressOut, terminal);
        this.speed = target.speed();
        this.log = new RequestLog(plan.measuredCount());
        this.sampleMillis = Math.max(SAMPLE_MIN_MILLIS, Math.min(SAMPLE_MAX_MILLIS,
                (long) (SAMPLE_LIBRARY_MILLIS / speed)));
        this.outstanding = new AtomicIntegerArray(scenario.experiments().size());
    }

    /** Stops issuing and ends the run as soon as possible with a partial record (the Ctrl-C path). */
    public void stop(String reason) {
        stopReason = reason;
        stopped = true;
    }

    /** Requests of the measured phase issued so far. */
    public long issued() {
        return log.issued(Kind.FLUSH) + log.issued(Kind.STAGE);
    }

    public RunRecord run() throws IOException, InterruptedException {
        Files.createDirectories(poolDir);
        NearlineStorage provider = ProviderPlugin.load(HSM_TYPE, HSM_NAME, target.requestDirectory());
        // The consumer deletes files when done and the sampler samples; work is scheduled by time, so the queue is
        // the scheduled-executor's own (it holds at most one deletion per request in flight).
        background = new ScheduledThreadPoolExecutor(2, Threads.numbered("loadtest-background"));
        prober = Executors.newSingleThreadScheduledExecutor(Threads.named("loadtest-probe"));
        prober.execute(this::probe);
        try (PoolEmulator p = PoolEmulator.builder().hsm(HSM_TYPE, HSM_NAME).dataDirectory(poolDir)
                .trackInFlight(false).build()) {
            pool = p;
            pool.attach(provider);
            pool.onFinished(this::finished);
            long prepStart = System.nanoTime();
            List<List<PlannedFile>> measured = new ArrayList<>(plan.measured());
            int prepareFailed = prepare(measured);
            long prepareMillis = target.inputsOnTape() ? 0 : (System.nanoTime() - prepStart) / 1_000_000;
            Target.Emptied emptied = stopped ? null : emptyDrives();
            probeOnce();
            Instant started = Instant.now();
            t0 = System.nanoTime();
            phase = "measure";
            sample();
            issueAll(measured);
            awaitEnd();
            long wall = System.nanoTime() - t0;
            if (stopped) {
                log.endOutstanding(End.OUTSTANDING, wall);
            } else if (log.outstanding() > 0) {
                problem(log.outstanding() + " request(s) unanswered at the timeout of "
                        + scenario.timeoutMillis() / 1000 + " s (library time): lost");
                log.endOutstanding(End.LOST, wall);
            }
            probeOnce();
            sampleNow();
            progress.end();
            for (String v : pool.violations()) {
                problem("SPI violation: " + v);
            }
            return new RunRecord(scenario, target.describe(), started, wall, speed, stopped, stopReason, log,
                    List.copyOf(samples), target.mountsPerCartridge(), plan.prepare().size(), prepareFailed,
                    prepareMillis, emptied, written(), List.copyOf(problems), pool.violations().size(),
                    target.transfers(t0));
        } finally {
            prober.shutdownNow();
            background.shutdownNow();
            inFlight.clear();
            provider.shutdown();
        }
    }

    /** Flushes the inputs of A-DT and carousel experiments; drops failed ones from {@code measured}. */
    private int prepare(List<List<PlannedFile>> measured) throws IOException, InterruptedException {
        List<PlannedFile> files = plan.prepare();
        if (files.isEmpty() || target.inputsOnTape()) {
            return 0;
        }
        progress.say(String.format("prepare: writing %,d input files through the chain (not measured)", files.size()));
        List<EmulatedFlushRequest> flushes = new ArrayList<>();
        for (int i = 0; i < files.size() && !stopped; i += BATCH) {
            List<EmulatedFlushRequest> batch = new ArrayList<>();
            for (PlannedFile f : files.subList(i, Math.min(files.size(), i + BATCH))) {
                batch.add(newFlush(f));
            }
            flushes.addAll(batch);
            pool.flush(batch);
        }
        long deadline = System.nanoTime() + timeoutNanos();
        long ended;
        while ((ended = flushes.stream().filter(f -> f.outcome() != null).count()) < flushes.size()) {
            if (stopped || System.nanoTime() > deadline) {
                stop(stopped ? stopReason : "the inputs were not all written before the timeout");
                break;
            }
            Target.Probe p = lastProbe;
            progress.show("prepare", ended, files.size(), new Sample(0, 0, 0, flushes.size() - ended, p.queued(),
                    p.mounts()), speed);
            Thread.sleep(SAMPLE_MAX_MILLIS);
        }
        progress.end();
        Set<String> failed = new HashSet<>();
        for (int i = 0; i < flushes.size(); i++) {
            Outcome o = flushes.get(i).outcome();
            if (o == null || !o.isCompleted()) {
                failed.add(files.get(i).pnfsid());
                problem("prepare: flush of " + files.get(i).pnfsid() + " " + (o == null ? "unanswered" : o));
            }
            Files.deleteIfExists(pool.replicaPath(new PnfsId(files.get(i).pnfsid())));
        }
        if (!failed.isEmpty()) {
            measured.replaceAll(list -> list.stream().filter(f -> !failed.contains(f.pnfsid())).toList());
        }
        return failed.size();
    }

    /** Empties the drives before the measured phase, if the target can; a timeout is a problem, not the end. */
    private Target.Emptied emptyDrives() throws InterruptedException {
        progress.say("emptying the drives before the measured phase");
        Target.Emptied emptied = target.emptyDrives(TimeUnit.MINUTES.toNanos(EMPTY_DRIVES_MINUTES));
        if (emptied != null && !emptied.empty()) {
            problem("the drives still held cartridges after " + EMPTY_DRIVES_MINUTES + " minutes (wall time) of "
                    + "unloading; the measured phase started with them mounted");
        }
        return emptied;
    }

    /** The measured phase's files whose flush completed, in the order of the plan. */
    private List<FileList.Entry> written() {
        List<FileList.Entry> written = new ArrayList<>();
        for (List<PlannedFile> files : plan.measured()) {
            for (PlannedFile f : files) {
                if (flushed.contains(new PnfsId(f.pnfsid()).toString())) {
                    written.add(FileList.Entry.of(f, scenario.experiments().get(f.experiment()).name()));
                }
            }
        }
        return written;
    }

    private void issueAll(List<List<PlannedFile>> measured) throws IOException, InterruptedException {
        CarouselWindow[] w = new CarouselWindow[measured.size()];
        for (int x = 0; x < w.length; x++) {
            Experiment e = scenario.experiments().get(x);
            if (e.activity() == Activity.CAROUSEL) {
                // of the inputs it recalls: those whose flush in the prepare phase failed are not among them
                w[x] = new CarouselWindow(measured.get(x).size(), e.windowPercent(), e.processMillis());
            }
        }
        windows = w;
        int[] next = new int[measured.size()];
        long deadline = timeoutNanos();
        while (!stopped) {
            long now = System.nanoTime() - t0;
            if (now > deadline) {
                return;
            }
            boolean all = true;
            int issued = 0;
            for (int x = 0; x < measured.size(); x++) {
                List<PlannedFile> files = measured.get(x);
                Experiment e = scenario.experiments().get(x);
                int from = next[x];
                int to = Math.min(files.size(), from + Math.min(BATCH, allowed(e, x, files, from, now)));
                if (to > from) {
                    submit(e, files.subList(from, to), now);
                    next[x] = to;
                    issued += to - from;
                }
                all &= next[x] == files.size();
            }
            if (all) {
                return;
            }
            if (issued == 0) {
                Thread.sleep(IDLE_SLEEP_MILLIS);
            }
        }
    }

    /** How many of experiment {@code x}'s next files may be issued now. */
    private int allowed(Experiment e, int x, List<PlannedFile> files, int from, long nowNanos) {
        int left = files.size() - from;
        switch (e.activity()) {
            case DT: {
                int n = 0;
                while (n < left && wallNanos(files.get(from + n).atMillis()) <= nowNanos) {
                    n++;
                }
                return n;
            }
            case ADT:
                return e.maxOutstanding() == 0 ? left : Math.max(0, e.maxOutstanding() - outstanding.get(x));
            case CAROUSEL:
                return windows[x].free();
            default:
                return left;
        }
    }

    private void submit(Experiment e, List<PlannedFile> files, long nowNanos) throws IOException {
        int x = files.get(0).experiment();
        if (e.activity() == Activity.DT) {
            List<EmulatedFlushRequest> batch = new ArrayList<>(files.size());
            for (PlannedFile f : files) {
                EmulatedFlushRequest r = newFlush(f);
                inFlight.put(r.getId(), log.add(Kind.FLUSH, x, f.size(), nowNanos));
                batch.add(r);
            }
            outstanding.addAndGet(x, files.size());
            pool.flush(batch);
        } else {
            List<EmulatedStageRequest> batch = new ArrayList<>(files.size());
            for (PlannedFile f : files) {
                List<Checksum> sums = f.path() == null ? null
                        : List.of(new Checksum(ChecksumType.ADLER32, f.adler32Hex()));
                EmulatedStageRequest r = pool.newStage(new PnfsId(f.pnfsid()), f.size(), f.storageClass(), f.path(),
                        sums);
                inFlight.put(r.getId(), log.add(Kind.STAGE, x, f.size(), nowNanos));
                batch.add(r);
            }
            outstanding.addAndGet(x, files.size());
            if (windows[x] != null) {
                windows[x].taken(files.size());
            }
            pool.stage(batch);
        }
    }

    /** A sparse disk copy of {@code f} and the flush request for it. */
    private EmulatedFlushRequest newFlush(PlannedFile f) throws IOException {
        PnfsId id = new PnfsId(f.pnfsid());
        try (RandomAccessFile file = new RandomAccessFile(pool.replicaPath(id).toFile(), "rw")) {
            file.setLength(f.size());
        }
        return pool.newFlush(id, f.size(), f.storageClass(), f.path(),
                List.of(new Checksum(ChecksumType.ADLER32, f.adler32Hex())));
    }

    /** The pool saw a request end (on the provider's thread). Requests of the prepare phase are not logged. */
    private void finished(EmulatedRequest<?> request) {
        Integer i = inFlight.remove(request.getId());
        if (i == null || background.isShutdown()) {
            return; // a request of the prepare phase, or one cancelled as the provider shuts down after the run
        }
        long now = System.nanoTime() - t0;
        int x = log.experiment(i);
        outstanding.decrementAndGet(x);
        Outcome o = request.outcome();
        Path replica = pool.replicaPath(((EmulatedFileRequest<?>) request).pnfsId());
        if (!o.isCompleted()) {
            log.end(i, End.FAILED, now);
            problem(log.kind(i).name().toLowerCase() + " " + request + " failed: " + o);
            CarouselWindow window = windows[x];
            if (window != null) {
                window.released(); // a failed stage frees its slot at once
            }
            consume(replica, 0, null);
            return;
        }
        if (log.kind(i) == Kind.FLUSH) {
            flushed.add(((EmulatedFileRequest<?>) request).pnfsId().toString());
            log.end(i, End.COMPLETED, now);
            consume(replica, 0, null);
            return;
        }
        long size;
        try {
            size = Files.size(replica);
        } catch (IOException e) {
            size = -1;
        }
        if (size != log.bytes(i)) {
            log.end(i, End.LOST, now);
            problem("stage " + request + " completed, but " + replica + (size < 0 ? " is missing" : " has " + size
                    + " bytes, not " + log.bytes(i)) + ": lost");
        } else {
            log.end(i, End.COMPLETED, now);
        }
        CarouselWindow window = windows[x];
        consume(replica, window == null ? 0 : (long) (window.holdMillis(true) / speed), window);
    }

    /** Deletes a disk copy after {@code delayMillis}; a staged file leaves its carousel window (if any) then. */
    private void consume(Path replica, long delayMillis, CarouselWindow window) {
        if (background.isShutdown()) {
            return;
        }
        background.schedule(() -> {
            try {
                Files.deleteIfExists(replica);
            } catch (IOException e) {
                problem("cannot delete " + replica + ": " + e.getMessage());
            }
            if (window != null) {
                window.released();
            }
        }, delayMillis, TimeUnit.MILLISECONDS);
    }

    private void awaitEnd() throws InterruptedException {
        long deadline = timeoutNanos();
        while (!stopped && log.outstanding() > 0 && System.nanoTime() - t0 <= deadline) {
            Thread.sleep(IDLE_SLEEP_MILLIS * 10);
        }
    }

    /** Samples from the run's own counters and the last probe of the daemon. */
    private void sample() {
        sampleNow();
        if (!background.isShutdown()) {
            background.schedule(this::sample, sampleMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void sampleNow() {
        Target.Probe p = lastProbe;
        Sample s = new Sample((System.nanoTime() - t0) / 1_000_000, log.bytesDone(Kind.FLUSH),
                log.bytesDone(Kind.STAGE), log.outstanding(), p.queued(), p.mounts());
        samples.add(s);
        long done = log.finished(Kind.FLUSH) + log.finished(Kind.STAGE);
        progress.show(phase, done, plan.measuredCount(), s, speed);
    }

    /**
     * Asks the daemon for its queue depth and mounts, then again after a sample interval, or after twenty times as
     * long as the answer took (a directory of a million request files is not listed every second).
     */
    private void probe() {
        long t = System.nanoTime();
        probeOnce();
        long took = (System.nanoTime() - t) / 1_000_000;
        if (!prober.isShutdown()) {
            prober.schedule(this::probe, Math.max(sampleMillis, 20 * took), TimeUnit.MILLISECONDS);
        }
    }

    private void probeOnce() {
        try {
            lastProbe = target.probe();
        } catch (IOException | RuntimeException e) {
            lastProbe = Target.Probe.UNKNOWN;
            problem("probing the daemon failed: " + e);
        }
    }

    private void problem(String text) {
        synchronized (problems) {
            if (problems.size() < MAX_PROBLEMS) {
                problems.add(text);
            }
        }
    }

    private long wallNanos(long libraryMillis) {
        return (long) (libraryMillis * 1e6 / speed);
    }

    private long timeoutNanos() {
        return wallNanos(scenario.timeoutMillis());
    }
}
