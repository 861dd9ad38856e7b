package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.scheduler.catalog.jdbc.Records.aggregate;
import static org.tapeq.scheduler.catalog.jdbc.Records.cartridge;
import static org.tapeq.scheduler.catalog.jdbc.Records.members;
import static org.tapeq.scheduler.catalog.jdbc.Records.pnfsid;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FileRecord;

/**
 * Prints (does not assert) the rate of {@link Catalog#file} lookups on a catalog of 100 000 files: on a
 * SQLite file, and on PostgreSQL when a server answers. A rough figure for sizing, not a JMH benchmark.
 */
class CatalogLookupBenchmarkTest {
    static final int FILES = 100_000;
    static final int PER_AGGREGATE = 1_000;
    static final long SEED = 42;
    static final long MEASURE_NANOS = 2_000_000_000L;

    @TempDir
    Path tmp;

    @Test
    void fileLookups_sqliteFile100kRows_printsRate() {
        try (JdbcCatalog catalog = JdbcCatalog.open("jdbc:sqlite:" + tmp.resolve("bench.db"))) {
            measure("SQLite file", catalog);
        }
    }

    @Test
    void fileLookups_postgres100kRows_printsRate() throws Exception {
        PostgresCatalogTest.assumeServer();
        String schema = "tapeq_bench_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(PostgresCatalogTest.BASE_URL);
             Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
            String url = PostgresCatalogTest.withParameters("currentSchema=" + schema);
            try (JdbcCatalog catalog = JdbcCatalog.open(url)) {
                measure("PostgreSQL", catalog);
            } finally {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private static void measure(String name, JdbcCatalog catalog) {
        catalog.putCartridge(cartridge("A00001", "atlas"));
        long fillStart = System.nanoTime();
        for (int i = 0; i < FILES / PER_AGGREGATE; i++) {
            List<FileRecord> m = members("A00001", i + 1, (long) i * PER_AGGREGATE, PER_AGGREGATE, 1_000_000, "ds");
            catalog.commitAggregate(aggregate("A00001", i + 1, m, "atlas", "ds", i), m);
        }
        double fillSeconds = (System.nanoTime() - fillStart) / 1e9;

        Random random = new Random(SEED);
        for (int i = 0; i < 20_000; i++) { // warm-up
            catalog.file(pnfsid(random.nextInt(FILES)));
        }
        long lookups = 0;
        long found = 0;
        long start = System.nanoTime();
        long elapsed;
        do {
            for (int i = 0; i < 1_000; i++) {
                if (catalog.file(pnfsid(random.nextInt(FILES + FILES / 10))).isPresent()) { // ~9 % misses
                    found++;
                }
            }
            lookups += 1_000;
            elapsed = System.nanoTime() - start;
        } while (elapsed < MEASURE_NANOS);
        System.out.printf("[CatalogLookupBenchmark] %s: %d files committed in %.1f s (%d aggregates); "
                        + "file() %.0f lookups/s single-threaded (%d lookups, %d hits, seed %d)%n", name, FILES,
                fillSeconds, FILES / PER_AGGREGATE, lookups * 1e9 / elapsed, lookups, found, SEED);
        assertTrue(found > 0);
        assertEquals(FILES, catalog.files("A00001").size());
    }
}
