package org.tapeq.loadtest.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.tapeq.config.ConfigException;
import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.daemon.config.LibraryConfig;
import org.tapeq.daemon.config.SimulatedConfig;
import org.tapeq.daemon.rehearsal.SizeOnlyTapes;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.tape.sim.DataMode;
import org.tapeq.scheduler.tape.sim.SimStats;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.workload.scenario.Activity;
import org.tapeq.workload.scenario.Experiment;
import org.tapeq.workload.scenario.LibrarySettings;
import org.tapeq.workload.scenario.Scenario;

/**
 * A tapeq daemon the harness starts in its own JVM from a daemon YAML file: a site's (any backend, cartridges
 * already labelled) or one written from the scenario's {@code library:} section (a simulated library; each
 * experiment its own family, group and share, cartridges labelled evenly among the experiments). For a burst on
 * the written configuration, the files are put on size-only cartridges before the daemon starts
 * ({@link SizeOnlyTapes}).
 */
public final class StartedDaemon implements Target {

    private static final long LABEL_TIMEOUT_MINUTES = 5;
    /** How often {@link #emptyDrives} looks at the drives. */
    private static final long EMPTY_POLL_MILLIS = 200;
    static final String CATALOG = "catalog.db";
    static final String LIBRARY = "simlib";

    private final Daemon daemon;
    private final TransferLog transfers;
    private final Path requestDirectory;
    private final double speed;
    private final String description;
    private final Map<String, Long> mountsAtStart;
    private final boolean inputsOnTape;

    private StartedDaemon(Daemon daemon, TransferLog transfers, Path requestDirectory, double speed,
                          String description, boolean inputsOnTape) {
        this.daemon = daemon;
        this.transfers = transfers;
        this.inputsOnTape = inputsOnTape;
        this.requestDirectory = requestDirectory;
        this.speed = speed;
        this.description = description;
        this.mountsAtStart = mountCounts();
    }

    /** Starts the daemon of a site's configuration file; the first request directory is driven. */
    public static StartedDaemon fromConfig(Path configFile) throws IOException, InterruptedException {
        DaemonConfig config = DaemonConfig.load(configFile);
        LibraryConfig lib = config.library();
        double speed = lib.backend() == LibraryConfig.Backend.SIMULATED ? lib.simulated().speed() : 1;
        TransferLog transfers = new TransferLog();
        Daemon daemon = Daemon.start(config, transfers);
        return new StartedDaemon(daemon, transfers, config.directories().get(0).path(), speed,
                "tapeq daemon started from " + configFile + " (" + lib.backend().name().toLowerCase() + " library)",
                false);
    }

    /**
     * Writes a configuration under {@code work} for the scenario's simulated library and starts that daemon. On a
     * size-only library the cartridges are labelled and the plan's inputs written before the daemon starts. A work
     * directory that already holds a catalog (an earlier run's, given again with {@code --work}) is served as it is:
     * nothing is labelled or written first, and its library must be the scenario's. An adt with inputs needs one.
     */
    public static StartedDaemon simulated(Scenario scenario, Plan plan, Path work) throws Exception {
        Path endit = work.resolve("endit");
        Path state = work.resolve("state");
        Path config = work.resolve("tapeq.yaml");
        LibrarySettings lib = scenario.library();
        boolean sizeOnly = lib.data() == DataMode.SIZE_ONLY;
        boolean reused = Files.exists(state.resolve(CATALOG));
        if (reused) {
            sameLibrary(scenario, config);
        } else if (scenario.hasInputs()) {
            throw new IllegalArgumentException(scenario.source() + ": an adt with inputs recalls files an earlier "
                    + "dt wrote, so the daemon needs that dt's catalog and cartridges, and the work directory " + work
                    + " holds no catalog (state/" + CATALOG + "). With the library the harness starts, run the dt "
                    + "and then this adt with the same --work DIR; or use --daemon-config or --request-dir");
        }
        RequestDirectory.create(endit);
        Files.createDirectories(state);
        if (scenario.has(Activity.BURST)) {
            if (reused) {
                throw new IllegalArgumentException(scenario.source() + ": a burst needs a new work directory (its "
                        + "files are put on the cartridges before the start); " + work + " holds an earlier run's "
                        + "catalog");
            }
            if (!sizeOnly) {
                throw new IllegalArgumentException(scenario.source() + ": library.data: a burst needs size-only");
            }
            Experiment e = scenario.experiments().get(0);
            SizeOnlyTapes.write(state.resolve(CATALOG), state.resolve(LIBRARY), lib.drives(), lib.media(),
                    lib.cartridges(), e.requests(), e.burstFileSize());
        } else if (sizeOnly && !reused) {
            List<PlannedFile> inputs = plan.prepare();
            Map<String, String> families = new LinkedHashMap<>();
            scenario.experiments().forEach(e -> families.put(e.name() + ":.*", e.name()));
            SizeOnlyTapes.write(state.resolve(CATALOG), state.resolve(LIBRARY), lib.drives(), lib.media(),
                    labels(scenario.experiments(), lib.cartridges()), families, inputs.size(), i -> {
                        PlannedFile f = inputs.get(i);
                        return new SizeOnlyTapes.TapeFile(f.pnfsid(), f.size(), f.storageClass(), f.path(),
                                scenario.experiments().get(f.experiment()).name(), Checksums.format(f.adler32()));
                    });
        }
        Files.writeString(config, DaemonYaml.of(scenario, endit, state));
        TransferLog transfers = new TransferLog();
        Daemon daemon = Daemon.start(DaemonConfig.load(config), transfers);
        try {
            if (!sizeOnly && !reused) {
                List<String> labels = labels(scenario.experiments(), lib.cartridges());
                List<String> barcodes = ((SimulatedLibrary) daemon.library()).barcodes();
                for (int i = 0; i < barcodes.size(); i++) {
                    daemon.scheduler().labelCartridge(barcodes.get(i), labels.get(i), false)
                            .get(LABEL_TIMEOUT_MINUTES, TimeUnit.MINUTES);
                }
            }
        } catch (Exception e) {
            daemon.close();
            throw e;
        }
        boolean inputsOnTape = sizeOnly && !reused;
        String what = String.format("tapeq daemon started by the harness: simulated library, %d drives, %d %s "
                + "cartridges, %s data, x%s speed%s (%s)", lib.drives(), lib.cartridges(), lib.media().name(),
                ConfigNode.yamlName(lib.data()), Units.plainNumber(lib.speed()), reused
                        ? ", on the catalog and cartridges of an earlier run"
                        : inputsOnTape && !plan.prepare().isEmpty()
                        ? ", inputs written onto the cartridges before the start" : "",
                config.getFileName() + " in the work directory");
        return new StartedDaemon(daemon, transfers, endit, lib.speed(), what, inputsOnTape);
    }

    /** Refuses a scenario whose library differs from the one the earlier run in the same work directory had. */
    private static void sameLibrary(Scenario scenario, Path config) {
        SimulatedConfig was = DaemonConfig.load(config).library().simulated();
        LibrarySettings lib = scenario.library();
        if (was.drives() != lib.drives() || was.cartridges() != lib.cartridges() || was.media() != lib.media()
                || was.data() != lib.data()) {
            throw new ConfigException(scenario.source() + ": library: " + lib.drives() + " drives, "
                    + lib.cartridges() + " " + lib.media().name() + " cartridges, " + ConfigNode.yamlName(lib.data())
                    + " data; the earlier run in this work directory (" + config + ") had " + was.drives()
                    + " drives, " + was.cartridges() + " " + was.media().name() + " cartridges, "
                    + ConfigNode.yamlName(was.data()) + " data: give the same library: section");
        }
    }

    /** The family of each cartridge: the experiments' in equal runs, in the order of the scenario. */
    static List<String> labels(List<Experiment> experiments, int cartridges) {
        List<String> labels = new ArrayList<>(cartridges);
        for (int i = 0; i < cartridges; i++) {
            labels.add(experiments.get(i * experiments.size() / cartridges).name());
        }
        return labels;
    }

    @Override
    public boolean inputsOnTape() {
        return inputsOnTape;
    }

    @Override
    public Path requestDirectory() {
        return requestDirectory;
    }

    @Override
    public double speed() {
        return speed;
    }

    /** Queue depth: requests the scheduler holds (submitted and not ended), from its counters, as mounts. */
    @Override
    public Probe probe() {
        SchedulerStatus status = status();
        if (status == null) {
            return Probe.UNKNOWN;
        }
        Map<String, Long> c = status.counters();
        long queued = 0;
        for (String kind : new String[] {"stages", "flushes"}) {
            queued += c.getOrDefault(kind + "_submitted", 0L) - c.getOrDefault(kind + "_done", 0L)
                    - c.getOrDefault(kind + "_failed", 0L) - c.getOrDefault(kind + "_cancelled", 0L);
        }
        return new Probe(queued, c.getOrDefault("mounts", 0L));
    }

    /**
     * Asks the scheduler to unload its idle drives until its status shows no drive in service holding a cartridge
     * (a drive busy at first is asked again once it is idle).
     */
    @Override
    public Emptied emptyDrives(long timeoutNanos) throws InterruptedException {
        long start = System.nanoTime();
        Map<String, String> unloaded = new TreeMap<>();
        while (true) {
            SchedulerStatus status = answer(daemon.scheduler().status(0));
            boolean empty = status != null && status.drives().stream()
                    .allMatch(d -> d.cartridge() == null || d.state().equals("down"));
            long took = System.nanoTime() - start;
            if (empty || took > timeoutNanos) {
                return new Emptied(unloaded, took / 1_000_000, empty);
            }
            Map<String, String> unloading = answer(daemon.scheduler().unloadIdleDrives());
            if (unloading != null) {
                unloaded.putAll(unloading);
            }
            Thread.sleep(EMPTY_POLL_MILLIS);
        }
    }

    /** Mounts per cartridge during the run (the simulated library's count; other backends: the scheduler's). */
    @Override
    public Map<String, Long> mountsPerCartridge() {
        Map<String, Long> now = mountCounts();
        Map<String, Long> out = new TreeMap<>();
        now.forEach((barcode, n) -> {
            long during = n - mountsAtStart.getOrDefault(barcode, 0L);
            if (during > 0) {
                out.put(barcode, during);
            }
        });
        return out;
    }

    /**
     * Mounts per cartridge so far: the simulated library's own count (it includes the mounts of inputs written
     * before the start), else the scheduler's since this daemon started (a SCSI library counts none itself).
     */
    private Map<String, Long> mountCounts() {
        if (daemon.library() instanceof SimulatedLibrary sim) {
            SimStats stats = sim.stats();
            return new TreeMap<>(stats.mountsPerCartridge());
        }
        SchedulerStatus status = status();
        Map<String, Long> counts = new TreeMap<>();
        if (status != null) {
            status.mountsPerCartridge().forEach((barcode, n) -> counts.put(barcode, (long) n));
        }
        return counts;
    }

    /** The scheduler's status, or null if it did not answer in time (or this thread was interrupted). */
    private SchedulerStatus status() {
        try {
            return answer(daemon.scheduler().status(0));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The scheduler's answer within the daemon's status timeout, or null if it failed or did not come. */
    private static <T> T answer(CompletableFuture<T> answer) throws InterruptedException {
        try {
            return answer.get(Daemon.STATUS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    /**
     * Every read and aggregate written that ended since {@code t0}, as the daemon's drives told them, in loop
     * (library) time: the loop time of {@code t0} is taken once from a status snapshot, so the transfers keep their
     * exact durations and order (the whole plot may shift by the snapshot's delay). Null if the scheduler does not
     * answer.
     */
    @Override
    public List<Transfer> transfers(long t0) {
        SchedulerStatus status = status();
        if (status == null) {
            return null;
        }
        return transfers.since(status.now() - (System.nanoTime() - t0) / 1e6 * speed);
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        daemon.close();
    }
}
