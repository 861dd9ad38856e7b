package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.scheduler.catalog.jdbc.Records.cartridge;
import static org.tapeq.scheduler.catalog.jdbc.Records.hint;
import static org.tapeq.scheduler.catalog.jdbc.Records.pnfsid;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.catalog.Verification;
import org.tapeq.scheduler.model.FileRecord;

/** The catalog contract on a SQLite file, plus what is particular to SQLite. */
class SqliteCatalogTest extends AbstractCatalogTest {
    @TempDir
    Path tmp;

    @Override
    String newDatabase() {
        return "jdbc:sqlite:" + tmp.resolve("catalog.db");
    }

    @Override
    Connection rawConnection() throws SQLException {
        return DriverManager.getConnection(url);
    }

    @Override
    void failInsertsOf(String pnfsid) throws SQLException {
        try (Connection c = rawConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TRIGGER fail_insert BEFORE INSERT ON files WHEN NEW.pnfsid = '" + pnfsid + "'"
                    + " BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
        }
    }

    @Test
    void open_sqliteFile_usesWalFullSyncForeignKeysAndBusyTimeout() {
        assertEquals("wal", catalog.sqlitePragma("journal_mode"));
        assertEquals("2", catalog.sqlitePragma("synchronous")); // FULL
        assertEquals("1", catalog.sqlitePragma("foreign_keys"));
        assertEquals(String.valueOf(JdbcCatalog.BUSY_TIMEOUT_MS), catalog.sqlitePragma("busy_timeout"));
    }

    @Test
    void reopen_afterClose_keepsEverything() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        List<FileRecord> members = commit("A00001", 1, 1, 3, 100, "ds", 100);
        catalog.delete(List.of(pnfsid(2)), 200);
        catalog.putHints(List.of(hint(pnfsid(9), "724216", 4, 50)));
        catalog.recordMount("A00001", 300);
        catalog.putDrive(new DriveRecord("drive1", false, "broken", 2, 5));
        CartridgeRecord a = cartridgeOf("A00001");
        catalog.close();

        catalog = JdbcCatalog.open(url);

        assertEquals(a, cartridgeOf("A00001"));
        assertEquals(List.of(members.get(0), members.get(2)), catalog.files("A00001"));
        assertEquals(Optional.empty(), catalog.file(pnfsid(2)));
        assertEquals(Optional.of(hint(pnfsid(9), "724216", 4, 50)), catalog.file(pnfsid(9)));
        assertEquals(1, catalog.aggregates("A00001").size());
        assertEquals(List.of(new DriveRecord("drive1", false, "broken", 2, 5)), catalog.drives());
        assertEquals(0, catalog.putHints(List.of(hint(pnfsid(2), "724216", 1, 100))), "tombstone survives");
    }

    @Test
    void open_schemaVersion2Catalog_migratesToTheLatestKeepingData() throws SQLException {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        List<FileRecord> members = commit("A00001", 1, 1, 2, 100, "ds", 100);
        catalog.close();
        try (Connection c = rawConnection(); Statement s = c.createStatement()) {
            // as a catalog written by the release before
            s.execute("DROP TABLE settings");
            s.execute("DROP TABLE relabel_intents");
            s.execute("DROP TABLE migration_jobs");
            s.execute("DROP TABLE repack_jobs");
            s.execute("DROP TABLE verification_findings");
            s.execute("DROP TABLE cartridge_verifications");
            s.execute("DELETE FROM schema_version WHERE version >= 3");
        }

        catalog = JdbcCatalog.open(url);

        assertEquals(JdbcCatalog.SCHEMA_VERSION, count("SELECT MAX(version) FROM schema_version"));
        assertEquals(members, catalog.files("A00001"));
        Verification v = new Verification("A00001", 5, false, 2, 0, 0, "all good", List.of());
        catalog.recordVerification(v);
        assertEquals(Optional.of(v), catalog.lastVerification("A00001"));
        RepackJob job = new RepackJob("A00001", FAMILY, RepackJob.RUNNING, 7, 0, 2, 200, 0, null);
        catalog.putRepackJob(job);
        assertEquals(List.of(job), catalog.repackJobs());
        assertEquals(List.of(), catalog.relabelIntents());
        catalog.putSetting("reclaim.paused", "7 campaign", 7);
        assertEquals(Optional.of("7 campaign"), catalog.setting("reclaim.paused"));
    }

    @Test
    void open_schemaVersion4Catalog_keepsItsRepackJobs_withoutTargetMedia() throws SQLException {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.close();
        try (Connection c = rawConnection(); Statement s = c.createStatement()) {
            // as a catalog written by the release with repack jobs but no relabel, media migration or settings
            s.execute("DROP TABLE settings");
            s.execute("DROP TABLE relabel_intents");
            s.execute("DROP TABLE migration_jobs");
            s.execute("DROP TABLE repack_jobs");
            s.execute(RepackRows.CREATE_TABLE);
            s.execute("INSERT INTO repack_jobs VALUES ('A00001', '" + FAMILY + "', 'running', 7, 0, 2, 200, 0, NULL)");
            s.execute("DELETE FROM schema_version WHERE version >= 5");
        }

        catalog = JdbcCatalog.open(url);

        assertEquals(JdbcCatalog.SCHEMA_VERSION, count("SELECT MAX(version) FROM schema_version"));
        assertEquals(List.of(new RepackJob("A00001", FAMILY, RepackJob.RUNNING, 7, 0, 2, 200, 0, null)),
                catalog.repackJobs());
        assertEquals(List.of(), catalog.migrationJobs());
    }

    @Test
    void open_databaseFromNewerTapeq_refused() throws SQLException {
        catalog.close();
        try (Connection c = rawConnection(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO schema_version (version, applied_at) VALUES (" + (JdbcCatalog.SCHEMA_VERSION + 1)
                    + ", 0)");
        }

        CatalogException e = assertThrows(CatalogException.class, () -> JdbcCatalog.open(url));
        assertTrue(e.getMessage().contains("newer"), e.getMessage());
        catalog = null;
    }

    @Test
    void open_afterCommit_otherConnectionCanWriteAtOnce() throws SQLException {
        // A finished operation must not leave a transaction (and SQLite's write lock) open.
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.file(pnfsid(1));
        try (Connection c = DriverManager.getConnection(url + "?busy_timeout=100"); Statement s = c.createStatement()) {
            s.execute("UPDATE cartridges SET reason = 'admin' WHERE barcode = 'A00001'");
        }
        assertEquals("admin", cartridgeOf("A00001").reason());
    }

    @Test
    void open_inMemory_worksForSimulations() {
        try (JdbcCatalog memory = JdbcCatalog.open("jdbc:sqlite::memory:")) {
            memory.putCartridge(cartridge("A00001", FAMILY));
            memory.recordMount("A00001", 5);
            assertEquals(1, memory.cartridge("A00001").orElseThrow().mountCount());
        }
    }

    @Test
    void open_unsupportedUrl_failsNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JdbcCatalog.open("jdbc:mysql://db/x?user=u&password=secret"));
        assertTrue(e.getMessage().contains("jdbc:mysql") && !e.getMessage().contains("secret"), e.getMessage());
    }
}
