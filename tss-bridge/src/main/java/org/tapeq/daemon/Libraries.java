package org.tapeq.daemon;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.daemon.config.LibraryConfig;
import org.tapeq.daemon.config.MoverConfig;
import org.tapeq.daemon.config.SimulatedConfig;
import org.tapeq.mover.MoverDrives;
import org.tapeq.mover.MoverEvents;
import org.tapeq.mover.RemoteLibrary;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.format.TapeLabel;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.scsi.ScsiLibrary;
import org.tapeq.scheduler.tape.sim.DataMode;
import org.tapeq.scheduler.tape.sim.SimLibraryBuilder;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The library a process drives: the one of {@code library:} (the SCSI backend or the simulated library), opened
 * here, or, when the configuration names data movers ({@code movers:}), the site's movers over gRPC. The daemon
 * and {@code tapeq mover} both open their library here.
 */
public final class Libraries {

    private Libraries() {
    }

    /**
     * The daemon's library: the movers' if configured, else the local one. {@code epoch} gives the site lease
     * epoch the movers' commands carry. What must be closed is added to {@code closeables}.
     */
    static TapeLibrary forDaemon(DaemonConfig config, EventLoop loop, Executor io, LongSupplier epoch, String name,
                                 List<AutoCloseable> closeables) throws IOException {
        if (config.movers().isEmpty()) {
            return local(config.library(), loop, io, closeables);
        }
        RemoteLibrary remote = new RemoteLibrary(config.movers().get(), loop, config.library().blockSizeBytes(),
                epoch, name);
        closeables.add(remote);
        return remote;
    }

    /** Once the scheduler has started: lost and returning movers take their drives out of and back into service. */
    static void started(TapeLibrary library, Scheduler scheduler) {
        if (library instanceof RemoteLibrary remote) {
            remote.events(new MoverDrives(scheduler));
        }
    }

    /**
     * A mover's library: the one of {@code library:} on this host, or with the {@code remote} backend the mover's
     * drives of the library another process serves, whose commands carry the fence {@code epoch} gives.
     */
    public static TapeLibrary forMover(MoverConfig mover, EventLoop loop, Executor io, LongSupplier epoch,
                                       List<AutoCloseable> closeables) throws IOException {
        LibraryConfig lib = mover.library();
        if (lib.backend() != LibraryConfig.Backend.REMOTE) {
            return local(lib, loop, io, closeables);
        }
        RemoteLibrary remote = RemoteLibrary.partOf(lib.remote().site(mover.drives(), mover.identity(),
                mover.stallMillis()), loop, lib.blockSizeBytes(), epoch, "mover " + mover.name());
        closeables.add(remote);
        remote.events(MoverEvents.NONE); // probed, so that a returning library serves again; no drive to take out
        return remote;
    }

    /** The library of {@code library:} on this host. */
    public static TapeLibrary local(LibraryConfig lib, EventLoop loop, Executor io, List<AutoCloseable> closeables)
            throws IOException {
        if (lib.backend() == LibraryConfig.Backend.REMOTE) {
            throw new IllegalArgumentException("library.backend remote is served by another process, not opened here");
        }
        if (lib.backend() == LibraryConfig.Backend.SCSI) {
            ScsiLibrary scsi = new ScsiLibrary(loop, lib.scsi().settings(lib.blockSizeBytes()), TapeLabel::parseFor);
            closeables.add(scsi);
            return scsi;
        }
        SimulatedConfig sim = lib.simulated();
        SimLibraryBuilder b = SimulatedLibrary.builder(loop).blockSize(lib.blockSizeBytes()).drives(sim.drives())
                .cartridges(sim.barcodePrefix(), sim.cartridges(), sim.media()).seed(sim.seed()).copyExecutor(io);
        b = sim.data() == DataMode.BYTES ? b.bytes(sim.dir()) : b.sizeOnly(sim.dir());
        SimulatedLibrary built = b.build();
        closeables.add(built);
        return built;
    }
}
