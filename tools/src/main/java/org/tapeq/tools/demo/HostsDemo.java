package org.tapeq.tools.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.dcache.pool.nearline.spi.NearlineStorage;
import org.tapeq.config.Units;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.PoolEmulator;
import org.tapeq.poolemulator.ProviderPlugin;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.tools.demo.HostsConfig.Mover;

/**
 * {@code tapeq demo --hosts 3}: the demo's chain across three "hosts", each a set of separate processes on a
 * loopback address of its own (127.0.1.1 to 127.0.1.3), with one PostgreSQL catalog ({@link DemoPostgres}) and
 * two pools. host1 runs the active scheduler daemon; host2 the standby daemon and mover m1 (drive0, drive1);
 * host3 mover m2 (drive2, drive3) and the library process ({@code tapeq sim-library}, the robot and every drive).
 * In the middle of the flush phase m1 is killed with SIGKILL and started again a few seconds later (a tape server
 * rebooted); in the middle of the stage phase the active daemon is killed with SIGKILL, and the standby takes the
 * site over. Then every file is checked byte for byte, and the catalog and the robot are checked for work done
 * twice.
 *
 * <p>Design notes. The demo's JVM runs the pools (provider plugin and pool emulator, as a dCache pool loads them)
 * and watches the site lease row ({@link LeaseWatch}); everything else runs in the processes a site runs, started
 * from this JVM's class path. Each process runs in a pid namespace of its own where the kernel allows it, so a
 * standby waits out the lease of a killed holder as across machines (else it sees at once that the holder's pid
 * is gone, the one-machine rule).
 */
final class HostsDemo {

    private static final String HSM_TYPE = "osm";
    private static final String HSM_NAME = "demo";
    private static final int POOLS = 2;
    /** How long a killed mover's tape server stays down before it is started again. */
    private static final long MOVER_DOWN_MILLIS = 3_000;
    private static final long TICK_MILLIS = 100;

    private final DemoCommand o;
    private final PrintStream progress;
    private final HostGroup processes;

    HostsDemo(DemoCommand options, PrintStream progress) {
        this.o = options;
        this.progress = progress;
        this.processes = new HostGroup(progress);
    }

    static String host(int i) {
        return "127.0.1." + i;
    }

    DemoResult run(Path root, long started) throws Exception {
        boolean separate = HostProcess.pidNamespacesAvailable();
        List<Path> endits = new ArrayList<>();
        List<Path> poolData = new ArrayList<>();
        for (int p = 1; p <= POOLS; p++) {
            Path endit = root.resolve("pool" + p).resolve("endit");
            RequestDirectory.create(endit);
            endits.add(endit);
            poolData.add(Files.createDirectories(root.resolve("pool" + p).resolve("data")));
        }
        List<String> drives = IntStream.range(0, o.drives).mapToObj(i -> "drive" + i).toList();
        Mover library = new Mover(HostsConfig.LIBRARY, host(3), freePort(host(3)), drives);
        Mover m1 = new Mover("m1", host(2), freePort(host(2)), drives.subList(0, o.drives / 2));
        Mover m2 = new Mover("m2", host(3), freePort(host(3)), drives.subList(o.drives / 2, o.drives));
        try (DemoPostgres pg = DemoPostgres.open(o.catalogUrl(), root.resolve("postgres"), o.keep, progress)) {
            progress.printf("tapeq demo --hosts 3: %d files in %d datasets over %d pools, %d drives on movers m1 %s "
                    + "and m2 %s, %d LTO-9 cartridges, tape time x%s; catalog: %s; in %s%n", o.files, o.datasets,
                    POOLS, o.drives, m1.drives(), m2.drives(), o.cartridges, Units.plainNumber(o.speed),
                    pg.describe(), root);
            progress.printf(separate ? "each process in a pid namespace of its own, as on separate machines%n"
                    : "no pid namespaces here: a standby sees at once that a killed daemon of this machine is gone%n");
            // a demo stopped with ^C or SIGTERM kills its processes too (and, closing pg, drops its database)
            Thread hook = new Thread(() -> {
                processes.close();
                pg.closeQuietly(progress);
            }, "tapeq-demo-cleanup");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                return run(root, started, pg, endits, poolData, library, m1, m2, separate);
            } finally {
                processes.close();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) { // already shutting down: the hook runs
                }
            }
        }
    }

    private DemoResult run(Path root, long started, DemoPostgres pg, List<Path> endits, List<Path> poolData,
                           Mover library, Mover m1, Mover m2, boolean separate) throws Exception {
        Path libraryState = Files.createDirectories(root.resolve("host3").resolve("library"));
        HostProcess lib = process("host3 library", "sim-library", root.resolve("host3").resolve("library.yaml"),
                HostsConfig.library(library, libraryState, o.cartridges, o.speed, o.seed), separate);
        HostProcess mover1 = process("host2 mover m1", "mover", root.resolve("host2").resolve("m1.yaml"),
                HostsConfig.mover(m1, root.resolve("host2").resolve("m1"), library), separate);
        HostProcess mover2 = process("host3 mover m2", "mover", root.resolve("host3").resolve("m2.yaml"),
                HostsConfig.mover(m2, root.resolve("host3").resolve("m2"), library), separate);
        List<Mover> movers = List.of(m1, m2);
        Path stateA = Files.createDirectories(root.resolve("host1").resolve("state"));
        Path stateB = Files.createDirectories(root.resolve("host2").resolve("state"));
        HostProcess a = process("host1 scheduler", "daemon", root.resolve("host1").resolve("tapeq.yaml"),
                HostsConfig.daemon(stateA, endits, pg.url(), o.speed, movers, m2.name(),
                        host(1) + ":" + freePort(host(1))), separate);
        HostProcess b = process("host2 standby", "daemon", root.resolve("host2").resolve("tapeq.yaml"),
                HostsConfig.daemon(stateB, endits, pg.url(), o.speed, movers, m2.name(),
                        host(2) + ":" + freePort(host(2))), separate);
        lib.start();
        mover1.start();
        mover2.start();
        // the scheduler asks the movers (and m2 the library) for the inventory at its start: wait until they listen
        HostGroup.awaitListening(lib, library);
        HostGroup.awaitListening(mover1, m1);
        HostGroup.awaitListening(mover2, m2);
        a.start();
        HostGroup.awaitRole(a, stateA, "active");
        b.start();
        HostGroup.awaitRole(b, stateB, "standby");
        progress.printf("host1 %s: scheduler (active); host2 %s: standby scheduler, mover m1; host3 %s: mover m2, "
                + "library%n", host(1), host(2), host(3));
        label(stateA);

        DemoResult r;
        try (LeaseWatch lease = LeaseWatch.start(pg.url(), HostsConfig.SITE)) {
            List<PoolEmulator> pools = new ArrayList<>();
            List<NearlineStorage> providers = new ArrayList<>();
            try {
                for (int p = 0; p < POOLS; p++) {
                    NearlineStorage provider = ProviderPlugin.load(HSM_TYPE, HSM_NAME, endits.get(p));
                    providers.add(provider);
                    PoolEmulator pool = PoolEmulator.builder().hsm(HSM_TYPE, HSM_NAME).dataDirectory(poolData.get(p))
                            .stageTimeoutMillis(TimeUnit.SECONDS.toMillis(o.timeoutSeconds))
                            .flushTimeoutMillis(TimeUnit.SECONDS.toMillis(o.timeoutSeconds)).build();
                    pools.add(pool);
                    pool.attach(provider);
                }
                r = campaign(pools, started, mover1, m1.drives(), a, stateA, b, stateB, lease);
            } finally {
                providers.forEach(NearlineStorage::shutdown);
                for (PoolEmulator pool : pools) {
                    pool.close();
                }
            }
            r.failovers = lease.takeovers();
        }
        b.stop();
        a.stop();
        mover1.stop();
        mover2.stop();
        lib.stop(); // writes what the robot saw
        robot(r, libraryState.resolve("sim-library-stats.json"));
        SiteChecks.catalog(r, pg.url());
        r.hosts.put("host1", new DemoResult.Host(host(1), List.of("scheduler (active at start)")));
        r.hosts.put("host2", new DemoResult.Host(host(2), List.of("scheduler (standby at start)", "mover m1 "
                + m1.drives())));
        r.hosts.put("host3", new DemoResult.Host(host(3), List.of("mover m2 " + m2.drives(), "library (robot, "
                + o.drives + " drives)")));
        r.speed = o.speed;
        return r;
    }

    private HostProcess process(String name, String command, Path config, String yaml, boolean separate)
            throws IOException {
        return processes.add(name, command, config, yaml, separate, HostProcess.DEMO_JVM);
    }

    private DemoResult campaign(List<PoolEmulator> pools, long started, HostProcess mover1, List<String> m1Drives,
                                HostProcess active, Path activeState, HostProcess standby, Path standbyState,
                                LeaseWatch lease) throws Exception {
        DemoFiles generated = new DemoFiles(o.seed, o.files, o.datasets, o.maxSize);
        List<EmulatedFlushRequest> flushes = new ArrayList<>();
        List<List<EmulatedFlushRequest>> byPool = new ArrayList<>();
        pools.forEach(p -> byPool.add(new ArrayList<>()));
        for (DemoFiles.File f : generated.files()) {
            PoolEmulator pool = pools.get(f.index() % POOLS);
            try (InputStream in = generated.content(f)) {
                Files.copy(in, pool.replicaPath(f.pnfsid()));
            }
            EmulatedFlushRequest q = DemoCommand.flushOf(pool, f);
            flushes.add(q);
            byPool.get(f.index() % POOLS).add(q);
        }
        DemoResult r = new DemoResult(o.files, generated.totalBytes());
        progress.printf("generated %d files, %s, in %d pools%n", o.files, Units.roughSize(generated.totalBytes()),
                POOLS);

        long flushStart = System.nanoTime();
        for (int p = 0; p < POOLS; p++) {
            pools.get(p).flush(byPool.get(p));
        }
        int flushKillAt = Math.max(1, flushes.size() / 4);
        String[] busy = new String[1];
        if (awaitUntil(flushes, started, () -> answered(flushes) >= flushKillAt
                && (busy[0] = busyDrive(activeState, m1Drives)) != null)) {
            r.moverKillAnswered = answered(flushes);
            r.moverKillDuring = busy[0];
            mover1.kill();
            progress.printf("%nSIGKILL mover m1 (host2) with %d/%d flushes answered, during %s; starting it again "
                    + "in %d s%n", r.moverKillAnswered, flushes.size(), busy[0], MOVER_DOWN_MILLIS / 1000);
            Thread.sleep(MOVER_DOWN_MILLIS);
            mover1.start();
            r.moverKills++;
        } else {
            r.failures.add("mover kill: no drive of m1 " + m1Drives + " was mounting or writing between "
                    + flushKillAt + " answered flushes and the end of the flush phase, so m1 was not killed");
        }
        DemoCommand.await(progress, "flush", flushes, started, o.timeoutSeconds);
        r.flushSeconds = (System.nanoTime() - flushStart) / 1e9;
        for (EmulatedFlushRequest f : flushes) {
            if (f.outcome() != null && f.outcome().isCompleted()) {
                r.flushed++;
            } else {
                r.failures.add("flush " + f.getFileAttributes().getPnfsId() + ": " + f.outcome());
            }
        }
        for (DemoFiles.File f : generated.files()) {
            Files.deleteIfExists(pools.get(f.index() % POOLS).replicaPath(f.pnfsid()));
        }
        progress.printf("dropped the disk copies; staging everything back in random order%n");

        List<DemoFiles.File> order = new ArrayList<>(generated.files());
        Collections.shuffle(order, new Random(o.seed * 31 + 7));
        List<EmulatedStageRequest> stages = new ArrayList<>();
        for (DemoFiles.File f : order) {
            stages.add(DemoCommand.stageOf(pools.get(f.index() % POOLS), f));
        }
        long stageStart = System.nanoTime();
        for (int p = 0; p < POOLS; p++) {
            int pool = p;
            pools.get(p).stage(IntStream.range(0, order.size()).filter(i -> order.get(i).index() % POOLS == pool)
                    .mapToObj(stages::get).toList());
        }
        int stageKillAt = Math.max(1, stages.size() / 4);
        if (awaitUntil(stages, started, () -> answered(stages) >= stageKillAt)) {
            long epoch = lease.epoch();
            r.schedulerKillAnswered = answered(stages);
            active.kill();
            long killed = System.nanoTime();
            progress.printf("%nSIGKILL the active scheduler (host1) with %d/%d stages answered (lease epoch %d)%n",
                    r.schedulerKillAnswered, stages.size(), epoch);
            long deadline = killed + TimeUnit.SECONDS.toNanos(o.timeoutSeconds);
            while (lease.epoch() <= epoch && System.nanoTime() < deadline) {
                Thread.sleep(TICK_MILLIS);
            }
            if (lease.epoch() <= epoch) {
                throw new IOException("the standby (host2) did not take the site lease over within "
                        + o.timeoutSeconds + " s of the active scheduler's SIGKILL: the lease epoch stayed " + epoch
                        + "; see " + standby.log());
            }
            r.leaseTakeoverSeconds = (System.nanoTime() - killed) / 1e9;
            HostGroup.awaitRole(standby, standbyState, "active");
            r.failoverSeconds = (System.nanoTime() - killed) / 1e9;
            progress.printf("host2's standby took the site lease over %.1f s after the kill (epoch %d) and serves "
                    + "%.1f s after it%n", r.leaseTakeoverSeconds, lease.epoch(), r.failoverSeconds);
        } else {
            r.failures.add("scheduler kill: every stage was answered (or the time was up) before " + stageKillAt
                    + " answers, so the active scheduler was not killed and no failover was tested");
        }
        DemoCommand.await(progress, "stage", stages, started, o.timeoutSeconds);
        r.stageSeconds = (System.nanoTime() - stageStart) / 1e9;
        for (int i = 0; i < stages.size(); i++) {
            DemoCommand.verify(r, generated, order.get(i), stages.get(i), pools.get(order.get(i).index() % POOLS));
        }
        for (PoolEmulator pool : pools) {
            r.violations.addAll(pool.violations());
        }
        r.duplicated += r.violations.stream().filter(v -> v.contains(" completed twice")).count();
        return r;
    }

    /**
     * Waits, with the progress line, until {@code when} holds (true) or every request has its answer first
     * (false: too late to act in the middle of the phase).
     */
    private boolean awaitUntil(List<? extends EmulatedRequest<?>> requests, long started, BooleanSupplier when)
            throws InterruptedException {
        long deadline = started + TimeUnit.SECONDS.toNanos(o.timeoutSeconds);
        while (!when.getAsBoolean()) {
            if (answered(requests) == requests.size() || System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(TICK_MILLIS);
        }
        return answered(requests) < requests.size();
    }

    /**
     * A drive of {@code driveIds} that the active daemon reports mounting or busy (writing, positioning, reading),
     * as "state on drive (activity)", or null when none is or the daemon does not answer.
     */
    private static String busyDrive(Path activeState, List<String> driveIds) {
        JsonNode s = HostGroup.control(activeState, "status", List.of());
        if (s == null) {
            return null;
        }
        for (JsonNode d : s.path("scheduler").path("drives")) {
            String state = d.path("state").asText();
            if (driveIds.contains(d.path("id").asText()) && ("mounting".equals(state) || "busy".equals(state))) {
                return d.path("activity").asText(state) + " on " + d.path("id").asText();
            }
        }
        return null;
    }

    private static int answered(List<? extends EmulatedRequest<?>> requests) {
        return (int) requests.stream().filter(q -> q.outcome() != null).count();
    }

    /** Labels every cartridge through the active daemon, the first half for atlas, the rest for cms. */
    private void label(Path state) throws IOException {
        JsonNode list = HostGroup.control(state, "cartridge-list", List.of());
        if (list == null) {
            throw new IOException("the active daemon did not list its cartridges");
        }
        List<String> barcodes = new ArrayList<>();
        list.forEach(c -> barcodes.add(c.path("barcode").asText()));
        Collections.sort(barcodes);
        for (int i = 0; i < barcodes.size(); i++) {
            String family = DemoCommand.EXPERIMENTS[i * DemoCommand.EXPERIMENTS.length / barcodes.size()];
            if (HostGroup.control(state, "cartridge-label", List.of(barcodes.get(i), family, "false")) == null) {
                throw new IOException("labelling " + barcodes.get(i) + " failed");
            }
        }
        progress.printf("labelled %s%n", barcodes);
    }

    /** What the library process saw: mounts, double mounts, each cartridge's mounts and each drive's work. */
    private static void robot(DemoResult r, Path stats) throws IOException {
        if (!Files.isRegularFile(stats)) {
            throw new IOException(stats + ": the library process wrote no statistics at its stop");
        }
        JsonNode s = new ObjectMapper().readTree(stats.toFile());
        r.doubleMounts = s.path("double_mounts").asLong();
        r.doubleMountRequests = s.path("double_mount_requests").asLong();
        Map<String, Long> written = new TreeMap<>();
        s.path("files_written").fields().forEachRemaining(e -> written.put(e.getKey(), e.getValue().asLong()));
        r.filesWrittenByLibrary = written;
        JsonNode lib = s.path("library");
        r.mounts = lib.path("mounts").asLong();
        Map<String, Long> perCartridge = new TreeMap<>();
        lib.path("mountsPerCartridge").fields().forEachRemaining(e -> perCartridge.put(e.getKey(),
                e.getValue().asLong()));
        r.mountsPerCartridge = perCartridge;
        Map<String, DemoResult.Drive> drives = new TreeMap<>();
        lib.path("drives").fields().forEachRemaining(e -> {
            JsonNode d = e.getValue();
            long busy = 0;
            for (String k : List.of("mountMillis", "unmountMillis", "locateMillis", "readMillis", "writeMillis",
                    "faultMillis")) {
                busy += d.path(k).asLong();
            }
            drives.put(e.getKey(), new DemoResult.Drive(d.path("bytesRead").asLong() + d.path("bytesWritten")
                    .asLong(), busy));
        });
        r.drives.putAll(drives);
    }

    static int freePort(String host) throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
            return s.getLocalPort();
        }
    }
}
