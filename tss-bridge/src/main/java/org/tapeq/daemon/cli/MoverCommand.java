package org.tapeq.daemon.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import org.tapeq.daemon.Libraries;
import org.tapeq.daemon.config.LibraryConfig;
import org.tapeq.daemon.config.MoverConfig;
import org.tapeq.mover.AlertBox;
import org.tapeq.mover.MoverServer;
import org.tapeq.mover.PoolFiles;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.scheduler.time.Threads;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tapeq mover}: runs a data mover on this tape server until SIGTERM. Threads besides the mover's own:
 * {@code tapeq-mover-library} (its library's event loop) and {@code tapeq-mover-io-N} (tape data copies, bounded).
 */
@Command(name = "mover", mixinStandardHelpOptions = true,
        description = "Run a data mover: serve the active scheduler's commands for this tape server's drives over "
                + "gRPC (runs until SIGTERM). Its file names the mover, its listen address, its drives and their "
                + "library.")
final class MoverCommand implements Callable<Integer> {

    /** Where the mover's configuration is looked for unless {@code --config} says otherwise. */
    static final String DEFAULT_CONFIG = "/etc/tapeq/mover.yaml";

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "mover configuration file (default: "
            + DEFAULT_CONFIG + ")")
    Path config = Path.of(DEFAULT_CONFIG);

    @Override
    public Integer call() throws Exception {
        return serve(MoverConfig.load(config), (library, loop) -> library, () -> { });
    }

    /** What a command serving a library makes of it before the mover serves it (on the starting thread). */
    @FunctionalInterface
    interface Wrap {
        TapeLibrary apply(TapeLibrary library, RealTimeEventLoop loop) throws IOException, InterruptedException;
    }

    /**
     * Serves {@code c}'s drives until SIGTERM: its library, as {@code wrap} makes it, behind a mover server.
     * {@code atStop} runs last at the stop, once the server, the loop and the library are closed.
     */
    static int serve(MoverConfig c, Wrap wrap, AutoCloseable atStop) throws Exception {
        Files.createDirectories(c.state());
        LibraryConfig lib = c.library();
        boolean simulated = lib.backend() == LibraryConfig.Backend.SIMULATED;
        List<AutoCloseable> closeables = Collections.synchronizedList(new ArrayList<>());
        closeables.add(atStop);
        ThreadPoolExecutor io = new ThreadPoolExecutor(c.drives().size() + 1, c.drives().size() + 1, 60,
                TimeUnit.SECONDS, new ArrayBlockingQueue<>(c.drives().size() * 4), Threads.numbered("tapeq-mover-io"),
                new ThreadPoolExecutor.AbortPolicy());
        closeables.add(io::shutdownNow);
        RealTimeEventLoop loop = new RealTimeEventLoop("tapeq-mover-library", simulated ? lib.simulated().speed() : 1);
        // the remote backend forwards the newest epoch this mover admitted (its fence) when it sends a call, not
        // the epoch of the command it relays; known once it serves
        AtomicReference<MoverServer> self = new AtomicReference<>();
        LongSupplier epoch = () -> self.get() == null ? 0 : self.get().newestEpoch();
        TapeLibrary library = wrap.apply(Libraries.forMover(c, loop, io, epoch, closeables), loop);
        closeables.add(loop);
        AlertBox alerts = new AlertBox();
        library.alerts(alerts);
        MoverServer server = MoverServer.start(c.name(), c.listen(), Set.copyOf(c.drives()), library, alerts, loop,
                c.state(), c.identity(), c.stallMillis(),
                c.sharedPools().isEmpty() ? null : PoolFiles.open(c.name(), c.sharedPools()), c.changer());
        self.set(server);
        closeables.add(server);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (int i = closeables.size() - 1; i >= 0; i--) {
                try {
                    closeables.get(i).close();
                } catch (Exception e) {
                    System.err.println("tapeq mover: stopping: " + e);
                }
            }
            stopped.countDown();
        }, "tapeq-mover-shutdown"));
        stopped.await();
        return 0;
    }
}
