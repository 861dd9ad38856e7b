package org.tapeq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/**
 * Prints the rate of {@code Catalog.file} lookups (single-threaded, about 9 % misses) on a catalog of N files
 * (default 100 000, in aggregates of 1 000 on one cartridge), and how long committing them took: on a SQLite
 * file, and on PostgreSQL when {@code --postgres URL} names a server (the run uses a fresh schema there and
 * drops it). A rough figure for sizing, not a JMH benchmark; it checks only that the catalog holds what was
 * committed.
 *
 * <p>Run with {@code ./tapeq bench-catalog [--files N] [--seconds S] [--postgres JDBC-URL]}.
 */
public final class CatalogLookupBenchmark {
    private static final int PER_AGGREGATE = 1_000;
    private static final long SEED = 42;
    private static final int BLOCK_SIZE = 262_144;
    private static final String BARCODE = "A00001";

    private CatalogLookupBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int files = 100_000;
        double seconds = 2;
        String postgres = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--files" -> files = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--postgres" -> postgres = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (files < PER_AGGREGATE || files % PER_AGGREGATE != 0) {
            throw new IllegalArgumentException("--files must be a positive multiple of " + PER_AGGREGATE);
        }
        long measureNanos = (long) (seconds * 1e9);
        Path dir = Files.createTempDirectory("tapeq-bench-catalog-");
        try (JdbcCatalog catalog = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("bench.db"))) {
            measure("SQLite file", catalog, files, measureNanos);
        } finally {
            deleteTree(dir);
        }
        if (postgres != null) {
            String schema = "tapeq_bench_" + UUID.randomUUID().toString().replace("-", "");
            try (Connection c = DriverManager.getConnection(postgres); Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA " + schema);
                String url = postgres + (postgres.contains("?") ? "&" : "?") + "currentSchema=" + schema;
                try (JdbcCatalog catalog = JdbcCatalog.open(url)) {
                    measure("PostgreSQL", catalog, files, measureNanos);
                } finally {
                    s.execute("DROP SCHEMA " + schema + " CASCADE");
                }
            }
        }
    }

    private static void measure(String name, JdbcCatalog catalog, int files, long measureNanos) {
        catalog.putCartridge(new CartridgeRecord(BARCODE, "LTO9", "atlas", CartridgeState.APPENDABLE,
                18_000_000_000_000L, 0, 0, 0, 0, 0, false, null));
        long fillStart = System.nanoTime();
        for (int i = 0; i < files / PER_AGGREGATE; i++) {
            commitAggregate(catalog, i + 1, (long) i * PER_AGGREGATE);
        }
        double fillSeconds = (System.nanoTime() - fillStart) / 1e9;

        Random random = new Random(SEED);
        for (int i = 0; i < 20_000; i++) { // warm-up
            catalog.file(pnfsid(random.nextInt(files)));
        }
        long lookups = 0;
        long found = 0;
        long start = System.nanoTime();
        long elapsed;
        do {
            for (int i = 0; i < 1_000; i++) {
                if (catalog.file(pnfsid(random.nextInt(files + files / 10))).isPresent()) { // ~9 % misses
                    found++;
                }
            }
            lookups += 1_000;
            elapsed = System.nanoTime() - start;
        } while (elapsed < measureNanos);
        System.out.printf("[CatalogLookupBenchmark] %s: %d files committed in %.1f s (%d aggregates); "
                        + "file() %.0f lookups/s single-threaded (%d lookups, %d hits, seed %d)%n", name, files,
                fillSeconds, files / PER_AGGREGATE, lookups * 1e9 / elapsed, lookups, found, SEED);
        int stored = catalog.files(BARCODE).size();
        if (found == 0 || stored != files) {
            throw new IllegalStateException(name + ": the catalog holds " + stored + " of " + files
                    + " files committed and " + found + " lookups hit");
        }
    }

    /** Tape file {@code tapeFile}: a manifest block, then members {@code first ..} of 1 MB each. */
    private static void commitAggregate(JdbcCatalog catalog, int tapeFile, long first) {
        long size = 1_000_000;
        List<FileRecord> members = new ArrayList<>(PER_AGGREGATE);
        long offset = BLOCK_SIZE;
        for (int i = 0; i < PER_AGGREGATE; i++) {
            members.add(new FileRecord(pnfsid(first + i), BARCODE, tapeFile, 1000L * tapeFile + offset / BLOCK_SIZE,
                    offset, size, "adler32:0a1b2c3d", "atlas:raw", "/pnfs/bench/f" + (first + i), "ds", 0));
            offset += size;
        }
        catalog.commitAggregate(new AggregateRecord(BARCODE, tapeFile, 1000L * tapeFile, offset / BLOCK_SIZE + 1,
                BLOCK_SIZE, offset, PER_AGGREGATE, "atlas", "ds", tapeFile), members);
    }

    /** The temporary directory with the SQLite file and its journal files. */
    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** A Chimera-style pnfsid (36 hex digits) made from {@code n}. */
    private static String pnfsid(long n) {
        return String.format("0000%032X", n);
    }
}
