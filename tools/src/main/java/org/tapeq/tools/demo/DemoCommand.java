package org.tapeq.tools.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.dcache.pool.nearline.spi.NearlineStorage;
import org.dcache.util.Checksum;
import org.dcache.util.ChecksumType;
import org.tapeq.config.Units;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.cli.ProgressBar;
import org.tapeq.daemon.rehearsal.ScratchTree;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.PoolEmulator;
import org.tapeq.poolemulator.ProviderPlugin;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.tape.sim.SimStats;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tapeq demo}: the whole chain on one machine. A dCache pool emulator drives the real provider plugin
 * (found through the SPI's service registry, as dCache finds it) against a request directory served by the real
 * daemon, configured through a YAML file like a site's, with a simulated library holding real bytes in scaled
 * time. It flushes generated files of several datasets and sizes, drops the disk copies, stages everything back
 * in random order and checks every byte against the generator.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Flush generated files through provider, daemon and a simulated library, drop the disk "
                + "copies, stage them back in random order and verify every byte.")
public final class DemoCommand implements Callable<Integer> {

    private static final String HSM_TYPE = "osm";
    private static final String HSM_NAME = "demo";
    static final String[] EXPERIMENTS = {"atlas", "cms"};
    private static final String[] STORAGE_CLASSES = {"atlas:raw", "cms:aod"};

    @Option(names = "--files", defaultValue = "400", description = "files to flush and stage (default ${DEFAULT-VALUE})")
    int files;

    @Option(names = "--datasets", defaultValue = "8", description = "datasets they belong to (default ${DEFAULT-VALUE})")
    int datasets;

    @Option(names = "--max-size", defaultValue = "8388608",
            description = "largest file in bytes; sizes are log-uniform from 1 KiB (default ${DEFAULT-VALUE})")
    long maxSize;

    @Option(names = "--drives", description = "simulated drives (default 3; with --hosts 3: 4, half on each mover)")
    Integer drivesOption;

    /** The simulated drives: --drives, else 3 on one host and 4 on three. */
    int drives;

    @Option(names = "--cartridges", defaultValue = "6",
            description = "LTO-9 cartridges, labelled half for atlas, half for cms (default ${DEFAULT-VALUE})")
    int cartridges;

    @Option(names = "--speed", defaultValue = "50",
            description = "how much faster than real tape the library runs (default ${DEFAULT-VALUE})")
    double speed;

    @Option(names = "--seed", defaultValue = "1", description = "seed for sizes, contents and order")
    long seed;

    @Option(names = "--dir", description = "work directory (default: a new temporary directory, removed at the end)")
    Path dir;

    @Option(names = "--keep", description = "keep the work directory (config, catalog, tapes, logs) at the end")
    boolean keep;

    @Option(names = "--json", description = "print one JSON object with the results as the last line")
    boolean json;

    @Option(names = "--timeout", defaultValue = "600", description = "give up after this many seconds")
    long timeoutSeconds;

    @Option(names = "--verbose", description = "show the daemon's and the provider's log (INFO)")
    boolean verbose;

    @Option(names = "--hosts", defaultValue = "1", description = "1: everything in this process; 3: three hosts "
            + "as separate processes on 127.0.1.1-3 (active and standby scheduler, two movers, the library), one "
            + "PostgreSQL, two pools, a mover and the active scheduler killed with SIGKILL (default ${DEFAULT-VALUE})")
    int hosts;

    @Option(names = "--catalog-url", paramLabel = "JDBC-URL", description = "with --hosts 3: the PostgreSQL server "
            + "(jdbc:postgresql://host:port/db?user=...) on which a fresh database is made for the run (default: "
            + "TAPEQ_DEMO_PG_URL, else an embedded PostgreSQL)")
    String catalogUrl;

    private final PrintStream out = System.out;
    private final PrintStream progress = System.err;

    @Override
    public Integer call() throws Exception {
        drives = drivesOption != null ? drivesOption : hosts == 3 ? 4 : 3;
        if (files < 1 || datasets < 1 || drives < 1 || cartridges < 2 || maxSize < 1024 || !(speed > 0)) {
            throw new IllegalArgumentException("need --files >= 1, --datasets >= 1, --drives >= 1, "
                    + "--cartridges >= 2, --max-size >= 1024, --speed > 0");
        }
        if (hosts != 1 && hosts != 3) {
            throw new IllegalArgumentException("--hosts " + hosts + ": the demo runs on 1 host or on 3");
        }
        if (hosts == 3 && (drives < 2 || drives % 2 != 0)) {
            throw new IllegalArgumentException("--hosts 3 --drives " + drives + ": the drives are split evenly over two "
                    + "movers, so an even number of at least 2");
        }
        if (!verbose) {
            // The demo's own progress lines say what happens; the daemon's log is for operators.
            ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("org.tapeq"))
                    .setLevel(ch.qos.logback.classic.Level.WARN);
        }
        boolean temporary = dir == null;
        Path root = temporary ? Files.createTempDirectory("tapeq-demo-") : Files.createDirectories(dir);
        long started = System.nanoTime();
        DemoResult result;
        try {
            result = hosts == 3 ? new HostsDemo(this, progress).run(root, started) : run(root, started);
        } finally {
            if (temporary && !keep) {
                ScratchTree.delete(root);
            }
        }
        long wallMillis = (System.nanoTime() - started) / 1_000_000;
        result.print(out, wallMillis, keep || !temporary ? root : null);
        if (json) {
            out.println(new ObjectMapper().writeValueAsString(result.toJson(wallMillis)));
        }
        boolean clean = result.lost == 0 && result.checksumErrors == 0;
        if (hosts == 3) {
            // the kills must have happened: a demo that skipped them has not shown that the site survives them
            clean &= result.duplicated == 0 && result.doubleMounts == 0
                    && result.doubleMountRequests == 0 && result.verified == files
                    && result.moverKills == 1 && result.failovers >= 1 && result.failures.isEmpty();
        }
        return clean ? 0 : 1;
    }

    /** The server of the three-host demo's catalog: --catalog-url, else TAPEQ_DEMO_PG_URL, else null (embedded). */
    String catalogUrl() {
        return DemoPostgres.serverUrl(catalogUrl);
    }

    private DemoResult run(Path root, long started) throws Exception {
        Path endit = root.resolve("endit");
        RequestDirectory.create(endit);
        Path poolData = Files.createDirectories(root.resolve("pool"));
        Path config = root.resolve("tapeq.yaml");
        Files.writeString(config, DemoConfig.yaml(root, endit, drives, cartridges, speed, seed));
        DaemonConfig daemonConfig = DaemonConfig.load(config);
        progress.printf("tapeq demo: %d files in %d datasets, %d drives, %d LTO-9 cartridges, tape time x%s, in %s%n",
                files, datasets, drives, cartridges, Units.plainNumber(speed), root);

        try (Daemon daemon = Daemon.start(daemonConfig)) {
            List<String> barcodes = ((SimulatedLibrary) daemon.library()).barcodes();
            for (int i = 0; i < barcodes.size(); i++) {
                String family = EXPERIMENTS[i * EXPERIMENTS.length / barcodes.size()];
                daemon.scheduler().labelCartridge(barcodes.get(i), family, false).get(5, TimeUnit.MINUTES);
            }
            progress.printf("labelled %s%n", barcodes);
            NearlineStorage provider = ProviderPlugin.load(HSM_TYPE, HSM_NAME, endit);
            try (PoolEmulator pool = PoolEmulator.builder().hsm(HSM_TYPE, HSM_NAME).dataDirectory(poolData)
                    .stageTimeoutMillis(TimeUnit.SECONDS.toMillis(timeoutSeconds))
                    .flushTimeoutMillis(TimeUnit.SECONDS.toMillis(timeoutSeconds)).build()) {
                pool.attach(provider);
                try {
                    return campaign(daemon, pool, started);
                } finally {
                    provider.shutdown();
                }
            }
        }
    }

    private DemoResult campaign(Daemon daemon, PoolEmulator pool, long started) throws Exception {
        DemoFiles generated = new DemoFiles(seed, files, datasets, maxSize);
        List<EmulatedFlushRequest> flushes = new ArrayList<>();
        for (DemoFiles.File f : generated.files()) {
            try (InputStream in = generated.content(f)) {
                Files.copy(in, pool.replicaPath(f.pnfsid()));
            }
            flushes.add(flushOf(pool, f));
        }
        DemoResult r = new DemoResult(files, generated.totalBytes());
        progress.printf("generated %d files, %s%n", files, Units.roughSize(generated.totalBytes()));

        long flushStart = System.nanoTime();
        pool.flush(flushes);
        await(progress, "flush", flushes, started, timeoutSeconds);
        r.flushSeconds = (System.nanoTime() - flushStart) / 1e9;
        for (EmulatedFlushRequest f : flushes) {
            if (f.outcome().isCompleted()) {
                r.flushed++;
            } else {
                r.failures.add("flush " + f.getFileAttributes().getPnfsId() + ": " + f.outcome());
            }
        }

        for (DemoFiles.File f : generated.files()) {
            Files.deleteIfExists(pool.replicaPath(f.pnfsid()));
        }
        progress.printf("dropped the disk copies; staging everything back in random order%n");

        List<DemoFiles.File> order = new ArrayList<>(generated.files());
        Collections.shuffle(order, new Random(seed * 31 + 7));
        List<EmulatedStageRequest> stages = new ArrayList<>();
        for (DemoFiles.File f : order) {
            stages.add(stageOf(pool, f));
        }
        long stageStart = System.nanoTime();
        pool.stage(stages);
        await(progress, "stage", stages, started, timeoutSeconds);
        r.stageSeconds = (System.nanoTime() - stageStart) / 1e9;

        for (int i = 0; i < stages.size(); i++) {
            verify(r, generated, order.get(i), stages.get(i), pool);
        }
        r.violations.addAll(pool.violations());

        SimStats stats = ((SimulatedLibrary) daemon.library()).stats();
        r.mounts = stats.mounts();
        r.cartridgesWritten = (int) daemon.catalog().cartridges().stream().filter(c -> c.tapeFiles() > 0).count();
        r.mountsPerCartridge = new TreeMap<>(stats.mountsPerCartridge());
        stats.drives().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            SimStats.DriveStats d = e.getValue();
            r.drives.put(e.getKey(), new DemoResult.Drive(d.bytesRead() + d.bytesWritten(), d.busyMillis()));
        });
        r.speed = speed;
        return r;
    }

    /** The flush of generated file {@code f} from {@code pool}, its storage class that of its dataset. */
    static EmulatedFlushRequest flushOf(PoolEmulator pool, DemoFiles.File f) {
        int experiment = f.dataset() % EXPERIMENTS.length;
        return pool.newFlush(f.pnfsid(), f.size(), STORAGE_CLASSES[experiment], f.path(EXPERIMENTS[experiment]),
                List.of(new Checksum(ChecksumType.ADLER32, f.adler32())));
    }

    /** The stage of generated file {@code f} into {@code pool}. */
    static EmulatedStageRequest stageOf(PoolEmulator pool, DemoFiles.File f) {
        int experiment = f.dataset() % EXPERIMENTS.length;
        return pool.newStage(f.pnfsid(), f.size(), STORAGE_CLASSES[experiment], f.path(EXPERIMENTS[experiment]),
                List.of(new Checksum(ChecksumType.ADLER32, f.adler32())));
    }

    /** Counts the stage {@code s} of {@code f} into {@code r}: lost, or staged and its bytes compared. */
    static void verify(DemoResult r, DemoFiles generated, DemoFiles.File f, EmulatedStageRequest s, PoolEmulator pool)
            throws IOException {
        if (s.outcome() == null || !s.outcome().isCompleted()) {
            r.lost++;
            r.failures.add("stage " + f.pnfsid() + ": " + s.outcome());
            return;
        }
        r.staged++;
        if (generated.matches(f, pool.replicaPath(f.pnfsid()))) {
            r.verified++;
        } else {
            r.checksumErrors++;
            r.failures.add("stage " + f.pnfsid() + ": content differs from what was flushed");
        }
    }

    /** Waits for every request to end (or the demo's timeout from {@code started}), with a progress line. */
    static void await(PrintStream progress, String what, List<? extends EmulatedRequest<?>> requests, long started,
                      long timeoutSeconds) throws InterruptedException {
        long deadline = started + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        LongSupplier done = () -> requests.stream().filter(q -> q.outcome() != null).count();
        long last = -1;
        while (done.getAsLong() < requests.size()) {
            if (System.nanoTime() > deadline) {
                progress.printf("%n%s: timed out after %d s%n", what, timeoutSeconds);
                return;
            }
            long n = done.getAsLong();
            if (n != last) {
                progress.printf("\r%-5s %s %d/%d", what, ProgressBar.of(n, requests.size()), n, requests.size());
                last = n;
            }
            Thread.sleep(250);
        }
        progress.printf("\r%-5s %s %d/%d%n", what, ProgressBar.of(requests.size(), requests.size()),
                requests.size(), requests.size());
    }

}
