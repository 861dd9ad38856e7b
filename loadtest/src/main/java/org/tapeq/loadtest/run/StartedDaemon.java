package org.tapeq.loadtest.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.config.ConfigNode;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.daemon.config.LibraryConfig;
import org.tapeq.loadtest.report.Format;
import org.tapeq.loadtest.scenario.Activity;
import org.tapeq.loadtest.scenario.Experiment;
import org.tapeq.loadtest.scenario.LibrarySettings;
import org.tapeq.loadtest.scenario.Scenario;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.tape.sim.DataMode;
import org.tapeq.scheduler.tape.sim.SimStats;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;

/**
 * A tapeq daemon the harness starts in its own JVM from a daemon YAML file: a site's (any backend, cartridges
 * already labelled) or one written from the scenario's {@code library:} section (a simulated library; each
 * experiment its own family, group and share, cartridges labelled evenly among the experiments). For a burst on
 * the written configuration, the files are put on size-only cartridges before the daemon starts
 * ({@link SizeOnlyTapes}).
 */
public final class StartedDaemon implements Target {

    private static final long LABEL_TIMEOUT_MINUTES = 5;
    static final String CATALOG = "catalog.db";
    static final String LIBRARY = "simlib";

    private final Daemon daemon;
    private final Path requestDirectory;
    private final double speed;
    private final String description;
    private final Map<String, Long> mountsAtStart;
    private final boolean inputsOnTape;

    private StartedDaemon(Daemon daemon, Path requestDirectory, double speed, String description,
                          boolean inputsOnTape) {
        this.daemon = daemon;
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
        Daemon daemon = Daemon.start(config);
        return new StartedDaemon(daemon, config.directories().get(0).path(), speed, "tapeq daemon started from "
                + configFile + " (" + lib.backend().name().toLowerCase() + " library)", false);
    }

    /**
     * Writes a configuration under {@code work} for the scenario's simulated library and starts that daemon. On a
     * size-only library the cartridges are labelled and the plan's inputs written before the daemon starts.
     */
    public static StartedDaemon simulated(Scenario scenario, Plan plan, Path work) throws Exception {
        Path endit = work.resolve("endit");
        RequestDirectory.create(endit);
        Path state = Files.createDirectories(work.resolve("state"));
        LibrarySettings lib = scenario.library();
        boolean sizeOnly = lib.data() == DataMode.SIZE_ONLY;
        if (scenario.has(Activity.BURST)) {
            if (!sizeOnly) {
                throw new IllegalArgumentException(scenario.source() + ": library.data: a burst needs size-only");
            }
            Experiment e = scenario.experiments().get(0);
            SizeOnlyTapes.write(state.resolve(CATALOG), state.resolve(LIBRARY), lib.drives(), lib.cartridges(),
                    e.requests(), e.burstFileSize());
        } else if (sizeOnly) {
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
        Path config = work.resolve("tapeq.yaml");
        Files.writeString(config, DaemonYaml.of(scenario, endit, state));
        Daemon daemon = Daemon.start(DaemonConfig.load(config));
        try {
            if (!sizeOnly) {
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
        String what = String.format("tapeq daemon started by the harness: simulated library, %d drives, %d %s "
                + "cartridges, %s data, x%s speed%s (%s)", lib.drives(), lib.cartridges(), lib.media().name(),
                ConfigNode.yamlName(lib.data()), Format.number(lib.speed()), sizeOnly && !plan.prepare().isEmpty()
                        ? ", inputs written onto the cartridges before the start" : "", config);
        return new StartedDaemon(daemon, endit, lib.speed(), what, sizeOnly);
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
        try {
            Map<String, Long> c = daemon.scheduler().status(0).get(Daemon.STATUS_TIMEOUT_MILLIS,
                    TimeUnit.MILLISECONDS).counters();
            long queued = 0;
            for (String kind : new String[] {"stages", "flushes"}) {
                queued += c.getOrDefault(kind + "_submitted", 0L) - c.getOrDefault(kind + "_done", 0L)
                        - c.getOrDefault(kind + "_failed", 0L) - c.getOrDefault(kind + "_cancelled", 0L);
            }
            return new Probe(queued, c.getOrDefault("mounts", 0L));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Probe.UNKNOWN;
        } catch (ExecutionException | TimeoutException e) {
            return Probe.UNKNOWN;
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
        try {
            Map<String, Long> counts = new TreeMap<>();
            daemon.scheduler().status(0).get(Daemon.STATUS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                    .mountsPerCartridge().forEach((barcode, n) -> counts.put(barcode, (long) n));
            return counts;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        } catch (ExecutionException | TimeoutException e) {
            return Map.of();
        }
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
