package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lease holder that vanished in the middle of a catalog transaction (host died, process hung, network cut: to
 * the server all three are a session idle inside a transaction) does not keep its fence's row lock, so a
 * standby's takeover goes through instead of waiting until the server notices the dead connection. Skipped when
 * no PostgreSQL server answers (see {@link PostgresCatalogTest}).
 */
class FenceHolderGoneTest {

    private static final String SITE = "gridka";
    private static final long TTL = 6_000;

    private String schema;
    private String url;

    @BeforeEach
    void open() throws SQLException {
        PostgresCatalogTest.assumeServer();
        schema = "tapeq_test_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(PostgresCatalogTest.BASE_URL); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        url = PostgresCatalogTest.withParameters("currentSchema=" + schema);
    }

    @AfterEach
    void drop() throws SQLException {
        if (schema != null) {
            try (Connection c = DriverManager.getConnection(PostgresCatalogTest.BASE_URL);
                 Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    @Test
    void holderSilentInsideAFencedTransaction_standbyTakesTheSiteOver() throws Exception {
        try (JdbcCatalog first = JdbcCatalog.open(url);
             CatalogConnections pool = CatalogConnections.pooled(url, new Properties(), "holder")) {
            first.acquireLease(SITE, "a", "host-a", 11, 1_000, TTL);
            // What the holder's fence does at the start of every write transaction, on a catalog connection;
            // then the holder goes silent with the transaction open.
            Connection silent = pool.acquire();
            silent.setAutoCommit(false);
            try (PreparedStatement ps = silent.prepareStatement(
                    "SELECT epoch FROM site_lease WHERE site = ? FOR KEY SHARE")) {
                ps.setString(1, SITE);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(1, rs.getLong(1));
                }
            }

            long start = System.nanoTime();
            long epoch = assertTimeoutPreemptively(Duration.ofSeconds(40), () -> {
                try (JdbcCatalog standby = JdbcCatalog.open(url)) {
                    // the lease has lapsed in the standby's time; its FOR UPDATE meets the silent holder's lock
                    return standby.acquireLease(SITE, "b", "host-b", 22, 1_000 + TTL + 1, TTL).epoch();
                }
            }, "the takeover waited on the silent holder's row lock");
            long waitedMs = (System.nanoTime() - start) / 1_000_000;
            assertEquals(2, epoch);
            System.out.printf("takeover past a silent holder's open transaction took %d ms%n", waitedMs);

            // the silent holder's transaction is gone with its session: nothing it sends now can commit
            SQLException late = assertThrows(SQLException.class, () -> {
                try (Statement s = silent.createStatement()) {
                    s.execute("SELECT 1");
                }
                silent.commit();
            });
            assertTrue(CatalogConnections.isConnectionLoss(late), "a connection loss, not " + late);
            pool.release(silent, true);
        }
    }
}
