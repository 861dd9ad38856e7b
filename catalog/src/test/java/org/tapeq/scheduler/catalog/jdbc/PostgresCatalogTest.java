package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.tapeq.scheduler.catalog.jdbc.Records.cartridge;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The catalog contract on PostgreSQL, each test in a schema of its own. Skipped when no server answers at
 * {@link #BASE_URL} (override with the environment variable {@code TAPEQ_TEST_POSTGRES_URL}).
 */
class PostgresCatalogTest extends AbstractCatalogTest {
    static final String BASE_URL = baseUrl();

    private String schema;

    static String baseUrl() {
        String url = System.getenv("TAPEQ_TEST_POSTGRES_URL");
        return url != null && !url.isBlank() ? url : "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    }

    /** A URL with extra parameters appended to {@link #BASE_URL}. */
    static String withParameters(String parameters) {
        return BASE_URL + (BASE_URL.contains("?") ? "&" : "?") + parameters;
    }

    /** Probed once; every test is skipped (JUnit assumption) if no server answers. */
    private static Boolean reachable;

    static synchronized void assumeServer() {
        if (reachable == null) {
            reachable = reachable();
        }
        assumeTrue(reachable, "PostgreSQL not reachable at " + JdbcCatalog.redact(BASE_URL));
    }

    static boolean reachable() {
        try (Connection c = DriverManager.getConnection(withParameters("connectTimeout=3&loginTimeout=3"))) {
            return c.isValid(3);
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    String newDatabase() throws SQLException {
        assumeServer();
        schema = "tapeq_test_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(BASE_URL); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        return withParameters("currentSchema=" + schema);
    }

    @Override
    void dropDatabase() throws SQLException {
        if (schema != null) {
            try (Connection c = DriverManager.getConnection(BASE_URL); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    @Override
    Connection rawConnection() throws SQLException {
        return DriverManager.getConnection(url);
    }

    @Override
    void failInsertsOf(String pnfsid) throws SQLException {
        try (Connection c = rawConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE FUNCTION " + schema + ".fail_insert() RETURNS trigger LANGUAGE plpgsql AS $$"
                    + " BEGIN IF NEW.pnfsid = '" + pnfsid + "' THEN RAISE EXCEPTION 'injected failure'; END IF;"
                    + " RETURN NEW; END $$");
            s.execute("CREATE TRIGGER fail_insert BEFORE INSERT ON " + schema + ".files FOR EACH ROW"
                    + " EXECUTE FUNCTION " + schema + ".fail_insert()");
        }
    }

    /**
     * A write stuck inside its transaction (here: waiting for a row another session locked) must not hold up the
     * lease's renewal, or the lease lapses while its holder goes on. Before the renewal had its own connection
     * it waited for the catalog's lock (and the fence's row lock) and this test timed out.
     */
    @Test
    void renewLease_whileAWriteIsStuckInItsTransaction_isNotHeldUp() throws Exception {
        catalog.acquireLease("gridka", "a", "tape-a.example.org", 4242, 1_000, TTL);
        catalog.putCartridge(cartridge("B00001", FAMILY));
        try (Connection blocker = rawConnection(); Connection observer = rawConnection()) {
            blocker.setAutoCommit(false);
            try (Statement s = blocker.createStatement()) {
                s.executeQuery("SELECT barcode FROM cartridges WHERE barcode = 'B00001' FOR UPDATE").close();
            }
            CompletableFuture<Void> write = CompletableFuture.runAsync(
                    () -> catalog.putCartridge(cartridge("B00001", FAMILY)));
            awaitLockWait(observer);
            CompletableFuture<Void> renewal = CompletableFuture.runAsync(() -> catalog.renewLease(20_000));
            renewal.get(10, TimeUnit.SECONDS);
            try (Statement s = observer.createStatement();
                 ResultSet rs = s.executeQuery("SELECT expires_at FROM site_lease WHERE site = 'gridka'")) {
                rs.next();
                assertEquals(20_000 + TTL, rs.getLong(1));
            }
            assertFalse(write.isDone(), "the write was to stay stuck during the renewal");
            blocker.rollback();
            write.get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * A standby's look at the lease takes no row lock: while the holder's write is stuck inside its transaction
     * (its fence holds the lease row FOR KEY SHARE), the look answers at once naming the holder, where a takeover
     * attempt (SELECT ... FOR UPDATE) would wait for that write, and a takeover attempt that stalled would make
     * the holder's next fenced write and renewal wait for it.
     */
    @Test
    void leaseKeepingOut_whileTheHoldersWriteIsStuck_answersAtOnce() throws Exception {
        catalog.acquireLease("gridka", "a", "tape-a.example.org", 4242, 1_000, TTL);
        catalog.putCartridge(cartridge("B00001", FAMILY));
        // closed in reverse: the blocker first, so that a look that did wait ends before its catalog is closed
        try (JdbcCatalog standby = JdbcCatalog.open(url); Connection observer = rawConnection();
             Connection blocker = rawConnection()) {
            blocker.setAutoCommit(false);
            try (Statement s = blocker.createStatement()) {
                s.executeQuery("SELECT barcode FROM cartridges WHERE barcode = 'B00001' FOR UPDATE").close();
            }
            CompletableFuture<Void> write = CompletableFuture.runAsync(
                    () -> catalog.putCartridge(cartridge("B00001", FAMILY)));
            awaitLockWait(observer);
            CompletableFuture<String> look = CompletableFuture.supplyAsync(() -> standby.leaseKeepingOut("gridka",
                    "b", "tape-b.example.org", 2_000).orElseThrow().holder());
            assertEquals("a", look.get(10, TimeUnit.SECONDS));
            assertFalse(write.isDone(), "the write was to stay stuck during the look");
            blocker.rollback();
            write.get(10, TimeUnit.SECONDS);
        }
    }

    /** Waits (at most 10 s) until a session of this database waits for a lock. */
    private static void awaitLockWait(Connection observer) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Statement s = observer.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM"
                    + " pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
                rs.next();
                if (rs.getInt(1) > 0) {
                    return;
                }
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the write never waited for the locked row");
    }
}
