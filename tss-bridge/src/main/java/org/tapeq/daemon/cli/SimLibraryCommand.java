package org.tapeq.daemon.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.tapeq.config.ConfigException;
import org.tapeq.daemon.MountLedger;
import org.tapeq.daemon.config.LibraryConfig;
import org.tapeq.daemon.config.MoverConfig;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tapeq sim-library}: the simulated library as a process of its own, standing for library hardware that
 * several tape servers share over the SAN. It serves the robot and every drive over the mover protocol; each
 * mover reaches its own drives of it with {@code library.backend: remote}. The robot is driven from here alone,
 * so here a {@link MountLedger} counts double mounts; at its stop (SIGTERM) it writes what the library saw
 * ({@link #STATS_FILE} in its state directory: mounts, double mounts, the simulated library's statistics).
 */
@Command(name = "sim-library", mixinStandardHelpOptions = true,
        description = "Serve a simulated library (robot and every drive) to the movers over gRPC, as library "
                + "hardware shared by several tape servers (runs until SIGTERM). Its file is a mover's file whose "
                + "mover.drives lists every drive of its simulated library.")
final class SimLibraryCommand implements Callable<Integer> {

    /** What the library saw, written to its state directory at its stop. */
    static final String STATS_FILE = "sim-library-stats.json";

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", required = true,
            description = "its configuration: a mover's file (mover:, state:, library: with backend simulated)")
    Path config;

    @Override
    public Integer call() throws Exception {
        MoverConfig c = MoverConfig.load(config);
        if (c.library().backend() != LibraryConfig.Backend.SIMULATED) {
            throw new ConfigException(config + ": library.backend must be simulated for sim-library, not "
                    + c.library().backend().name().toLowerCase(java.util.Locale.ROOT));
        }
        List<String> all = IntStream.range(0, c.library().simulated().drives()).mapToObj(i -> "drive" + i).toList();
        if (!c.drives().containsAll(all)) {
            throw new ConfigException(config + ": mover.drives must list every drive of the simulated library "
                    + all + ": the library process serves them all, each mover reaches its own");
        }
        AtomicReference<MountLedger> ledger = new AtomicReference<>();
        AtomicReference<SimulatedLibrary> simulated = new AtomicReference<>();
        return MoverCommand.serve(c, (library, loop) -> {
            simulated.set((SimulatedLibrary) library);
            ledger.set(MountLedger.start(library, loop));
            return ledger.get();
        }, () -> writeStats(c.state().resolve(STATS_FILE), ledger.get(), simulated.get()));
    }

    private static void writeStats(Path file, MountLedger ledger, SimulatedLibrary library) throws Exception {
        if (ledger == null || library == null) {
            return;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mounts", ledger.mounts());
        m.put("double_mounts", ledger.doubleMounts());
        m.put("double_mount_requests", ledger.doubleMountRequests());
        m.put("files_written", new java.util.TreeMap<>(ledger.filesWritten()));
        m.put("library", library.stats());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), m);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
