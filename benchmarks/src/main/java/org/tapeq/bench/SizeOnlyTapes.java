package org.tapeq.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.tapeq.scheduler.catalog.JdbcCatalog;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.VirtualEventLoop;

/**
 * Writes N files through the real scheduler onto a size-only simulated library, in virtual time: the catalog and
 * the library directory a daemon then serves. File {@code i} goes to cartridge {@code i % cartridges}: each
 * cartridge is labelled for its own family (a storage class no family rule matches is its own family), so the
 * files spread evenly and each cartridge holds aggregates of up to the scheduler's default 10 000 files.
 *
 * <p>The virtual clock starts 30 days before now, so every time the catalog records (label, mounts) lies in the
 * past for the daemon's real-time clock.
 */
final class SizeOnlyTapes {

    static final String BARCODE_PREFIX = "TQ";
    static final MediaType MEDIA = MediaType.LTO9;
    static final long SEED = 1;
    private static final long THIRTY_DAYS = 30L * 24 * 3_600_000;

    private SizeOnlyTapes() {
    }

    /** dCache-style pnfsid of file {@code i}. */
    static String pnfsid(int i) {
        return String.format(Locale.ROOT, "0000%020X", i);
    }

    /** The storage class (and so the family) of file {@code i}. */
    static String storageClass(int i, int cartridges) {
        return String.format(Locale.ROOT, "bench:c%04d@osm", i % cartridges);
    }

    static String path(int i, int cartridges) {
        return String.format(Locale.ROOT, "/pnfs/bench/c%04d/f%d", i % cartridges, i);
    }

    /** Labels the cartridges, flushes {@code n} files of {@code size} bytes, waits until all are committed. */
    static void write(Path catalogFile, Path libraryDir, int drives, int cartridges, int n, long size)
            throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(System.currentTimeMillis() - THIRTY_DAYS);
        AtomicLong flushed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        RequestListener listener = (request, outcome) -> {
            if (outcome instanceof Outcome.Flushed) {
                flushed.incrementAndGet();
            } else {
                failed.incrementAndGet();
                if (failed.get() <= 5) {
                    System.out.println("  flush of " + request.pnfsid() + " ended " + outcome);
                }
            }
        };
        try (SimulatedLibrary library = SimulatedLibrary.builder(loop).drives(drives)
                .cartridges(BARCODE_PREFIX, cartridges, MEDIA).seed(SEED).sizeOnly(libraryDir).build();
             JdbcCatalog catalog = JdbcCatalog.open("jdbc:sqlite:" + catalogFile)) {
            Scheduler scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog)
                    .config(SchedulerConfig.builder().checkLabels(false).build()).listener(listener).build();
            await(loop, scheduler.start());
            for (int c = 0; c < cartridges; c++) {
                String barcode = library.barcodes().get(c);
                await(loop, scheduler.labelCartridge(barcode, storageClass(c, cartridges), false));
            }
            for (int i = 0; i < n; i++) {
                scheduler.flush(new FlushRequest(i + 1, pnfsid(i), size, storageClass(i, cartridges),
                        path(i, cartridges), null, "bench", 0, 0, null, null));
            }
            loop.runUntilIdle();
            if (flushed.get() != n) {
                throw new IllegalStateException("only " + flushed.get() + " of " + n + " files were written ("
                        + failed.get() + " failed)");
            }
            if (loop.now() > System.currentTimeMillis()) {
                throw new IllegalStateException("the virtual clock ran past the real one; the catalog would hold "
                        + "times in the future");
            }
        }
    }

    private static <T> T await(VirtualEventLoop loop, CompletableFuture<T> f) {
        loop.runUntilIdle();
        if (!f.isDone()) {
            throw new IllegalStateException("operation did not finish");
        }
        return f.join();
    }
}
