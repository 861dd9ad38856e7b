package org.tapeq.daemon.rehearsal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import org.tapeq.protocol.Request;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.VirtualEventLoop;

/**
 * Writes files through the real scheduler onto a size-only simulated library, in virtual time: the catalog and
 * the library directory a daemon then serves, as if it had written them itself. In the benchmark's form, file
 * {@code i} goes to cartridge {@code i % cartridges}: each cartridge is labelled for its own family (a storage
 * class no family rule matches is its own family), so the files spread evenly and each cartridge holds
 * aggregates of up to the scheduler's default 10 000 files.
 *
 * <p>Used by {@code tapeq loadtest} for the inputs of a burst, an A-DT or a carousel on the size-only library it
 * starts (so a recall need not first flush its inputs through the chain), by the daemon benchmarks, and by a
 * standby's takeover rehearsal.
 *
 * <p>The virtual clock starts 30 days before now, so every time the catalog records (label, mounts) lies in the
 * past for the daemon's real-time clock.
 */
public final class SizeOnlyTapes {

    public static final String BARCODE_PREFIX = "TQ";
    public static final MediaType MEDIA = MediaType.LTO9;
    public static final long SEED = 1;
    private static final long THIRTY_DAYS = 30L * 24 * 3_600_000;

    private SizeOnlyTapes() {
    }

    /** dCache-style pnfsid of file {@code i}. */
    public static String pnfsid(int i) {
        return String.format(Locale.ROOT, "0000%020X", i);
    }

    /** The storage class (and so the family) of file {@code i}. */
    public static String storageClass(int i, int cartridges) {
        return String.format(Locale.ROOT, "bench:c%04d@osm", i % cartridges);
    }

    public static String path(int i, int cartridges) {
        return String.format(Locale.ROOT, "/pnfs/bench/c%04d/f%d", i % cartridges, i);
    }

    /** The stage request of file {@code i} as a provider without tapeq's extension writes it, sent now. */
    public static Request stageRequest(int i, int cartridges, long size, long parentPid) {
        return Request.stage(size, System.currentTimeMillis() / 1000, storageClass(i, cartridges),
                path(i, cartridges), parentPid, null, null, null);
    }

    /**
     * A daemon configuration serving these tapes: one request directory named {@code name} (with further keys
     * {@code directoryKeys}, e.g. {@code "stageBuffer: 100TB"}), the size-only simulated library with this class's
     * barcodes and seed (its data below {@code state}), no label checks, no HTTP port.
     */
    public static String daemonYaml(String name, Path requestDir, Path state, double speed, int drives,
                                    int cartridges, String... directoryKeys) {
        List<String> lines = new ArrayList<>(List.of(
                "directories:",
                "  - path: " + requestDir,
                "    name: " + name));
        for (String key : directoryKeys) {
            lines.add("    " + key);
        }
        lines.addAll(List.of(
                "state: " + state,
                "library:",
                "  simulated:",
                "    data: size-only",
                "    speed: " + speed,
                "    drives: " + drives,
                "    cartridges: " + cartridges,
                "    barcodePrefix: " + BARCODE_PREFIX,
                "    seed: " + SEED,
                "scheduler:",
                "  checkLabels: false",
                "http:",
                "  bind: off",
                ""));
        return String.join("\n", lines);
    }

    /** One file to put on tape: {@code checksum} is {@code adler32:%08x} or null. */
    public record TapeFile(String pnfsid, long size, String storageClass, String path, String group,
                           String checksum) {
    }

    /**
     * Labels the cartridges (of {@code media}, which must be the daemon's), flushes {@code n} files of
     * {@code size} bytes, waits until all are committed.
     */
    public static void write(Path catalogFile, Path libraryDir, int drives, MediaType media, int cartridges, int n,
                             long size) throws IOException {
        write(sqlite(catalogFile), libraryDir, drives, media, cartridges, n, size);
    }

    /** As {@link #write(Path, Path, int, MediaType, int, int, long)}, into the catalog at a JDBC URL (PostgreSQL). */
    public static void write(String catalogUrl, Path libraryDir, int drives, MediaType media, int cartridges, int n,
                             long size) throws IOException {
        List<String> labels = new ArrayList<>();
        for (int c = 0; c < cartridges; c++) {
            labels.add(storageClass(c, cartridges));
        }
        write(catalogUrl, libraryDir, drives, media, labels, Map.of(), n,
                i -> new TapeFile(pnfsid(i), size, storageClass(i, cartridges), path(i, cartridges), "bench", null));
    }

    /**
     * Labels cartridge {@code c} of the library for family {@code labels.get(c)}, maps storage classes to families
     * by {@code familyRules} (regular expression to family, as the daemon's {@code families:}), flushes files
     * {@code file(0)} to {@code file(n - 1)} and waits until all are committed.
     */
    public static void write(Path catalogFile, Path libraryDir, int drives, MediaType media, List<String> labels,
                             Map<String, String> familyRules, int n, IntFunction<TapeFile> file) throws IOException {
        write(sqlite(catalogFile), libraryDir, drives, media, labels, familyRules, n, file);
    }

    private static String sqlite(Path catalogFile) {
        return "jdbc:sqlite:" + catalogFile;
    }

    private static void write(String catalogUrl, Path libraryDir, int drives, MediaType media, List<String> labels,
                              Map<String, String> familyRules, int n, IntFunction<TapeFile> file) throws IOException {
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
        SchedulerConfig.Builder config = SchedulerConfig.builder().checkLabels(false);
        familyRules.forEach(config::familyRule);
        try (SimulatedLibrary library = SimulatedLibrary.builder(loop).drives(drives)
                .cartridges(BARCODE_PREFIX, labels.size(), media).seed(SEED).sizeOnly(libraryDir).build();
             JdbcCatalog catalog = JdbcCatalog.open(catalogUrl)) {
            Scheduler scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog)
                    .config(config.build()).listener(listener).build();
            await(loop, scheduler.start());
            for (int c = 0; c < labels.size(); c++) {
                await(loop, scheduler.labelCartridge(library.barcodes().get(c), labels.get(c), false));
            }
            for (int i = 0; i < n; i++) {
                TapeFile f = file.apply(i);
                scheduler.flush(new FlushRequest(i + 1, f.pnfsid(), f.size(), f.storageClass(), f.path(), null,
                        f.group(), 0, 0, f.checksum(), null));
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
