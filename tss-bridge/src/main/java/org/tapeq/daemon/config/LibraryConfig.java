package org.tapeq.daemon.config;

import java.nio.file.Path;
import java.util.List;

import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;

/**
 * The tape library ({@code library:}).
 *
 * @param backend        which library implementation the daemon drives
 * @param blockSizeBytes fixed tape block size: a multiple of 512 from 4 KiB to 8 MiB
 * @param simulated      settings of the simulated library (defaults filled in whatever the backend)
 * @param scsi           settings of the SCSI backend (required keys checked only when it is the backend)
 * @param remote         where the library of the {@code remote} backend is served (a mover's only), else null
 */
public record LibraryConfig(Backend backend, int blockSizeBytes, SimulatedConfig simulated, ScsiConfig scsi,
                            RemoteLibraryConfig remote) {

    static final String BACKEND = "backend";
    static final String BLOCK_SIZE = "blockSize";
    static final String SIMULATED = "simulated";
    static final String SCSI = "scsi";
    static final String REMOTE = "remote";
    static final List<String> KEYS = List.of(BACKEND, BLOCK_SIZE, SIMULATED, SCSI, REMOTE);

    public static final int DEFAULT_BLOCK_SIZE = SimulatedLibrary.DEFAULT_BLOCK_SIZE;
    static final int MIN_BLOCK_SIZE = 4 << 10;
    static final int MAX_BLOCK_SIZE = 8 << 20;
    static final int BLOCK_SIZE_MULTIPLE = 512;

    /** Library implementations, written in lower case in the file. */
    public enum Backend {
        /** The simulated library of the scheduler module: real bytes in local files, tape timing modelled. */
        SIMULATED,
        /** A real library through mtx, mt and dd (docs/scsi-backend.md). */
        SCSI,
        /**
         * A library whose robot and drives another process serves over the mover protocol ({@code tapeq
         * sim-library}, the simulated library standing for hardware that the tape servers share over the SAN):
         * a mover's backend only (docs/architecture.md, "The library as its own process").
         */
        REMOTE
    }

    /** A library of the local backends, without a {@code remote:} section. */
    public LibraryConfig(Backend backend, int blockSizeBytes, SimulatedConfig simulated, ScsiConfig scsi) {
        this(backend, blockSizeBytes, simulated, scsi, null);
    }

    static LibraryConfig parse(ConfigNode library, Path state) {
        library.allow(KEYS);
        Backend backend = library.choice(BACKEND, Backend.SIMULATED);
        long blockSize = library.size(BLOCK_SIZE, DEFAULT_BLOCK_SIZE);
        if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE || blockSize % BLOCK_SIZE_MULTIPLE != 0) {
            throw library.error(BLOCK_SIZE, "must be a multiple of " + BLOCK_SIZE_MULTIPLE + " from "
                    + Units.formatSize(MIN_BLOCK_SIZE) + " to " + Units.formatSize(MAX_BLOCK_SIZE) + ", not "
                    + blockSize);
        }
        ScsiConfig scsi = ScsiConfig.parse(library.map(SCSI), backend == Backend.SCSI);
        RemoteLibraryConfig remote = null;
        if (backend == Backend.REMOTE) {
            remote = RemoteLibraryConfig.parse(library.map(REMOTE));
        } else if (library.has(REMOTE)) {
            throw library.error(REMOTE, "only with backend: remote");
        }
        return new LibraryConfig(backend, (int) blockSize, SimulatedConfig.parse(library.map(SIMULATED), state), scsi,
                remote);
    }

    void describe(YamlText out) {
        out.put(0, DaemonConfig.LIBRARY, null)
                .put(1, BACKEND, ConfigNode.yamlName(backend))
                .put(1, BLOCK_SIZE, Units.formatSize(blockSizeBytes));
        simulated.describe(out.put(1, SIMULATED, null));
        scsi.describe(out);
        if (remote != null) {
            remote.describe(out);
        }
    }
}
