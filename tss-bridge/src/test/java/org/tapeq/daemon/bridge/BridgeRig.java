package org.tapeq.daemon.bridge;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import org.tapeq.scheduler.time.Threads;
import org.tapeq.daemon.metrics.DaemonMetrics;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.testing.support.Poll;

/**
 * A scheduler on an empty catalog and a size-only simulated library, and bridges on it built directly (not
 * through the daemon), so a test can choose their intake pool and settings. A stage of a file the catalog does
 * not know is answered by the scheduler with rc 33.
 */
final class BridgeRig implements AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(60);

    final DaemonMetrics metrics = new DaemonMetrics();
    private final Path tmp;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final RealTimeEventLoop loop;
    private final Catalog catalog;
    private final Scheduler scheduler;

    BridgeRig(Path tmp) throws Exception {
        this(tmp, UnaryOperator.identity());
    }

    /** A rig whose scheduler and bridges use {@code wrap} of the catalog (a test's hanging or failing one). */
    BridgeRig(Path tmp, UnaryOperator<Catalog> wrap) throws Exception {
        this.tmp = tmp;
        loop = new RealTimeEventLoop("tapeq-scheduler", 1000);
        closeables.add(loop);
        JdbcCatalog jdbc = JdbcCatalog.open("jdbc:sqlite:" + tmp.resolve("catalog.db"));
        closeables.add(jdbc);
        catalog = wrap.apply(jdbc);
        SimulatedLibrary library = SimulatedLibrary.builder(loop).drives(1).cartridges("RG", 1, MediaType.LTO9)
                .sizeOnly(tmp.resolve("tapes")).build();
        closeables.add(library);
        scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog)
                .config(SchedulerConfig.defaults()).listener(DirectoryBridge.LISTENER)
                .stageSpace(DirectoryBridge.STAGE_SPACE).build();
        scheduler.start().get(30, TimeUnit.SECONDS);
    }

    Scheduler scheduler() {
        return scheduler;
    }

    RealTimeEventLoop loop() {
        return loop;
    }

    /** An intake pool closed with the rig. */
    IntakePool pool(int threads, int capacity) {
        IntakePool pool = new IntakePool(threads, capacity, Threads.numbered("test-intake"));
        closeables.add(pool);
        return pool;
    }

    /** A bridge (not started) on {@code dir}, closed with the rig. */
    DirectoryBridge bridge(String name, RequestDirectory dir, ReadPool pool, long rescanMillis) throws Exception {
        return bridge(name, dir, pool, rescanMillis, null);
    }

    /** A bridge (not started) whose error files are written by {@code errorFiles}, closed with the rig. */
    DirectoryBridge bridge(String name, RequestDirectory dir, ReadPool pool, long rescanMillis,
                           ErrorAnswers.Writer errorFiles) throws Exception {
        BridgeServices services = new BridgeServices(scheduler, catalog, loop, loop.speed(), metrics, pool, 2,
                System::currentTimeMillis);
        DirectoryBridge bridge = new DirectoryBridge(new BridgeSettings(name, dir.base(), null, 1L << 30, 0,
                rescanMillis, true, 65536, 3_600_000, 0), services, errorFiles);
        closeables.add(bridge);
        return bridge;
    }

    /** The bridge's last published status, with at most 10 parked flushes. */
    static BridgeStatus status(DirectoryBridge bridge) {
        return bridge.status(0, 10);
    }

    /** {@link Poll#until} with this rig's {@link #WAIT}. */
    static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        Poll.until(what, WAIT, condition::getAsBoolean);
    }

    /** Closes in reverse order; throws no InterruptedException, so try-with-resources needs no handler for it. */
    @Override
    public void close() {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception e) {
                throw new IllegalStateException("closing " + closeables.get(i) + " failed", e);
            }
        }
    }
}
