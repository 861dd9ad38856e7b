package org.tapeq.tools.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.tapeq.loadtest.run.PoolSide;
import org.tapeq.daemon.rehearsal.SizeOnlyTapes;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.tools.demo.HostsConfig.Mover;

/**
 * The scale-out benchmark ({@link HostsBenchCommand}): the same workload on one host and on three.
 *
 * <p>Design notes.
 * <ol>
 * <li><b>Tapes.</b> {@link SizeOnlyTapes} writes the N files through the real scheduler onto a size-only simulated
 *     library: file i on cartridge i mod C, each cartridge its own family, so that recalling everything recalls
 *     each cartridge's whole dataset (co-located). One host: into the daemon's SQLite catalog and its in-process
 *     library; three hosts: into the site's PostgreSQL database and the library process's directory.</li>
 * <li><b>Processes.</b> Every daemon, mover and the library run as JVMs of their own ({@link HostGroup},
 *     {@link HostProcess}); the three-host site is the demo's ({@link HostsConfig}) with a size-only library, label
 *     checks off and the scheduler's default policy. The drives are taken down before any request is written (the
 *     catalog keeps that over a failover), so all N stay queued.</li>
 * <li><b>Intake.</b> This JVM writes N stage request files as the provider does, dataset by dataset alternating
 *     between the two pools; intake time is from the first file to the active scheduler's {@code stages_submitted}
 *     reaching N (its control socket's status, a snapshot published every 250 ms, polled every 100 ms). Scheduler
 *     CPU: the active daemon JVM's user and system time ({@code /proc/PID/stat}) over the phase, per request.</li>
 * <li><b>Failover</b> (three hosts): SIGKILL the active daemon's JVM; takeover is the kill until the site lease's
 *     epoch rises ({@link LeaseWatch}); serving again is the kill until the standby's status says active with its
 *     scheduler up and {@code stages_submitted} at N (every request read again from the directories).</li>
 * <li><b>Recall.</b> Every drive up; one {@link PoolSide} thread per pool takes each delivered file as a provider
 *     does. Mounts are the serving scheduler's {@code mounts} counter over the recall, over the cartridges holding
 *     files; on three hosts the library process's own count of robot mounts is printed beside it.</li>
 * </ol>
 */
final class HostsBench {

    private static final int POOLS = 2;
    private static final long POLL_MILLIS = 100;
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final String HOLD = "benchmark: hold the requests queued";
    /** The schedulers' limit on a mover call: the demo's 3 s was too short for a new mover's answer at load 20. */
    private static final String PROBE_TIMEOUT = "20s";
    /** Movers and the library process: small heaps, they hold no queue. */
    private static final List<String> SMALL_JVM = List.of("-Xmx512m", "-XX:+UseSerialGC");

    private final HostsBenchCommand o;
    private final PrintStream out;
    private final PrintStream progress;
    private final HostGroup processes;
    private final boolean separate = HostProcess.pidNamespacesAvailable();

    HostsBench(HostsBenchCommand options, PrintStream out, PrintStream progress) {
        this.o = options;
        this.out = out;
        this.progress = progress;
        this.processes = new HostGroup(progress);
    }

    void run(Path root) throws Exception {
        out.printf(Locale.ROOT, "tapeq bench-hosts: %,d stage requests of %,d bytes over %d pools, %d cartridges "
                        + "(files co-located, one dataset per cartridge), %d drives, tape time x%.0f, scheduler "
                        + "-Xmx%s, %d cpus; in %s%n", o.requests, o.fileSize, POOLS, o.cartridges, o.drives, o.speed, o.heap,
                Runtime.getRuntime().availableProcessors(), root);
        out.println(separate ? "each process in a pid namespace of its own, as on separate machines"
                : "no pid namespaces here: a standby sees at once that a killed daemon of this machine is gone");
        Thread hook = new Thread(processes::close, "tapeq-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        List<HostsBenchFigures> all = new ArrayList<>();
        try {
            if (!o.noOneHost) {
                all.add(oneHost(Files.createDirectories(root.resolve("one-host"))));
            }
            all.add(threeHosts(Files.createDirectories(root.resolve("three-hosts"))));
        } finally {
            processes.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) { // already shutting down: the hook runs
            }
        }
        HostsBenchFigures.printTable(out, all);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("requests", o.requests);
        json.put("cartridges", o.cartridges);
        json.put("drives", o.drives);
        json.put("file_size", o.fileSize);
        json.put("speed", o.speed);
        json.put("lease_timeout", HostsConfig.LEASE_TIMEOUT);
        for (HostsBenchFigures f : all) {
            json.put(f.setup.replace(' ', '_'), f.toJson());
        }
        out.println(new ObjectMapper().writeValueAsString(json));
    }

    private HostsBenchFigures oneHost(Path root) throws Exception {
        HostsBenchFigures f = new HostsBenchFigures("one host", o.requests);
        List<RequestDirectory> dirs = requestDirectories(root);
        Path state = Files.createDirectories(root.resolve("state"));
        Path tapes = state.resolve("simlib");
        long t0 = System.nanoTime();
        SizeOnlyTapes.write(state.resolve("catalog.db"), tapes, o.drives, SizeOnlyTapes.MEDIA, o.cartridges,
                o.requests, o.fileSize);
        f.prepareSeconds = since(t0);
        out.printf(Locale.ROOT, "%none host: %,d files written to the size-only library and the SQLite catalog in "
                + "%.1f s%n", o.requests, f.prepareSeconds);
        String yaml = "# written by tapeq bench-hosts\n" + HostsConfig.directories(endits(dirs)) + "state: " + state
                + "\n" + library(tapes) + "\n" + policy("off");
        HostProcess daemon = processes.add("one host daemon", "daemon", root.resolve("tapeq.yaml"), yaml, separate,
                schedulerJvm());
        daemon.start();
        HostGroup.awaitRole(daemon, state, null);
        List<String> drives = drivesDown(state);
        intake(f, daemon, state, dirs);
        if (!o.noCompletion) {
            recall(f, daemon, state, dirs, drives);
        }
        daemon.stop();
        return f;
    }

    private HostsBenchFigures threeHosts(Path root) throws Exception {
        HostsBenchFigures f = new HostsBenchFigures("three hosts", o.requests);
        List<RequestDirectory> dirs = requestDirectories(root);
        List<String> drives = IntStream.range(0, o.drives).mapToObj(i -> "drive" + i).toList();
        Mover library = new Mover(HostsConfig.LIBRARY, HostsDemo.host(3), HostsDemo.freePort(HostsDemo.host(3)),
                drives);
        Mover m1 = new Mover("m1", HostsDemo.host(2), HostsDemo.freePort(HostsDemo.host(2)),
                drives.subList(0, o.drives / 2));
        Mover m2 = new Mover("m2", HostsDemo.host(3), HostsDemo.freePort(HostsDemo.host(3)),
                drives.subList(o.drives / 2, o.drives));
        List<Mover> movers = List.of(m1, m2);
        try (DemoPostgres pg = DemoPostgres.open(DemoPostgres.serverUrl(o.catalogUrl), root.resolve("postgres"),
                o.keep, progress)) {
            Path libraryState = Files.createDirectories(root.resolve("host3").resolve("library"));
            Path tapes = libraryState.resolve("tapes");
            long t0 = System.nanoTime();
            SizeOnlyTapes.write(pg.url(), tapes, o.drives, SizeOnlyTapes.MEDIA, o.cartridges, o.requests, o.fileSize);
            f.prepareSeconds = since(t0);
            out.printf(Locale.ROOT, "%nthree hosts: %,d files written to the size-only library and the catalog (%s) "
                    + "in %.1f s%n", o.requests, pg.describe(), f.prepareSeconds);
            HostProcess lib = processes.add("host3 library", "sim-library", root.resolve("host3").resolve(
                    "library.yaml"), HostsConfig.library(library, libraryState, library(tapes)), separate, SMALL_JVM);
            HostProcess mover1 = processes.add("host2 mover m1", "mover", root.resolve("host2").resolve("m1.yaml"),
                    HostsConfig.mover(m1, root.resolve("host2").resolve("m1"), library), separate, SMALL_JVM);
            HostProcess mover2 = processes.add("host3 mover m2", "mover", root.resolve("host3").resolve("m2.yaml"),
                    HostsConfig.mover(m2, root.resolve("host3").resolve("m2"), library), separate, SMALL_JVM);
            Path stateA = Files.createDirectories(root.resolve("host1").resolve("state"));
            Path stateB = Files.createDirectories(root.resolve("host2").resolve("state"));
            HostProcess a = processes.add("host1 scheduler", "daemon", root.resolve("host1").resolve("tapeq.yaml"),
                    scheduler(stateA, dirs, pg, movers, 1), separate, schedulerJvm());
            HostProcess b = processes.add("host2 standby", "daemon", root.resolve("host2").resolve("tapeq.yaml"),
                    scheduler(stateB, dirs, pg, movers, 2), separate, schedulerJvm());
            lib.start();
            mover1.start();
            mover2.start();
            HostGroup.awaitListening(lib, library);
            HostGroup.awaitListening(mover1, m1);
            HostGroup.awaitListening(mover2, m2);
            a.start();
            HostGroup.awaitRole(a, stateA, "active");
            drivesDown(stateA);
            b.start();
            HostGroup.awaitRole(b, stateB, "standby");
            out.printf("host1: scheduler (active); host2: standby scheduler, mover m1 %s; host3: mover m2 %s, "
                    + "library%n", m1.drives(), m2.drives());
            try (LeaseWatch lease = LeaseWatch.start(pg.url(), HostsConfig.SITE)) {
                intake(f, a, stateA, dirs);
                failover(f, a, b, stateB, lease);
            }
            if (!o.noCompletion) {
                recall(f, b, stateB, dirs, drives);
            }
            b.stop();
            mover1.stop();
            mover2.stop();
            lib.stop(); // writes what the robot saw
            JsonNode stats = new ObjectMapper().readTree(libraryState.resolve("sim-library-stats.json").toFile());
            f.libraryMounts = stats.path("mounts").asLong(-1);
            f.doubleMounts = stats.path("double_mounts").asLong(-1);
            out.printf("library process: %d robot mounts in all, %d double mounts%n", f.libraryMounts, f.doubleMounts);
        }
        return f;
    }

    /** Writes N stage request files, dataset by dataset alternating pools, and waits until all are queued. */
    private void intake(HostsBenchFigures f, HostProcess active, Path state, List<RequestDirectory> dirs)
            throws Exception {
        double cpu0 = active.cpuSeconds();
        long pid = ProcessHandle.current().pid();
        long first = System.nanoTime();
        long nextProgress = first + PROGRESS_NANOS;
        for (int i = 0; i < o.requests; i++) {
            RequestDirectory dir = dirs.get((i / o.cartridges) % POOLS);
            Request r = SizeOnlyTapes.stageRequest(i, o.cartridges, o.fileSize, pid);
            AtomicFiles.write(dir.requestFile(SizeOnlyTapes.pnfsid(i)), RequestCodec.toBytes(r));
            if ((i & 1023) == 0 && System.nanoTime() > nextProgress) {
                nextProgress += PROGRESS_NANOS;
                progress.printf(Locale.ROOT, "  %s intake %.0f s: %,d written, %,d queued%n", f.setup, since(first),
                        i + 1, counter(state, "stages_submitted"));
            }
        }
        f.writeSeconds = since(first);
        await(f.setup + " intake", active, state, first, s -> counter(s, "stages_submitted") >= o.requests);
        f.intakeSeconds = since(first);
        f.intakeCpuSeconds = active.cpuSeconds() - cpu0;
        f.load("intake");
        out.printf(Locale.ROOT, "%s intake: %,d request files written in %.1f s; all queued %.1f s after the first "
                        + "(%,.0f /s); scheduler JVM CPU %.1f s (%.1f us per request); load average %s%n", f.setup,
                o.requests, f.writeSeconds, f.intakeSeconds, o.requests / f.intakeSeconds, f.intakeCpuSeconds,
                f.intakeCpuSeconds * 1e6 / o.requests, f.load.get("intake"));
    }

    /** SIGKILL to the active scheduler; the standby's takeover of the lease and its serving all N again. */
    private void failover(HostsBenchFigures f, HostProcess active, HostProcess standby, Path standbyState,
                          LeaseWatch lease) throws Exception {
        long epoch = lease.epoch();
        double cpu0 = standby.cpuSeconds();
        active.kill();
        long killed = System.nanoTime();
        out.printf("SIGKILL the active scheduler (host1) with %,d queued (lease epoch %d)%n", o.requests, epoch);
        long deadline = killed + TimeUnit.SECONDS.toNanos(o.timeoutSeconds);
        while (lease.epoch() <= epoch) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the standby did not take the site lease over within " + o.timeoutSeconds
                        + " s; see " + standby.log());
            }
            Thread.sleep(POLL_MILLIS / 2);
        }
        f.takeoverSeconds = since(killed);
        await("failover", standby, standbyState, killed, s -> "active".equals(s.path("site").path("role").asText())
                && counter(s, "stages_submitted") >= o.requests);
        f.servingSeconds = since(killed);
        f.rebuildCpuSeconds = standby.cpuSeconds() - cpu0;
        f.load("failover");
        out.printf(Locale.ROOT, "failover: host2 took the site lease over %.1f s after the kill (epoch %d; the lease "
                        + "lapses %s after its last renewal) and served again, all %,d re-queued, %.1f s after it (its "
                        + "status: role active, stages_submitted %,d); its CPU %.1f s; load average %s%n",
                f.takeoverSeconds, lease.epoch(), HostsConfig.LEASE_TIMEOUT, o.requests, f.servingSeconds,
                o.requests, f.rebuildCpuSeconds, f.load.get("failover"));
    }

    /** Every drive up; the pools take what is delivered until all N are; the mounts that took. */
    private void recall(HostsBenchFigures f, HostProcess active, Path state, List<RequestDirectory> dirs,
                        List<String> drives) throws Exception {
        JsonNode before = status(state);
        long mounts0 = counter(before, "mounts");
        long remounts0 = counter(before, "remounts");
        double cpu0 = active.cpuSeconds();
        List<PoolSide> pools = dirs.stream().map(PoolSide::new).toList();
        pools.forEach(PoolSide::start);
        long upAt = System.nanoTime();
        for (String d : drives) {
            if (HostGroup.control(state, "drive-up", List.of(d)) == null) {
                throw new IOException("drive-up " + d + " was not answered; see " + active.log());
            }
        }
        await(f.setup + " recall", active, state, upAt, s -> taken(pools) >= o.requests);
        long last = pools.stream().mapToLong(PoolSide::lastTakenNanos).max().orElse(upAt);
        for (PoolSide p : pools) {
            p.stop();
        }
        f.recallSeconds = (last - upAt) / 1e9;
        f.recallCpuSeconds = active.cpuSeconds() - cpu0;
        JsonNode after = await(f.setup + " recall counters", active, state, upAt,
                s -> counter(s, "stages_done") >= o.requests);
        f.mounts = counter(after, "mounts") - mounts0;
        f.remounts = counter(after, "remounts") - remounts0;
        f.cartridgesRead = Math.min(o.cartridges, o.requests);
        f.load("recall");
        out.printf(Locale.ROOT, "%s recall: %,d files delivered and taken in %.1f s (%,.0f /s) after the drives came "
                        + "up; %d mounts (%d remounts) for %d cartridges: %.2f per cartridge; scheduler JVM CPU %.1f s "
                        + "(%.1f us per request); load average %s%n", f.setup, o.requests, f.recallSeconds,
                o.requests / f.recallSeconds, f.mounts, f.remounts, f.cartridgesRead, f.mountsPerCartridge(),
                f.recallCpuSeconds, f.recallCpuSeconds * 1e6 / o.requests, f.load.get("recall"));
    }

    /**
     * Polls the status of the daemon of {@code state} until {@code done} holds of it; fails when the daemon exits,
     * a stage fails or the phase outlasts --timeout. Returns that status.
     */
    private JsonNode await(String phase, HostProcess p, Path state, long since, Predicate<JsonNode> done)
            throws Exception {
        long deadline = since + TimeUnit.SECONDS.toNanos(o.timeoutSeconds);
        long nextProgress = System.nanoTime() + PROGRESS_NANOS;
        while (true) {
            if (!p.alive()) {
                throw new IOException(p.name() + " exited during " + phase + "; see " + p.log());
            }
            JsonNode s = HostGroup.control(state, "status", List.of());
            if (s != null) {
                if (counter(s, "stages_failed") > 0) {
                    throw new IOException(counter(s, "stages_failed") + " stage(s) failed during " + phase
                            + "; see the error files in the request directories and " + p.log());
                }
                if (done.test(s)) {
                    return s;
                }
            }
            long now = System.nanoTime();
            if (now > deadline) {
                throw new IOException(phase + " did not finish within " + o.timeoutSeconds + " s; see " + p.log());
            }
            if (now > nextProgress) {
                nextProgress += PROGRESS_NANOS;
                progress.printf(Locale.ROOT, "  %s %.0f s: %s, queued %,d, done %,d%n", phase, (now - since) / 1e9,
                        s == null ? "no answer" : s.path("site").path("role").asText("up"),
                        counter(s, "stages_submitted"), counter(s, "stages_done"));
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** Takes every drive of the daemon of {@code state} down; returns their ids. */
    private static List<String> drivesDown(Path state) throws IOException {
        JsonNode s = status(state);
        List<String> ids = new ArrayList<>();
        s.path("scheduler").path("drives").forEach(d -> ids.add(d.path("id").asText()));
        if (ids.isEmpty()) {
            throw new IOException("the daemon in " + state + " reports no drives");
        }
        for (String d : ids) {
            if (HostGroup.control(state, "drive-down", List.of(d, HOLD)) == null) {
                throw new IOException("drive-down " + d + " was not answered by the daemon in " + state);
            }
        }
        return ids;
    }

    private static JsonNode status(Path state) throws IOException {
        JsonNode s = HostGroup.control(state, "status", List.of());
        if (s == null) {
            throw new IOException("the daemon in " + state + " does not answer status");
        }
        return s;
    }

    private static long counter(JsonNode status, String name) {
        return status == null ? -1 : status.path("scheduler").path("counters").path(name).asLong(-1);
    }

    private static long counter(Path state, String name) {
        return counter(HostGroup.control(state, "status", List.of()), name);
    }

    private static long taken(List<PoolSide> pools) {
        return pools.stream().mapToLong(PoolSide::taken).sum();
    }

    private List<RequestDirectory> requestDirectories(Path root) throws IOException {
        List<RequestDirectory> dirs = new ArrayList<>();
        for (int p = 1; p <= POOLS; p++) {
            dirs.add(RequestDirectory.create(root.resolve("pool" + p).resolve("endit")));
        }
        return dirs;
    }

    private static List<Path> endits(List<RequestDirectory> dirs) {
        return dirs.stream().map(RequestDirectory::base).toList();
    }

    /** The file of the scheduler daemon of host {@code host} (1 or 2), m2 driving the robot. */
    private String scheduler(Path state, List<RequestDirectory> dirs, DemoPostgres pg, List<Mover> movers, int host)
            throws IOException {
        return HostsConfig.daemon(state, endits(dirs), pg.url(), o.speed, "size-only", PROBE_TIMEOUT, movers,
                movers.get(1).name(), policy(HostsDemo.host(host) + ":" + HostsDemo.freePort(HostsDemo.host(host))));
    }

    /** The size-only library the tapes were written to (SizeOnlyTapes' barcodes and seed). */
    private String library(Path tapes) {
        return DemoConfig.simulatedLibrary(tapes, "size-only", o.drives, o.cartridges, o.speed,
                SizeOnlyTapes.BARCODE_PREFIX, SizeOnlyTapes.SEED);
    }

    /**
     * The scheduler's default policy but: no label reads (size-only tapes hold none), and requests kept queued with
     * every drive down for 100 000 h of tape time (the default 4 h lasts 1.4 s at x10 000; the drives stay down
     * through intake and failover).
     */
    private static String policy(String httpBind) {
        return "scheduler:\n  checkLabels: false\n  blockedLimit: 100000h\nhttp:\n  bind: " + httpBind + "\n";
    }

    /** The schedulers run with the packaged daemon's collector and the heap of --heap. */
    private List<String> schedulerJvm() {
        List<String> options = new java.util.ArrayList<>(List.of("-Xmx" + o.heap, "-XX:+UseParallelGC",
                "-XX:+ExitOnOutOfMemoryError"));
        options.addAll(o.schedulerJvmOptions);
        return options;
    }

    private static double since(long nanos) {
        return (System.nanoTime() - nanos) / 1e9;
    }
}
