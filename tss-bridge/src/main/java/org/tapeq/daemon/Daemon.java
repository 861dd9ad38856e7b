package org.tapeq.daemon;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.daemon.bridge.BridgeServices;
import org.tapeq.daemon.bridge.BridgeSettings;
import org.tapeq.daemon.bridge.BridgeStatus;
import org.tapeq.daemon.control.StatusPage;
import org.tapeq.daemon.bridge.DirectoryBridge;
import org.tapeq.daemon.bridge.ExclusiveLock;
import org.tapeq.daemon.bridge.IntakePool;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.daemon.config.DirectoryConfig;
import org.tapeq.daemon.config.LibraryConfig;
import org.tapeq.daemon.control.ControlServer;
import org.tapeq.daemon.http.HttpEndpoint;
import org.tapeq.daemon.metrics.Cached;
import org.tapeq.daemon.metrics.CatalogTimingMetrics;
import org.tapeq.daemon.metrics.DaemonMetrics;
import org.tapeq.daemon.metrics.DriveMetrics;
import org.tapeq.daemon.metrics.StateMetrics;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogLeaseException;
import org.tapeq.scheduler.catalog.SiteLease;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.catalog.jdbc.ProcessIdentity;
import org.tapeq.scheduler.engine.IoGate;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.SchedulerLoad;
import org.tapeq.scheduler.engine.lifecycle.ReclaimStatus;
import org.tapeq.scheduler.engine.Tuning;
import org.tapeq.scheduler.engine.drive.DriveObserver;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.scheduler.time.Threads;

/**
 * The running daemon: catalog, tape library, scheduler, one bridge per request directory, the HTTP endpoint
 * and the control socket, started in that order and closed in reverse.
 *
 * <p>Threads, all named: {@code tapeq-scheduler} (the event loop), {@code tapeq-io-N} (tape data copies and
 * flush pre-checks, bounded; what does not fit waits on the loop's {@code IoGate}), {@code tapeq-catalog} (the
 * scheduler's catalog writer), {@code tapeq-intake-N} (reading request files), one {@code tapeq-<dir>-bridge}
 * and {@code tapeq-<dir>-watch} per directory, {@code tapeq-http}, {@code tapeq-control-accept}, {@code
 * tapeq-control-1..4}, {@code tapeq-control-watchdog}, {@code tapeq-loop-probe}; with the SCSI backend
 * {@code tapeq-scsi-N} (commands), {@code tapeq-scsi-io-N} (their pipes) and {@code tapeq-scsi-watchdog}.
 */
public final class Daemon implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

    /** How long a stop waits for the I/O threads (drives) to end before it lets go of the request directories. */
    static final long STOP_WAIT_SECONDS = 30;
    /** How long a tool waits for an answer of the loop (the daemon's status never does: it reads snapshots). */
    public static final long STATUS_TIMEOUT_MILLIS = 5_000;
    private static final long LOOP_PROBE_MILLIS = 1_000;
    private static final long RATE_SAMPLE_MILLIS = 10_000;
    /** A staged file whose request went away is removed from in/ after this long (the provider's default is 600 s). */
    private static final long ORPHAN_MILLIS = 3_600_000;
    private static final String STATE_LOCK = "daemon.lock";
    /** Batches of request files (512 each) one directory may have in the intake pool at a time. */
    private static final int INTAKE_BATCHES = 8;
    /** Room in the I/O pool's queue, and the most I/O tasks the loop hands it at a time. */
    private static final int IO_QUEUE = 10_000;
    public static final String CONTROL_SOCKET = "control.sock";
    /** Under the state directory: where repacks keep the bytes between read and write. */
    public static final String REPACK_SPOOL = "repack-spool";

    /** The configuration the daemon started with: every key that needs a restart is in effect as it says. */
    private final DaemonConfig config;
    /** Told of each drive's events besides the metrics (the load test's transfer record), or NONE. */
    private final DriveObserver also;
    /** The configuration last applied by {@link #reload} (its reloadable keys are in effect); reload's lock. */
    private DaemonConfig applied;
    private final long startedMillis = System.currentTimeMillis();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    /** Read by status and metrics requests, which are served while the bridges are still being added. */
    private final List<DirectoryBridge> bridges = new CopyOnWriteArrayList<>();
    private final DaemonMetrics metrics = new DaemonMetrics();
    private final RateMeter rates = new RateMeter(7);
    private volatile DriveMetrics driveMetrics;
    // set by the starting thread, read by the HTTP and control threads, which start first: volatile
    private volatile RealTimeEventLoop loop;
    private volatile Catalog catalog;
    private volatile TapeLibrary library;
    private volatile Scheduler scheduler;
    private HttpEndpoint http;
    private final CatalogHealth catalogHealth = new CatalogHealth();
    private final CompletableFuture<String> deposed = new CompletableFuture<>();
    private long leaseAcquiredAt;
    /** Monotonic ns taken with {@link #leaseAcquiredAt} (the lease keeper measures ages on it). */
    private long leaseAcquiredAtNanos;
    private volatile LeaseKeeper lease;
    /** Guards {@link #startHold}, {@link #holdOnScheduler} and their reading of {@link #started}. */
    private final Object holdLock = new Object();
    /** Why the lease keeper held work during the start (the start aborts), or null. */
    private String startHold;
    /** Whether the lease keeper's holds reach the scheduler (it is built). */
    private boolean holdOnScheduler;
    /** Told of each step of the start (tests slow a step down with it). */
    private final Consumer<StartStep> startStep;
    /** Set at start when catalog.standby is on; says why the daemon waits until it holds the lease. */
    private volatile Standby standby;
    /** Why the start waits for a request directory's lock held by another process, or null. */
    private volatile String lockWaiting;
    /** The epoch of the site lease held, 0 until it is held. */
    private volatile long epoch;
    /** Every directory's requests found at start are queued: the daemon serves. */
    private volatile boolean started;
    private volatile boolean closed;
    private static final long SNAPSHOT_NANOS = 1_000_000_000L;
    private final Cached<Optional<SchedulerStatus>> cachedSchedulerStatus = new Cached<>(this::schedulerStatus,
            SNAPSHOT_NANOS);
    private final Cached<List<BridgeStatus>> cachedBridgeStatuses = new Cached<>(this::bridgeStatuses, SNAPSHOT_NANOS);
    private final Cached<Optional<SchedulerLoad>> cachedLoad = new Cached<>(this::schedulerLoad, SNAPSHOT_NANOS);

    private Daemon(DaemonConfig config, DriveObserver also, Consumer<StartStep> startStep) {
        this.config = config;
        this.applied = config;
        this.also = also;
        this.startStep = startStep;
    }

    /** Steps of the start a test may slow down. */
    enum StartStep {
        /** The library is open, the scheduler (inventory, every drive's status) not yet started. */
        LIBRARY_OPENED
    }

    /** Starts everything; the future completes when every directory's requests found at start are queued. */
    public static Daemon start(DaemonConfig config) throws IOException, InterruptedException {
        return start(config, DriveObserver.NONE);
    }

    /**
     * Starts everything, telling {@code also} (besides the metrics) what each drive does, on the event loop: it
     * must not block. The load test records each transfer's interval with it.
     */
    public static Daemon start(DaemonConfig config, DriveObserver also) throws IOException, InterruptedException {
        return start(config, also, step -> { });
    }

    /** Starts everything, telling {@code startStep} of each {@link StartStep} on the starting thread. */
    static Daemon start(DaemonConfig config, DriveObserver also, Consumer<StartStep> startStep)
            throws IOException, InterruptedException {
        Daemon d = new Daemon(config, also, startStep);
        try {
            d.startAll();
            return d;
        } catch (IOException | InterruptedException | RuntimeException e) {
            d.close();
            throw e;
        }
    }

    private void startAll() throws IOException, InterruptedException {
        LOG.info("Effective configuration:\n{}", config.describe());
        config.warnings().forEach(w -> LOG.warn("Configuration: {}", w));
        config.checkPaths(); // before anything starts: a missing directory is a configuration error (exit 78)
        Path state = config.state();
        closeables.add(ExclusiveLock.take(state.resolve(STATE_LOCK), "state directory " + state));
        // Up before the catalog, so that /ready, /metrics, status and admin commands answer while it is waited for.
        GaugeWithCallback.builder().name("tapeq_catalog_connected")
                .help("1 while the catalog answers, 0 while it is unreachable (or not yet opened at start)")
                .callback(cb -> cb.call(catalogHealth.reachable() ? 1 : 0))
                .register(metrics.registry());
        if (config.catalog().standby()) {
            int rehearsal = config.catalog().standbyRehearsal();
            standby = new Standby(config.catalog().site(), config.catalog().standbyPollMillis(), Thread::sleep,
                    rehearsal > 0 ? new TakeoverRehearsal(rehearsal, null) : Standby.Rehearsal.NONE);
        }
        GaugeWithCallback.builder().name("tapeq_site_standby")
                .help("1 while the daemon waits as a standby for the site lease (catalog.standby), else 0")
                .callback(cb -> cb.call(standby != null && standby.waiting() != null ? 1 : 0))
                .register(metrics.registry());
        if (config.httpBind().isPresent()) {
            http = HttpEndpoint.start(config.httpBind().get(), metrics, this::statusJson, this::notReady);
            closeables.add(http);
        }
        closeables.add(ControlServer.start(state.resolve(CONTROL_SOCKET), new DaemonControl(this)));

        JdbcCatalog opened = catalogHealth.open(config.catalog());
        catalog = opened;
        closeables.add(catalog);
        deposed.thenRun(opened::leaseLost); // a cut-off holder's stop must not wait for the catalog to release it
        // One daemon per site: refused (CatalogLeaseException, exit 75) if another holds a live lease; a standby
        // waits for it instead. Nothing below (library, request directories, catalog writes) runs before it is held.
        String holder = ProcessIdentity.currentHolder(UUID.randomUUID().toString());
        String site = config.catalog().site();
        Supplier<SiteLease> acquire = () -> {
            leaseAcquiredAt = System.currentTimeMillis();
            leaseAcquiredAtNanos = System.nanoTime();
            return opened.acquireLease(site, holder, hostName(), ProcessHandle.current().pid(), leaseAcquiredAt,
                    config.catalog().leaseTimeoutMillis());
        };
        Standby waiter = standby;
        SiteLease held = waiter == null ? acquire.get() : waiter.takeLease(acquire,
                () -> opened.leaseKeepingOut(site, holder, hostName(), System.currentTimeMillis()));
        epoch = held.epoch();
        // Renewed from now on, through the whole start (a SCSI inventory and `mt status` of every drive can take
        // longer than the lease): a standby never finds it lapsed while this daemon opens the library.
        keepLease();
        LibraryConfig lib = config.library();
        boolean scsi = lib.backend() == LibraryConfig.Backend.SCSI;
        loop = new RealTimeEventLoop("tapeq-scheduler", scsi ? 1 : lib.simulated().speed());
        int drives = scsi ? lib.scsi().drives().size() : lib.simulated().drives();
        // Shutdown order (closeables run in reverse): the bridges stop taking requests and answering; the loop,
        // the library and the I/O pool stop, and the pool's threads (a drive writing a stage into in/) end; only
        // then are the request directories let go, so no late write finds them closed. A request not answered by
        // then stays in its directory for the next start (docs/protocol.md).
        closeables.add(this::releaseDirectories);
        ThreadPoolExecutor pool = boundedPool("tapeq-io", Math.max(2, drives + 1), IO_QUEUE);
        closeables.add(() -> stopAndWait(pool, "tapeq-io"));
        // The loop hands its I/O work through the gate: what does not fit waits on the loop, never runs on it.
        IoGate io = new IoGate(loop, pool, IO_QUEUE);
        library = Libraries.forDaemon(config, loop, io, () -> epoch, holder, closeables);
        closeables.add(loop); // closed before the library and the I/O pool it hands work to
        LOG.info("Opened library: {}", config.movers().map(m -> "data movers " + m.movers().stream()
                .map(e -> e.name() + " " + e.drives()).toList()).orElse(describeLibrary(lib)));
        startStep.accept(StartStep.LIBRARY_OPENED);
        abortIfLeaseUnsure("opening the library");

        metrics.catalogKinds(Arrays.stream(CatalogWriter.Kind.values()).map(CatalogWriter.Kind::label).toList());
        driveMetrics = new DriveMetrics(metrics.registry());
        scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog)
                .config(config.schedulerConfig()).listener(DirectoryBridge.LISTENER).io(io)
                .catalogTiming(CatalogTimingMetrics.of(metrics))
                .driveObserver(also == DriveObserver.NONE ? driveMetrics : DriveObserver.both(driveMetrics, also))
                .stageSpace(DirectoryBridge.STAGE_SPACE).repackSpool(config.state().resolve(REPACK_SPOOL)).build();
        catalogHealth.follow(scheduler);
        metrics.offLoopQueues(scheduler::catalogQueueDepth, io::backlog);
        holdScheduler();
        await(scheduler.start(), "starting the scheduler");
        Libraries.started(library, scheduler);
        abortIfLeaseUnsure("starting the scheduler");

        // Each directory keeps at most INTAKE_BATCHES batches in the pool, so the pool refuses work only if
        // something else went wrong; a refused directory waits for the pool to drain (IntakePool).
        int intakeThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
        IntakePool intake = new IntakePool(intakeThreads, INTAKE_BATCHES * Math.max(1, config.directories().size()),
                Threads.numbered("tapeq-intake"));
        closeables.add(intake);
        BridgeServices services = new BridgeServices(scheduler, catalog, loop, loop.speed(), metrics, intake,
                INTAKE_BATCHES, System::currentTimeMillis);
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        int n = 0;
        for (DirectoryConfig dc : config.directories()) {
            long reserve = dc.reserveBytes(Files.getFileStore(dc.path()).getTotalSpace());
            int index = n++;
            BridgeSettings s = new BridgeSettings(dc.name(), dc.path(), dc.group(), dc.stageBufferBytes(),
                    reserve, config.intake().rescanIntervalMillis(), config.intake().inotify(),
                    config.intake().maxRequestBytes(), ORPHAN_MILLIS, 2 * config.catalog().leaseTimeoutMillis());
            warnStageBuffer(index, dc, config.schedulerConfig().aggregateBytes());
            DirectoryBridge bridge = new DirectoryBridge(s, services);
            bridges.add(bridge);
            closeables.add(bridge::stop); // released (closed) with releaseDirectories, after the drives stop
            ready.add(bridge.start(why -> lockWaiting = why)); // a deposed holder may still be letting go of it
        }
        registerGauges();
        startLoopProbe();
        long t0 = System.nanoTime();
        await(CompletableFuture.allOf(ready.toArray(new CompletableFuture<?>[0])), "reading the request directories");
        // Every directory published its status when its requests were all read; the scheduler's is published once
        // more now, so that a status right after the start shows what the start did.
        await(scheduler.publishStatus(), "publishing the scheduler's status");
        synchronized (holdLock) { // a hold from now on is the scheduler's alone: resumed by the next renewal
            abortIfLeaseUnsure("reading the request directories");
            started = true;
        }
        LOG.info("tapeq daemon ready: {} director{}, every request found at start queued in {} ms", bridges.size(),
                bridges.size() == 1 ? "y" : "ies", (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * A read is one aggregate's members at most; a retried read keeps its room while the drive goes on, so a
     * buffer under two aggregates can leave a drive waiting for room that never comes.
     */
    private static void warnStageBuffer(int index, DirectoryConfig dc, long aggregateBytes) {
        if (dc.stageBufferBytes() < 2 * aggregateBytes) {
            LOG.warn("directories[{}].stageBuffer ({} bytes) is less than twice scheduler.aggregateBytes ({}): "
                    + "drives may wait for stage buffer space", index, dc.stageBufferBytes(), aggregateBytes);
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown-host";
        }
    }

    /** A pool that refuses work when full: its callers ({@link IoGate}) keep what does not fit. */
    /** Interrupts {@code pool}'s threads and waits (at most {@link #STOP_WAIT_SECONDS}) for them to end. */
    private static void stopAndWait(ThreadPoolExecutor pool, String name) throws InterruptedException {
        pool.shutdownNow();
        if (!pool.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
            LOG.warn("{} threads still running {} s after the stop; the request directories are let go anyway",
                    name, STOP_WAIT_SECONDS);
        }
    }

    /** Lets go of every request directory (its lock and handles); the last step of a stop before the catalog. */
    private void releaseDirectories() {
        for (DirectoryBridge b : bridges) {
            b.close();
        }
    }

    private static ThreadPoolExecutor boundedPool(String name, int threads, int queue) {
        return new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue),
                Threads.numbered(name), new ThreadPoolExecutor.AbortPolicy());
    }

    /**
     * Renews the lease just taken on a thread of its own ({@code tapeq-lease}), straight to the catalog (not behind
     * the catalog writer), and checks its age on another ({@code tapeq-lease-check}): past two thirds of the
     * timeout the daemon holds all work ({@link LeaseKeeper}). During the start a hold also aborts it (see
     * {@link #holdWork}).
     */
    private void keepLease() {
        LeaseKeeper keeper = new LeaseKeeper(catalog, this::holdWork, this::resumeWork,
                config.catalog().leaseTimeoutMillis(), System::currentTimeMillis, System::nanoTime,
                leaseAcquiredAtNanos, deposed, catalogHealth::renewal);
        lease = keeper;
        ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor(Threads.named("tapeq-lease"));
        closeables.add(renewer::shutdownNow);
        renewer.scheduleWithFixedDelay(keeper::renew, keeper.renewEveryMillis(), keeper.renewEveryMillis(),
                TimeUnit.MILLISECONDS);
        ScheduledExecutorService checker = Executors.newSingleThreadScheduledExecutor(
                Threads.named("tapeq-lease-check"));
        closeables.add(checker::shutdownNow);
        checker.scheduleWithFixedDelay(keeper::check, LOOP_PROBE_MILLIS, LOOP_PROBE_MILLIS, TimeUnit.MILLISECONDS);
        GaugeWithCallback.builder().name("tapeq_site_lease_renewal_age_seconds")
                .help("Seconds since the site lease was last renewed; past two thirds of catalog.leaseTimeout the "
                        + "daemon holds all tape work and answers")
                .callback(cb -> cb.call(keeper.renewalAgeMillis() / 1000.0))
                .register(metrics.registry());
        GaugeWithCallback.builder().name("tapeq_work_held")
                .help("1 while all tape work and answers are held because the site lease may have lapsed")
                .callback(cb -> cb.call(keeper.held() == null ? 0 : 1))
                .register(metrics.registry());
    }

    /**
     * The lease keeper's hold (any thread). Passed to the scheduler once it exists; during the start it is also
     * kept, and the starting thread aborts the start at its next step ({@link #abortIfLeaseUnsure}): a daemon
     * that may have lost the site must not go on to drive the library.
     */
    private void holdWork(String reason) {
        Scheduler s;
        synchronized (holdLock) {
            if (!started) {
                startHold = reason;
            }
            s = holdOnScheduler ? scheduler : null;
        }
        if (s != null) {
            s.holdWork(reason);
        }
    }

    private void resumeWork() {
        Scheduler s;
        synchronized (holdLock) {
            s = holdOnScheduler && startHold == null ? scheduler : null;
        }
        if (s != null) {
            s.resumeWork();
        }
    }

    /** From now on holds reach the scheduler; one made while it was built is passed on now. */
    private void holdScheduler() {
        String pending;
        synchronized (holdLock) {
            holdOnScheduler = true;
            pending = startHold;
        }
        if (pending != null) {
            scheduler.holdWork(pending);
        }
    }

    /** Ends the start if the lease was lost, or may have lapsed, since it was taken. */
    private void abortIfLeaseUnsure(String step) throws IOException {
        String why;
        synchronized (holdLock) {
            why = startHold;
        }
        if (deposed.isDone()) {
            throw new CatalogLeaseException("start aborted after " + step + ": " + deposed.getNow(""));
        }
        if (why != null) {
            throw new IOException("start aborted after " + step + ": " + why);
        }
    }

    private static String describeLibrary(LibraryConfig lib) {
        return lib.backend() == LibraryConfig.Backend.SCSI
                ? "SCSI, " + lib.scsi().drives().size() + " drive(s)"
                : "simulated, " + lib.simulated().drives() + " drive(s)";
    }

    private void startLoopProbe() {
        ScheduledExecutorService probe = Executors.newSingleThreadScheduledExecutor(Threads.named("tapeq-loop-probe"));
        closeables.add(probe::shutdownNow);
        probe.scheduleWithFixedDelay(() -> {
            long t0 = System.nanoTime();
            loop.execute(() -> metrics.loopLatency((System.nanoTime() - t0) / 1e9));
        }, LOOP_PROBE_MILLIS, LOOP_PROBE_MILLIS, TimeUnit.MILLISECONDS);
        // The status answers from snapshots each part publishes on its own thread (the bridges every
        // DirectoryBridge.STATUS_REFRESH_MILLIS by themselves), never by asking a busy thread.
        probe.scheduleWithFixedDelay(scheduler::refreshStatus, 0, DirectoryBridge.STATUS_REFRESH_MILLIS,
                TimeUnit.MILLISECONDS);
        probe.scheduleWithFixedDelay(() -> scheduler.status(0).thenAccept(s -> {
            Map<String, Long> counters = new HashMap<>(s.counters());
            driveMetrics.bytesByDrive().forEach((d, n) -> counters.put(RateMeter.DRIVE_BYTES + d, n));
            rates.sample(System.currentTimeMillis(), counters);
        }), 0, RATE_SAMPLE_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** Scheduler totals and queue gauges, read from one status snapshot per scrape. */
    private void registerGauges() {
        CounterWithCallback.builder().name("tapeq_scheduler_events_total")
                .help("Scheduler totals: mounts, remounts, unmounts, faults by class, requests by outcome, bytes")
                .labelNames("event")
                .callback(cb -> cachedSchedulerStatus.get().ifPresent(s -> s.counters().forEach(
                        (k, v) -> cb.call(v, k))))
                .register(metrics.registry());
        GaugeWithCallback.builder().name("tapeq_queues")
                .help("Scheduler queues with work: all, ready to mount, waiting for their mount criteria")
                .labelNames("state")
                .callback(cb -> cachedSchedulerStatus.get().ifPresent(s -> {
                    cb.call(s.queueCount(), "all");
                    cb.call(s.readyQueues(), "ready");
                    cb.call(s.waitingQueues(), "waiting");
                }))
                .register(metrics.registry());
        StateMetrics.register(metrics.registry(), DaemonStatus.currentVersion(),
                config.schedulerConfig().groups().keySet(), cachedSchedulerStatus, cachedLoad,
                () -> cachedBridgeStatuses.get().stream().collect(Collectors.toMap(BridgeStatus::name,
                        BridgeStatus::oldestMillis, (a, b) -> a, TreeMap::new)), System::currentTimeMillis);
        GaugeWithCallback.builder().name("tapeq_requests_blocked")
                .help("Requests that cannot be served at all, by reason: no_drive (every drive out of service), "
                        + "no_cartridge (flushes of a family without an appendable cartridge); they fail with rc 1 "
                        + "once the reason has lasted scheduler.blockedLimit")
                .labelNames("reason")
                .callback(cb -> cachedSchedulerStatus.get().ifPresent(s -> s.blocked().forEach(
                        (reason, b) -> cb.call(b.requests(), reason))))
                .register(metrics.registry());
        GaugeWithCallback.builder().name("tapeq_requests_blocked_seconds")
                .help("How long each reason of tapeq_requests_blocked has lasted (0 while service is possible)")
                .labelNames("reason")
                .callback(cb -> cachedSchedulerStatus.get().ifPresent(s -> s.blocked().forEach(
                        (reason, b) -> cb.call(b.since() == 0 ? 0 : (s.now() - b.since()) / 1000.0 / loop.speed(),
                                reason))))
                .register(metrics.registry());
        GaugeWithCallback.builder().name("tapeq_directory_requests")
                .help("Request files being served, by directory and state")
                .labelNames("directory", "state")
                .callback(cb -> cachedBridgeStatuses.get().forEach(b -> BridgeStatus.REQUEST_STATES.forEach(
                        state -> cb.call(b.requests().getOrDefault(state, 0), b.name(), state))))
                .register(metrics.registry());
        GaugeWithCallback.builder().name("tapeq_stage_buffer_bytes")
                .help("Bytes reserved in in/ for staged files, and the configured capacity")
                .labelNames("directory", "kind")
                .callback(cb -> cachedBridgeStatuses.get().forEach(b -> {
                    cb.call(b.bufferReserved(), b.name(), "reserved");
                    cb.call(b.bufferCapacity(), b.name(), "capacity");
                }))
                .register(metrics.registry());
    }

    Optional<SchedulerStatus> schedulerStatus() {
        return schedulerStatus(StatusPage.FIRST);
    }

    /** The scheduler's last published status (never waits for its loop); empty while it is starting. */
    private Optional<SchedulerStatus> schedulerStatus(StatusPage page) {
        Scheduler s = scheduler;
        return s == null ? Optional.empty() : Optional.ofNullable(s.publishedStatus(page.offset(), page.limit()));
    }

    private Optional<SchedulerLoad> schedulerLoad() {
        Scheduler s = scheduler;
        return s == null ? Optional.empty() : Optional.ofNullable(s.publishedLoad());
    }

    List<BridgeStatus> bridgeStatuses() {
        return bridgeStatuses(StatusPage.FIRST);
    }

    /** Each directory's last published status (never waits for its thread). */
    private List<BridgeStatus> bridgeStatuses(StatusPage page) {
        List<BridgeStatus> out = new ArrayList<>();
        for (DirectoryBridge b : bridges) {
            out.add(b.status(page.offset(), page.limit()));
        }
        return out;
    }

    /** The whole daemon's status, with the first page of each list. */
    public DaemonStatus status() {
        return status(StatusPage.FIRST);
    }

    /**
     * The whole daemon's status, first page, taken after this call: each directory's thread and the scheduler's
     * loop publish a snapshot once the work already posted to them is done, and the future completes with the
     * status then. For tests and admin commands that follow a change; {@link #status()}, the cheap one, may be a
     * refresh period older. A blocked thread delays it: callers wait with a timeout.
     */
    public CompletableFuture<DaemonStatus> freshStatus() {
        return freshStatus(StatusPage.FIRST);
    }

    /** {@link #freshStatus()} with that page of each paged list. */
    public CompletableFuture<DaemonStatus> freshStatus(StatusPage page) {
        List<CompletableFuture<Void>> published = new ArrayList<>();
        for (DirectoryBridge b : bridges) {
            published.add(b.publishStatusNow());
        }
        Scheduler s = scheduler;
        if (s != null) {
            published.add(s.publishStatus());
        }
        return CompletableFuture.allOf(published.toArray(CompletableFuture[]::new)).thenApply(v -> status(page));
    }

    /** Null when the daemon serves and its catalog answers; else why not ({@code /ready} answers 503 with it). */
    String notReady() {
        String catalogDown = catalogHealth.unreachable();
        if (catalogDown != null) {
            return catalogDown;
        }
        Standby waiter = standby;
        if (waiter != null && waiter.waiting() != null) {
            return waiter.waiting();
        }
        LeaseKeeper keeper = lease;
        if (keeper != null && keeper.held() != null) {
            return "stepped down: " + keeper.held();
        }
        String lockWait = lockWaiting;
        if (lockWait != null) {
            return "starting: " + lockWait;
        }
        return started ? null : "starting: reading the request directories";
    }

    /**
     * Completes (with the reason) if another process took this daemon's site lease over: the daemon must stop,
     * its catalog writes are refused from then on.
     */
    public CompletableFuture<String> deposed() {
        return deposed;
    }

    CatalogHealth catalogHealth() {
        return catalogHealth;
    }

    /** The whole daemon's status with that page of each paged list (queues, parked flushes). */
    public DaemonStatus status(StatusPage page) {
        return new DaemonStatus(DaemonStatus.currentVersion(), startedMillis, System.currentTimeMillis(), rates.rates(),
                rates.driveRates(), bridgeStatuses(page), schedulerStatus(page).orElse(null),
                schedulerLoad().orElse(null), catalogHealth.state(), siteState(), page.offset(), page.limit());
    }

    private DaemonStatus.SiteState siteState() {
        Standby waiter = standby;
        String waiting = waiter == null ? null : waiter.waiting();
        return new DaemonStatus.SiteState(config.catalog().site(), waiting != null ? "standby" : epoch > 0 ? "active"
                : "starting", epoch, waiting);
    }

    /** The status as {@code /status} and {@code tapeq status --json} show it: with readable times added. */
    public ObjectNode statusTree(StatusPage page) {
        return StatusTimes.add(DaemonStatus.JSON.valueToTree(status(page)), loop == null ? 1 : loop.speed(),
                ZoneId.systemDefault());
    }

    /** The reclamation policy's status with the wall-clock times of its loop times, as {@code tapeq reclaim} prints it. */
    ObjectNode reclaimTree(ReclaimStatus status) {
        RealTimeEventLoop l = loop;
        ObjectNode tree = DaemonStatus.JSON.valueToTree(status);
        return l == null ? tree
                : StatusTimes.reclaim(tree, System.currentTimeMillis(), l.now(), l.speed(), ZoneId.systemDefault());
    }

    private byte[] statusJson(StatusPage page) {
        return DaemonStatus.toJson(statusTree(page));
    }

    /**
     * Takes over the keys of {@code next} (validated as at start) that a running daemon may change: the
     * scheduler's {@link Tuning}. Returns the changed keys, those taken over and those that need a restart.
     */
    public synchronized DaemonConfig.Changes reload(DaemonConfig next) throws IOException, InterruptedException {
        if (scheduler == null) {
            throw new IOException("the daemon is not started yet; nothing changed");
        }
        // Reloadable keys against what is in effect (the last reload); the others against the start, as they are.
        DaemonConfig.Changes changes = new DaemonConfig.Changes(applied.changesTo(next).reloaded(),
                config.changesTo(next).restart());
        next.warnings().forEach(w -> LOG.warn("Configuration: {}", w));
        List<DirectoryConfig> dirs = config.directories(); // the directories served are those of the start
        for (int i = 0; i < dirs.size(); i++) {
            warnStageBuffer(i, dirs.get(i), next.schedulerConfig().aggregateBytes());
        }
        await(scheduler.retune(Tuning.of(next.schedulerConfig())), "retuning the scheduler");
        applied = next;
        return changes;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    public Catalog catalog() {
        return catalog;
    }

    public TapeLibrary library() {
        return library;
    }

    /** The HTTP endpoint's address, or null if it is off. */
    public InetSocketAddress httpAddress() {
        return http == null ? null : http.address();
    }

    private static <T> T await(CompletableFuture<T> f, String what) throws IOException, InterruptedException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw new IOException(what + " failed: " + (c.getMessage() != null ? c.getMessage() : c.toString()), c);
        }
    }

    /** Stops serving, in reverse order of start; requests stay in their directories for the next start. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception e) {
                LOG.warn("Closing {}: {}", closeables.get(i), e.toString());
            }
        }
        LOG.info("tapeq daemon stopped");
    }
}
