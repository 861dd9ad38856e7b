package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CatalogLeaseException;

/**
 * A catalog opened before the site lease (a daemon, a standby, import-hints) on a schema older than its code,
 * while another tapeq holds the site on that schema: nothing is migrated until this process holds the lease;
 * then acquireLease migrates it. A fresh database (no lease table, nobody can hold the site) is migrated at
 * open. The older schema is the current one with migrations 4 and 3 undone. Two catalogs on one SQLite file play the
 * two hosts (the rule does not depend on the database).
 */
class MigrationUnderLeaseTest {

    private static final long TTL = 30_000;

    @TempDir
    Path dir;

    private String url;

    @BeforeEach
    void url() {
        url = "jdbc:sqlite:" + dir.resolve("catalog.db");
    }

    /**
     * Undoes migrations 7 (settings), 6 (media migrations, a repack's target media), 5 (relabel intents), 4 (repack
     * jobs) and 3 (the verification tables): the schema a tapeq of version 2 runs on.
     */
    private void backToVersion2() throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("PRAGMA foreign_keys = ON");
            s.execute("DROP TABLE settings");
            s.execute("DROP TABLE relabel_intents");
            s.execute("DROP TABLE migration_jobs");
            s.execute("DELETE FROM schema_version WHERE version >= 5");
            s.execute("DROP TABLE repack_jobs");
            s.execute("DELETE FROM schema_version WHERE version = 4");
            s.execute("DROP TABLE verification_findings");
            s.execute("DROP TABLE cartridge_verifications");
            s.execute("DELETE FROM schema_version WHERE version = 3");
        }
    }

    private boolean tableExists(String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) > 0 FROM sqlite_master WHERE name = '" + table + "'")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    @Test
    void standbyOnOlderSchema_leavesItAsItIs_untilItHoldsTheLease() throws Exception {
        JdbcCatalog active = JdbcCatalog.open(url);
        active.acquireLease("gridka", "a", "tape-a.example.org", 4242, System.currentTimeMillis(), TTL);
        backToVersion2();
        try (JdbcCatalog standby = JdbcCatalog.openBeforeLease(url, new Properties())) {
            assertEquals(2, standby.schemaVersion(), "the standby migrated the schema under the active holder");
            assertFalse(tableExists("cartridge_verifications"));
            assertFalse(tableExists("repack_jobs"));
            assertFalse(tableExists("relabel_intents"));
            assertFalse(tableExists("settings"));
            assertTrue(standby.leaseKeepingOut("gridka", "b", "tape-b.example.org",
                    System.currentTimeMillis()).isPresent());
            assertThrows(CatalogLeaseException.class, () -> standby.acquireLease("gridka", "b",
                    "tape-b.example.org", 77, System.currentTimeMillis(), TTL));
            assertEquals(2, standby.schemaVersion(), "a refused takeover migrated the schema");

            active.close(); // releases the lease: the standby takes the site over
            assertEquals(2, standby.acquireLease("gridka", "b", "tape-b.example.org", 77,
                    System.currentTimeMillis(), TTL).epoch());
            assertEquals(JdbcCatalog.SCHEMA_VERSION, standby.schemaVersion());
            assertTrue(tableExists("cartridge_verifications"));
            assertTrue(tableExists("repack_jobs"));
            assertTrue(tableExists("relabel_intents"));
            assertTrue(tableExists("settings"));
        } finally {
            active.close();
        }
    }

    @Test
    void freshDatabase_migratedAtOpen() throws Exception {
        try (JdbcCatalog first = JdbcCatalog.openBeforeLease(url, new Properties())) {
            assertEquals(JdbcCatalog.SCHEMA_VERSION, first.schemaVersion());
            assertTrue(tableExists("site_lease"));
            assertEquals(1, first.acquireLease("gridka", "a", "tape-a.example.org", 1, System.currentTimeMillis(),
                    TTL).epoch());
        }
    }
}
