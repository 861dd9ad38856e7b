package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.tapeq.scheduler.catalog.jdbc.Records.cartridge;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.CatalogUnavailableException;

/**
 * The PostgreSQL catalog outlives its connection: the server ends the catalog's session (as a restart does),
 * the catalog reports at most the operation that ran into it as unavailable, and the next one works on a new
 * connection. A server that does not answer at all is reported as unavailable, not as a failed operation.
 * Skipped when no server answers (see {@link PostgresCatalogTest}).
 */
class PostgresReconnectTest {

    private String schema;
    private String application;
    private JdbcCatalog catalog;

    @BeforeEach
    void open() throws SQLException {
        PostgresCatalogTest.assumeServer();
        schema = "tapeq_test_" + UUID.randomUUID().toString().replace("-", "");
        application = "tapeq-" + schema;
        try (Connection c = DriverManager.getConnection(PostgresCatalogTest.BASE_URL); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        catalog = JdbcCatalog.open(PostgresCatalogTest.withParameters("currentSchema=" + schema
                + "&ApplicationName=" + application));
    }

    @AfterEach
    void drop() throws SQLException {
        if (catalog != null) {
            catalog.close();
        }
        if (schema != null) {
            try (Connection c = DriverManager.getConnection(PostgresCatalogTest.BASE_URL);
                 Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    @Test
    void serverEndsTheSession_nextCallsWorkOnANewConnection() throws SQLException {
        catalog.putCartridge(cartridge("A00001", "atlas"));
        for (int round = 0; round < 3; round++) {
            // the catalog's session, and the lease renewal's own one once its pool has connected (1 or 2)
            assertSessionsEnded(terminateCatalogSessions(), "round " + round);
            Optional<CartridgeRecord> c = afterAtMostOneUnavailable(() -> catalog.cartridge("A00001"));
            assertTrue(c.isPresent());
            CartridgeRecord changed = new CartridgeRecord("A00001", "LTO9", "atlas", c.get().state(),
                    c.get().capacityBytes(), 0, 0, 0, 0, 0, false, "round " + (round + 1));
            assertSessionsEnded(terminateCatalogSessions(), "round " + round + ", before the write");
            afterAtMostOneUnavailable(() -> {
                catalog.putCartridge(changed);
                return null;
            });
            assertEquals("round " + (round + 1), catalog.cartridge("A00001").orElseThrow().reason());
        }
    }

    @Test
    void noServer_isUnavailableNamingTheOperation() {
        try {
            JdbcCatalog.open("jdbc:postgresql://127.0.0.1:1/test?user=postgres").close();
            fail("opened a catalog on a port where nothing listens");
        } catch (CatalogUnavailableException e) {
            assertTrue(e.getMessage().startsWith("open "), e.getMessage());
            assertTrue(e.getMessage().contains("unreachable"), e.getMessage());
        }
    }

    /**
     * Runs {@code call}; if it fails, it must fail as unavailable (it ran into the ended session before the pool
     * noticed), and the second attempt must work.
     */
    private static <T> T afterAtMostOneUnavailable(Supplier<T> call) {
        try {
            return call.get();
        } catch (CatalogUnavailableException first) {
            return call.get();
        } catch (CatalogException other) {
            throw new AssertionError("a lost connection must be reported as unavailable: " + other, other);
        }
    }

    /** The catalog's own session and, where its pool has connected, the lease renewal's: one or two. */
    private static void assertSessionsEnded(int ended, String when) {
        assertTrue(ended == 1 || ended == 2, "sessions of the catalog ended, " + when + ": " + ended);
    }

    private int terminateCatalogSessions() throws SQLException {
        try (Connection c = DriverManager.getConnection(PostgresCatalogTest.BASE_URL);
             PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                     + " WHERE application_name = ?")) {
            ps.setString(1, application);
            int ended = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ended += rs.getBoolean(1) ? 1 : 0;
                }
            }
            return ended;
        }
    }
}
