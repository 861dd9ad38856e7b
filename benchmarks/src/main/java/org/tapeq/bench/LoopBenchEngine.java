package org.tapeq.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.engine.IoGate;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeRequest;
import org.tapeq.scheduler.tape.sim.SimLibraryBuilder;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.EventLoop;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.scheduler.time.VirtualEventLoop;

/**
 * The loop-latency benchmark's only contact with the engine: it builds a scheduler, a simulated library and a
 * JDBC catalog through their public API, writes the benchmark's files to tape in virtual time, and runs the
 * measured operations on a real-time engine wired as the daemon wires it. When the engine's packages move, this
 * class is the one to change.
 *
 * <p>Design notes. File {@code i} has a dCache-style pnfsid made from {@code i} and goes to cartridge
 * {@code i % cartridges}; each cartridge is labelled for its own family (a storage class that no family rule
 * matches is its own family). The real-time engine gets an I/O pool as the daemon builds it ({@code max(2,
 * drives + 1)} threads, 10 000 queued, refusing work when full) behind an {@link IoGate} (what does not fit
 * waits on the loop, never runs on it), the library copies bytes through that gate, and the scheduler's
 * catalog calls run on its catalog writer thread, all as in the daemon.
 */
final class LoopBenchEngine implements AutoCloseable {

    static final MediaType MEDIA = MediaType.LTO9;
    private static final long SEED = 1;
    private static final String GROUP = "bench";
    /** Room in the I/O pool's queue, and the most I/O tasks the loop hands it at a time, as in the daemon. */
    private static final int IO_QUEUE = 10_000;

    /**
     * A simulated library.
     *
     * @param dir        where it keeps its tapes (and their bytes if {@code bytes})
     * @param bytes      BYTES mode (a rebuild reads manifests) or size-only
     * @param prefix     barcode prefix, two characters
     * @param cartridges number of cartridges
     * @param drives     number of drives
     */
    record Library(Path dir, boolean bytes, String prefix, int cartridges, int drives) {
    }

    private final Library lib;
    private final RealTimeEventLoop loop;
    private final ThreadPoolExecutor io;
    private final SimulatedLibrary library;
    private final JdbcCatalog catalog;
    private final Scheduler scheduler;
    private final AtomicLong staged = new AtomicLong();
    private final AtomicLong flushed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    private LoopBenchEngine(Library lib, String catalogUrl, double speed) throws Exception {
        this.lib = lib;
        this.catalog = JdbcCatalog.open(catalogUrl);
        this.loop = new RealTimeEventLoop("tapeq-scheduler", speed);
        AtomicInteger threads = new AtomicInteger();
        this.io = new ThreadPoolExecutor(Math.max(2, lib.drives() + 1), Math.max(2, lib.drives() + 1), 60,
                TimeUnit.SECONDS, new ArrayBlockingQueue<>(IO_QUEUE), r -> {
                    Thread t = new Thread(r, "tapeq-io-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy());
        IoGate gate = new IoGate(loop, io, IO_QUEUE);
        this.library = library(lib, loop).copyExecutor(gate).build();
        // On a real-time loop the scheduler's catalog calls run on its catalog writer thread, as in the daemon.
        this.scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog).config(config(lib, false))
                .listener(this::count).io(gate).build();
        scheduler.start().get(60, TimeUnit.SECONDS);
    }

    /** Starts a real-time engine (speed: loop milliseconds per real millisecond) on a prepared library. */
    static LoopBenchEngine start(Library lib, String catalogUrl, double speed) throws Exception {
        return new LoopBenchEngine(lib, catalogUrl, speed);
    }

    /** dCache-style pnfsid of file {@code i}. */
    static String pnfsid(int i) {
        return String.format(Locale.ROOT, "0000%020X", i);
    }

    private static String storageClass(int i, int cartridges) {
        return String.format(Locale.ROOT, "bench:c%04d@osm", i % cartridges);
    }

    private static String path(int i, int cartridges) {
        return String.format(Locale.ROOT, "/pnfs/bench/c%04d/f%d", i % cartridges, i);
    }

    private static SimLibraryBuilder library(Library lib, EventLoop loop) {
        SimLibraryBuilder b = SimulatedLibrary.builder(loop).drives(lib.drives())
                .cartridges(lib.prefix(), lib.cartridges(), MEDIA).seed(SEED);
        return lib.bytes() ? b.bytes(lib.dir()) : b.sizeOnly(lib.dir());
    }

    /** The daemon's defaults; a size-only tape has no label bytes to check; writing the files is not verified. */
    private static SchedulerConfig config(Library lib, boolean writing) {
        return SchedulerConfig.builder().checkLabels(lib.bytes()).verifyAfterWrite(!writing).build();
    }

    private static FlushRequest flushRequest(int i, int cartridges, long size, Path source) {
        return new FlushRequest(i + 1L, pnfsid(i), size, storageClass(i, cartridges), path(i, cartridges), null,
                GROUP, 0, 0, null, source);
    }

    /**
     * Labels the library's cartridges and writes files {@code 0 .. n - 1} of {@code size} bytes through the
     * scheduler in virtual time; in BYTES mode every file's bytes are read from {@code source} (one file of
     * {@code size} bytes for all), in size-only mode {@code source} is null. The catalog and the library's
     * directory are then what a daemon that had written the files itself would have.
     */
    static void write(Library lib, String catalogUrl, int n, long size, Path source) throws IOException {
        VirtualEventLoop vloop = new VirtualEventLoop(System.currentTimeMillis() - TimeUnit.DAYS.toMillis(30));
        AtomicLong written = new AtomicLong();
        List<String> failures = new ArrayList<>();
        RequestListener listener = (request, outcome) -> {
            if (outcome instanceof Outcome.Flushed) {
                written.incrementAndGet();
            } else if (failures.size() < 5) {
                failures.add(request.pnfsid() + ": " + outcome);
            }
        };
        try (SimulatedLibrary library = library(lib, vloop).build(); JdbcCatalog catalog = JdbcCatalog.open(catalogUrl)) {
            Scheduler s = Scheduler.builder().loop(vloop).library(library).catalog(catalog).config(config(lib, true))
                    .listener(listener).build();
            await(vloop, s.start());
            for (int c = 0; c < lib.cartridges(); c++) {
                await(vloop, s.labelCartridge(library.barcodes().get(c), storageClass(c, lib.cartridges()), false));
            }
            for (int i = 0; i < n; i++) {
                s.flush(flushRequest(i, lib.cartridges(), size, source));
            }
            vloop.runUntilIdle();
        }
        if (written.get() != n) {
            throw new IllegalStateException("only " + written.get() + " of " + n + " files were written; " + failures);
        }
    }

    private static <T> T await(VirtualEventLoop vloop, CompletableFuture<T> f) {
        vloop.runUntilIdle();
        if (!f.isDone()) {
            throw new IllegalStateException("the operation did not finish");
        }
        return f.join();
    }

    private void count(TapeRequest request, Outcome outcome) {
        if (outcome instanceof Outcome.Staged) {
            staged.incrementAndGet();
        } else if (outcome instanceof Outcome.Flushed) {
            flushed.incrementAndGet();
        } else if (failed.incrementAndGet() <= 5) {
            System.out.println("  " + request.pnfsid() + " ended " + outcome);
        }
    }

    /** The engine's event loop, where the probes go. */
    Executor loop() {
        return loop;
    }

    /** Rebuilds cartridge {@code c} from tape; the future ends with "files found" once the catalog has them. */
    CompletableFuture<Integer> rebuild(int c) {
        return scheduler.rebuildCartridge(library.barcodes().get(c)).thenApply(Scheduler.RebuildReport::files);
    }

    /** Hands stages of files {@code ids[from .. to - 1]} to the scheduler in one call, as the daemon's bridge does. */
    void stage(int[] ids, int from, int to, long size) {
        List<StageRequest> batch = new ArrayList<>(to - from);
        for (int k = from; k < to; k++) {
            int i = ids[k];
            batch.add(new StageRequest(i + 1L, pnfsid(i), size, storageClass(i, lib.cartridges()),
                    path(i, lib.cartridges()), GROUP, null, 0, 0, null));
        }
        scheduler.stage(batch);
    }

    /** Hands a size-only flush of file {@code i} to the scheduler, as the daemon's bridge does. */
    void flush(int i, long size) {
        scheduler.flush(flushRequest(i, lib.cartridges(), size, null));
    }

    /** Completes once the loop has run every task posted before this call. */
    CompletableFuture<Void> caughtUp() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        loop.execute(() -> f.complete(null));
        return f;
    }

    long staged() {
        return staged.get();
    }

    long flushed() {
        return flushed.get();
    }

    long failed() {
        return failed.get();
    }

    @Override
    public void close() {
        try {
            loop.shutdown(30, TimeUnit.SECONDS); // the loop stops (its running task ends) before what it uses closes
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            loop.close();
        }
        library.close();
        io.shutdownNow();
        catalog.close();
    }
}
