package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.scheduler.catalog.jdbc.Records.aggregate;
import static org.tapeq.scheduler.catalog.jdbc.Records.cartridge;
import static org.tapeq.scheduler.catalog.jdbc.Records.hint;
import static org.tapeq.scheduler.catalog.jdbc.Records.members;
import static org.tapeq.scheduler.catalog.jdbc.Records.pnfsid;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.RelabelIntent;
import org.tapeq.scheduler.catalog.MigrationJob;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.catalog.Verification;
import org.tapeq.scheduler.catalog.CatalogLeaseException;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.catalog.SiteLease;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/**
 * The behaviour every catalog database must show; run against SQLite ({@link SqliteCatalogTest}) and
 * PostgreSQL ({@link PostgresCatalogTest}).
 */
abstract class AbstractCatalogTest {
    static final String FAMILY = "atlas";

    JdbcCatalog catalog;
    String url;

    /** Creates an empty database and returns its URL. */
    abstract String newDatabase() throws Exception;

    /** A connection of its own to the database at {@link #url}, to inspect rows behind the catalog's back. */
    abstract Connection rawConnection() throws SQLException;

    /** Makes every later insert of {@code pnfsid} into files fail inside the database. */
    abstract void failInsertsOf(String pnfsid) throws SQLException;

    void dropDatabase() throws Exception {
    }

    @BeforeEach
    void openCatalog() throws Exception {
        url = newDatabase();
        catalog = JdbcCatalog.open(url);
    }

    @AfterEach
    void closeCatalog() throws Exception {
        if (catalog != null) {
            catalog.close();
        }
        dropDatabase();
    }

    long count(String sql, Object... params) throws SQLException {
        try (Connection c = rawConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    long rows(String table) throws SQLException {
        return count("SELECT COUNT(*) FROM " + table);
    }

    /** Commits an aggregate of {@code count} files of {@code size} bytes; returns its members. */
    List<FileRecord> commit(String barcode, int tapeFile, long first, int count, long size, String dataset,
                            long writtenAt) {
        List<FileRecord> members = members(barcode, tapeFile, first, count, size, dataset);
        catalog.commitAggregate(aggregate(barcode, tapeFile, members, FAMILY, dataset, writtenAt), members);
        return members;
    }

    CartridgeRecord cartridgeOf(String barcode) {
        return catalog.cartridge(barcode).orElseThrow();
    }

    /** The messages of an exception and its causes and suppressed exceptions, for assertions. */
    static String causes(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(t).append('\n');
            if (t instanceof SQLException sql && sql.getNextException() != null) {
                text.append(sql.getNextException()).append('\n');
            }
        }
        return text.toString();
    }

    static List<String> ids(List<FileRecord> files) {
        return files.stream().map(FileRecord::pnfsid).toList();
    }

    static List<String> ids(long... n) {
        return LongStream.of(n).mapToObj(Records::pnfsid).toList();
    }

    // ---------------------------------------------------------------- schema

    @Test
    void open_emptyDatabase_createsAllTablesAtCurrentVersion() throws SQLException {
        assertEquals(JdbcCatalog.SCHEMA_VERSION, count("SELECT MAX(version) FROM schema_version"));
        for (String table : List.of("cartridges", "aggregates", "files", "deleted_files", "drives", "site_lease",
                "cartridge_verifications")) {
            assertEquals(0, rows(table), table);
        }
    }

    @Test
    void open_sameDatabaseTwice_migratesOnlyOnce() throws SQLException {
        JdbcCatalog.open(url).close();
        assertEquals(JdbcCatalog.SCHEMA_VERSION, rows("schema_version"));
    }

    @Test
    void recordVerification_thenAnother_lastOneKeptPerCartridge() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        assertEquals(Optional.empty(), catalog.lastVerification("A00001"));
        Verification first = new Verification("A00001", 100, true, 3, 1, 1, "bad: " + pnfsid(2),
                List.of(new Verification.Finding(pnfsid(2), 4, true, "read 1, the catalog has 2"),
                        new Verification.Finding(pnfsid(3), 5, false, "media error")));
        catalog.recordVerification(first);
        assertEquals(Optional.of(first), catalog.lastVerification("A00001"));
        Verification second = new Verification("A00001", 200, false, 4, 0, 0, "all good", List.of());
        catalog.recordVerification(second);
        assertEquals(Optional.of(second), catalog.lastVerification("A00001"));
        assertEquals(Optional.empty(), catalog.lastVerification("A00002"));
    }

    // ---------------------------------------------------------------- repack

    @Test
    void commitRepacked_movesTheSourcesFiles_aFileDeletedMeanwhileStaysDeleted_bothReclaimable() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("B00001", FAMILY));
        List<FileRecord> old = commit("A00001", 1, 1, 3, 100, "ds", 100);
        assertEquals(List.of(pnfsid(2)), catalog.delete(List.of(pnfsid(2)), 150)); // deleted while being copied
        List<FileRecord> moved = members("B00001", 4, 1, 3, 100, "ds");

        catalog.commitRepacked(aggregate("B00001", 4, moved, FAMILY, "ds", 200), moved, "A00001", 200);

        assertEquals(List.of(), catalog.files("A00001"));
        assertEquals(List.of(moved.get(0), moved.get(2)), catalog.files("B00001"));
        assertEquals(Optional.empty(), catalog.file(pnfsid(2)), "a deleted file came back");
        assertEquals(300, cartridgeOf("A00001").reclaimableBytes());
        assertEquals(100, cartridgeOf("B00001").reclaimableBytes());
        assertEquals(1, cartridgeOf("B00001").tapeFiles());
        assertEquals(old.size(), catalog.aggregates("B00001").get(0).memberCount());
    }

    @Test
    void commitRepacked_runAgainAfterItsAnswerWasLost_changesNothingMore() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("B00001", FAMILY));
        commit("A00001", 1, 1, 2, 100, "ds", 100);
        List<FileRecord> moved = members("B00001", 4, 1, 2, 100, "ds");
        AggregateRecord agg = aggregate("B00001", 4, moved, FAMILY, "ds", 200);

        catalog.commitRepacked(agg, moved, "A00001", 200);
        CartridgeRecord a = cartridgeOf("A00001");
        CartridgeRecord b = cartridgeOf("B00001");
        catalog.commitRepacked(agg, moved, "A00001", 200);

        assertEquals(a, cartridgeOf("A00001"));
        assertEquals(b, cartridgeOf("B00001"));
        assertEquals(moved, catalog.files("B00001"));
    }

    @Test
    void putRepackJob_replacesTheOneOfItsSource_unfinishedOnesAreResumable() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("B00001", FAMILY));
        RepackJob running = new RepackJob("A00001", FAMILY, RepackJob.RUNNING, 100, 0, 20, 2_000, 0, null);
        RepackJob other = new RepackJob("B00001", "cms", RepackJob.QUEUED, 150, 0, 3, 300, 0, null);
        catalog.putRepackJob(running);
        catalog.putRepackJob(other);
        assertEquals(List.of(running, other), catalog.repackJobs());

        RepackJob done = running.ended(RepackJob.DONE, 900, 2, "2 files stay on A00001");
        catalog.putRepackJob(done);

        assertEquals(List.of(done, other), catalog.repackJobs());
        assertFalse(catalog.repackJobs().get(0).unfinished());
        assertTrue(catalog.repackJobs().get(1).unfinished());
    }

    // ---------------------------------------------------------------- relabel

    @Test
    void commitRelabel_afterRepack_forgetsTapeFilesAndOldCopies_keepsDeletions_removesIntent() throws Exception {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("B00001", FAMILY));
        commit("A00001", 1, 1, 3, 100, "ds", 100);
        catalog.delete(List.of(pnfsid(2)), 150);
        List<FileRecord> moved = members("B00001", 1, 1, 3, 100, "ds").stream()
                .filter(f -> !f.pnfsid().equals(pnfsid(2))).toList();
        catalog.commitRepacked(aggregate("B00001", 1, moved, FAMILY, "ds", 200), moved, "A00001", 200);
        assertEquals(3, count("SELECT COUNT(*) FROM deleted_files WHERE cartridge = ?", "A00001"));
        RelabelIntent intent = new RelabelIntent("A00001", "cms", 300);

        catalog.putRelabelIntent(intent);
        assertEquals(List.of(intent), catalog.relabelIntents());
        CartridgeRecord fresh = new CartridgeRecord("A00001", "LTO9", "cms", CartridgeState.APPENDABLE,
                cartridgeOf("A00001").capacityBytes(), 0, 0, 0, 0, 0, false, null);
        catalog.commitRelabel(fresh);

        assertEquals(fresh, cartridgeOf("A00001"));
        assertEquals(List.of(), catalog.aggregates("A00001"));
        assertEquals(List.of(), catalog.relabelIntents());
        assertEquals(1, count("SELECT COUNT(*) FROM deleted_files WHERE cartridge = ? AND reason = 'deleted'",
                "A00001"), "the deletion stays recorded");
        assertEquals(1, count("SELECT COUNT(*) FROM deleted_files WHERE cartridge = ?", "A00001"));
        assertEquals(moved, catalog.files("B00001"));
    }

    @Test
    void commitRelabel_forgetsTheCartridgesVerificationAndFindings_keepsOthers() throws Exception {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("B00001", FAMILY));
        Verification old = new Verification("A00001", 100, false, 2, 1, 0, "bad: " + pnfsid(2),
                List.of(new Verification.Finding(pnfsid(2), 4, true, "read 1, the catalog has 2")));
        Verification other = new Verification("B00001", 120, false, 3, 0, 0, "all good", List.of());
        catalog.recordVerification(old);
        catalog.recordVerification(other);
        catalog.putRelabelIntent(new RelabelIntent("A00001", FAMILY, 300));

        catalog.commitRelabel(new CartridgeRecord("A00001", "LTO9", FAMILY, CartridgeState.APPENDABLE,
                cartridgeOf("A00001").capacityBytes(), 0, 0, 0, 0, 0, false, null));

        assertEquals(Optional.empty(), catalog.lastVerification("A00001"), "a relabelled cartridge was never verified");
        assertEquals(0, count("SELECT COUNT(*) FROM verification_findings WHERE barcode = ?", "A00001"));
        assertEquals(Optional.of(other), catalog.lastVerification("B00001"));
    }

    @Test
    void relabel_cartridgeWithALiveFile_intentAndCommitRefused_nothingChanged() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        commit("A00001", 1, 1, 2, 100, "ds", 100);
        CartridgeRecord before = cartridgeOf("A00001");

        RuntimeException intent = assertThrows(RuntimeException.class,
                () -> catalog.putRelabelIntent(new RelabelIntent("A00001", FAMILY, 300)));
        RuntimeException commit = assertThrows(RuntimeException.class, () -> catalog.commitRelabel(
                new CartridgeRecord("A00001", "LTO9", FAMILY, CartridgeState.APPENDABLE, before.capacityBytes(), 0, 0,
                        0, 0, 0, false, null)));

        assertTrue(intent.getMessage().contains("2 live files"), intent.getMessage());
        assertTrue(commit.getMessage().contains("2 live files"), commit.getMessage());
        assertEquals(List.of(), catalog.relabelIntents());
        assertEquals(before, cartridgeOf("A00001"));
        assertEquals(1, catalog.aggregates("A00001").size());
        assertEquals(2, catalog.files("A00001").size());
    }

    @Test
    void repackJob_targetMedia_isKept() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        RepackJob toLto9 = new RepackJob("A00001", FAMILY, RepackJob.RUNNING, 100, 0, 2, 200, 0, null, "LTO-9");
        catalog.putRepackJob(toLto9);
        assertEquals(List.of(toLto9), catalog.repackJobs());
        assertEquals("LTO-9", catalog.repackJobs().get(0).ended(RepackJob.DONE, 200, 0, "ok").targetMedia());
    }

    @Test
    void putMigrationJob_keepsItsCartridgesInOrder_anEndReplacesStateAndSummary() {
        MigrationJob running = new MigrationJob("LTO-8-LTO-9-100", "LTO-8", "LTO-9", null, RepackJob.RUNNING, 100, 0,
                List.of("C00002L8", "A00001L8"), 5_000, null);
        MigrationJob other = new MigrationJob("LTO-8-LTO-9-50", "LTO-8", "LTO-9", "cms", RepackJob.DONE, 50, 90,
                List.of(), 0, "nothing to move");
        catalog.putMigrationJob(running);
        catalog.putMigrationJob(other);
        assertEquals(List.of(other, running), catalog.migrationJobs());

        MigrationJob cancelled = running.ended(RepackJob.CANCELLED, 700, "cancelled after 1 of 2 cartridges");
        catalog.putMigrationJob(cancelled);

        assertEquals(List.of(other, cancelled), catalog.migrationJobs());
        assertFalse(catalog.migrationJobs().get(1).unfinished());
        assertTrue(running.unfinished());
    }

    @Test
    void putSetting_keptUntilReplaced_unsetOnesEmpty() {
        assertEquals(java.util.Optional.empty(), catalog.setting("reclaim.paused"));
        catalog.putSetting("reclaim.paused", "campaign", 100);
        catalog.putSetting("other.key", "x", 100);
        assertEquals(java.util.Optional.of("campaign"), catalog.setting("reclaim.paused"));

        catalog.putSetting("reclaim.paused", "", 200);

        assertEquals(java.util.Optional.of(""), catalog.setting("reclaim.paused"));
        assertEquals(java.util.Optional.of("x"), catalog.setting("other.key"));
    }

    // ---------------------------------------------------------------- site lease

    static final long TTL = 30_000;

    @Test
    void lease_heldByAnother_secondIsRefusedNamingSiteHolderAndSince() {
        catalog.acquireLease("gridka", "a", "tape-a.example.org", 4242, 1_000, TTL);
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            CatalogLeaseException e = assertThrows(CatalogLeaseException.class,
                    () -> second.acquireLease("gridka", "b", "tape-b.example.org", 77, 20_000, TTL));
            for (String part : List.of("site 'gridka'", "tape-a.example.org", "pid 4242", "since 1970-01-01T00:00:01Z",
                    "epoch 1")) {
                assertTrue(e.getMessage().contains(part), part + " in: " + e.getMessage());
            }
            assertNull(second.heldLease());
            second.putCartridge(cartridge("B00001", FAMILY)); // a catalog without a lease is not fenced
        }
        assertEquals("a", catalog.lease("gridka").orElseThrow().holder());
    }

    @Test
    void lease_lapsed_isTakenOverWithTheNextEpoch_andTheDeposedHolderIsFenced() {
        catalog.acquireLease("gridka", "a", "tape-a.example.org", 4242, 1_000, TTL);
        catalog.putCartridge(cartridge("A00001", FAMILY));
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            SiteLease taken = second.acquireLease("gridka", "b", "tape-b.example.org", 77, 1_000 + TTL + 1, TTL);
            assertEquals(2, taken.epoch());

            CatalogLeaseException e = assertThrows(CatalogLeaseException.class,
                    () -> catalog.putCartridge(cartridge("A00002", FAMILY)));
            assertTrue(e.getMessage().contains("taken over") && e.getMessage().contains("tape-b.example.org"),
                    e.getMessage());
            List<FileRecord> members = members("A00001", 1, 1, 2, 1000, "ds1");
            assertThrows(CatalogLeaseException.class, () -> catalog.commitAggregate(aggregate("A00001", 1, members,
                    FAMILY, "ds1", 100), members));
            assertThrows(CatalogLeaseException.class, () -> catalog.renewLease(50_000));
            assertEquals(Optional.empty(), catalog.cartridge("A00002"));
            assertEquals(Optional.empty(), catalog.file(pnfsid(1)));

            second.putCartridge(cartridge("A00002", FAMILY));
            second.renewLease(60_000);
            assertEquals(60_000 + TTL, second.lease("gridka").orElseThrow().expiresAt());
        }
    }

    @Test
    void lease_renewed_staysHeld_releasedAtClose_isTakenAtOnce() {
        catalog.acquireLease("gridka", "a", "tape-a.example.org", 4242, 1_000, TTL);
        catalog.renewLease(25_000);
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            assertThrows(CatalogLeaseException.class,
                    () -> second.acquireLease("gridka", "b", "tape-b.example.org", 77, 40_000, TTL));
            catalog.close();
            catalog = null;
            assertEquals(2, second.acquireLease("gridka", "b", "tape-b.example.org", 77, 40_000, TTL).epoch());
        }
    }

    @Test
    void lease_heldByADeadProcessOfThisHost_isTakenAtOnce() throws Exception {
        Process gone = new ProcessBuilder("sleep", "60").start();
        ProcessIdentity identity = ProcessIdentity.of(gone.pid()).orElseThrow();
        gone.destroy();
        gone.waitFor();
        catalog.acquireLease("gridka", identity.holder("a"), "this-host", gone.pid(), 1_000, TTL);
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            assertEquals(2, second.acquireLease("gridka", "b", "this-host", 77, 2_000, TTL).epoch());
        }
    }

    @Test
    void acquireLease_anotherSite_refusedNamingBothSitesAndTheCatalog() throws Exception {
        catalog.acquireLease("gridka", "a", "tape-a.example.org", 4242, 1_000, TTL);
        catalog.close(); // released: the site is free, but the catalog stays gridka's
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            org.tapeq.scheduler.catalog.CatalogException refused = assertThrows(
                    org.tapeq.scheduler.catalog.CatalogException.class,
                    () -> second.acquireLease("desy", "b", "tape-b.example.org", 77, 2_000 + TTL, TTL));
            assertTrue(!(refused instanceof CatalogLeaseException), "not a lease to wait out: " + refused);
            for (String part : new String[] {"site 'desy'", "belongs to site 'gridka'", "catalog "}) {
                assertTrue(refused.getMessage().contains(part), part + " in: " + refused.getMessage());
            }
            assertEquals(2, second.acquireLease("gridka", "b", "tape-b.example.org", 77, 2_000, TTL).epoch(),
                    "its own site is taken as before");
        }
    }

    @Test
    void leaseKeepingOut_appliesTheTakeoverRules_toTheRowAsRead() throws Exception {
        try (JdbcCatalog second = JdbcCatalog.open(url)) {
            assertEquals(Optional.empty(), second.leaseKeepingOut("gridka", "b", "tape-b.example.org", 1_000),
                    "no lease yet");
            catalog.acquireLease("gridka", "a", "tape-a.example.org", 4242, 1_000, TTL);
            SiteLease live = second.leaseKeepingOut("gridka", "b", "tape-b.example.org", 1_000 + TTL - 1)
                    .orElseThrow(() -> new AssertionError("a live lease of another keeps it out"));
            assertEquals("a", live.holder());
            assertThrows(CatalogLeaseException.class, // the same answer as a takeover
                    () -> second.acquireLease("gridka", "b", "tape-b.example.org", 77, 1_000 + TTL - 1, TTL));
            assertEquals(Optional.empty(), second.leaseKeepingOut("gridka", "a", "tape-a.example.org", 2_000),
                    "its own");
            assertEquals(Optional.empty(), second.leaseKeepingOut("gridka", "b", "tape-b.example.org", 1_000 + TTL),
                    "lapsed");
            assertEquals(2, second.acquireLease("gridka", "b", "tape-b.example.org", 77, 1_000 + TTL, TTL).epoch());
        }
        Process gone = new ProcessBuilder("sleep", "60").start();
        ProcessIdentity identity = ProcessIdentity.of(gone.pid()).orElseThrow();
        gone.destroy();
        gone.waitFor();
        try (JdbcCatalog third = JdbcCatalog.open(url)) {
            // the same site (a catalog belongs to one): released by second at its close, taken by a process now gone
            third.acquireLease("gridka", identity.holder("c"), "this-host", gone.pid(), 1_000, TTL);
            assertEquals(Optional.empty(), catalog.leaseKeepingOut("gridka", "d", "this-host", 2_000),
                    "held by a dead process of this host");
            assertTrue(catalog.leaseKeepingOut("gridka", "d", "another-host", 2_000).isPresent(),
                    "the same holder, seen from another host");
        }
    }

    // ---------------------------------------------------------------- commitAggregate

    @Test
    void fileCounts_twoAggregatesAndADelete_countsLiveUserFilesPerCartridge() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("A00002", FAMILY));
        catalog.putCartridge(cartridge("A00003", FAMILY));
        commit("A00001", 1, 1, 3, 10, "ds1", 100);
        commit("A00001", 2, 10, 4, 10, "ds1", 110);
        commit("A00002", 1, 20, 2, 10, "ds2", 120);
        catalog.delete(List.of(pnfsid(21)), 200);
        java.util.Map<String, Long> counts = catalog.fileCounts();
        assertEquals(java.util.Map.of("A00001", 7L, "A00002", 1L), counts);
    }

    @Test
    void files_manyAtOnce_findsLiveOnesAcrossChunks_andLeavesOutUnknownAndDeleted() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        List<FileRecord> members = commit("A00001", 1, 1, JdbcCatalog.MAX_IN + 20, 10, "ds1", 100);
        catalog.delete(List.of(pnfsid(5)), 200);
        List<String> asked = new java.util.ArrayList<>(ids(members));
        asked.add(pnfsid(99_999));
        java.util.Map<String, FileRecord> found = catalog.files(asked);
        assertEquals(members.size() - 1, found.size());
        assertEquals(members.get(0), found.get(pnfsid(1)));
        assertEquals(members.get(members.size() - 1), found.get(pnfsid(members.size())));
        assertTrue(!found.containsKey(pnfsid(5)) && !found.containsKey(pnfsid(99_999)));
    }

    @Test
    void commitAggregate_newFiles_recordsLocationsAndUsage() throws SQLException {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        List<FileRecord> members = members("A00001", 1, 1, 3, 1000, "ds1");
        AggregateRecord agg = aggregate("A00001", 1, members, FAMILY, "ds1", 100);
        catalog.commitAggregate(agg, members);

        assertEquals(Optional.of(members.get(0)), catalog.file(pnfsid(1)));
        assertEquals(members, catalog.files("A00001"));
        assertEquals(List.of(agg), catalog.aggregates("A00001"));
        CartridgeRecord a = cartridgeOf("A00001");
        assertEquals(agg.bytes(), a.usedBytes());
        assertEquals(1, a.tapeFiles());
        assertEquals(0, a.reclaimableBytes());
        assertEquals(0, rows("deleted_files"));
    }

    @Test
    void commitAggregates_many_recordsAllInOneGo_andAFailureLeavesNone() throws SQLException {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        List<FileRecord> first = members("A00001", 1, 1, 3, 1000, "ds1");
        List<FileRecord> second = members("A00001", 2, 10, 2, 5000, "ds2");
        List<FileRecord> elsewhere = members("NOPE01", 1, 20, 2, 1000, "ds3");
        AggregateRecord a1 = aggregate("A00001", 1, first, FAMILY, "ds1", 100);
        AggregateRecord a2 = aggregate("A00001", 2, second, FAMILY, "ds2", 100);
        CatalogException e = assertThrows(CatalogException.class, () -> catalog.commitAggregates(List.of(
                new Catalog.Written(a1, first), new Catalog.Written(a2, second),
                new Catalog.Written(aggregate("NOPE01", 1, elsewhere, FAMILY, "ds3", 100), elsewhere))));
        assertTrue(e.getMessage().contains("NOPE01"), e.getMessage());
        assertEquals(0, rows("aggregates"));
        assertEquals(0, rows("files"));
        assertEquals(0, cartridgeOf("A00001").usedBytes());

        catalog.commitAggregates(List.of(new Catalog.Written(a1, first), new Catalog.Written(a2, second)));
        assertEquals(List.of(a1, a2), catalog.aggregates("A00001"));
        List<FileRecord> all = new ArrayList<>(first);
        all.addAll(second);
        assertEquals(all, catalog.files("A00001"));
        assertEquals(a1.bytes() + a2.bytes(), cartridgeOf("A00001").usedBytes());
        assertEquals(2, cartridgeOf("A00001").tapeFiles());
    }

    @Test
    void commitAggregate_missingCartridge_failsNamingItAndLeavesNoRows() throws SQLException {
        List<FileRecord> members = members("NOPE01", 1, 1, 3, 1000, "ds1");
        CatalogException e = assertThrows(CatalogException.class, () ->
                catalog.commitAggregate(aggregate("NOPE01", 1, members, FAMILY, "ds1", 100), members));

        assertTrue(e.getMessage().contains("commitAggregate"), e.getMessage());
        assertTrue(e.getMessage().contains("NOPE01"), e.getMessage());
        assertEquals(0, rows("aggregates"));
        assertEquals(0, rows("files"));
        assertEquals(0, rows("cartridges"));
    }

    @Test
    void commitAggregate_sameAggregateAgain_isARetryThatChangesNothing() throws SQLException {
        // A commit whose answer was lost with the connection is retried: the first attempt counts.
        catalog.putCartridge(cartridge("A00001", FAMILY));
        List<FileRecord> members = members("A00001", 1, 1, 3, 1000, "ds1");
        AggregateRecord agg = aggregate("A00001", 1, members, FAMILY, "ds1", 100);
        catalog.commitAggregate(agg, members);
        CartridgeRecord before = cartridgeOf("A00001");

        catalog.commitAggregate(agg, members);

        assertEquals(List.of(agg), catalog.aggregates("A00001"));
        assertEquals(members, catalog.files("A00001"));
        assertEquals(before, cartridgeOf("A00001"));
        assertEquals(0, rows("deleted_files"));
    }

    @Test
    void commitAggregate_duplicateAggregateKey_failsAndChangesNothing() throws SQLException {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("B00001", FAMILY));
        List<FileRecord> onA = commit("A00001", 1, 1, 3, 1000, "ds1", 100);
        commit("B00001", 1, 10, 3, 1000, "ds1", 200);
        CartridgeRecord before = cartridgeOf("B00001");

        // Moves files 1..3 from A and adds 20..21, but B's tape file 1 is already recorded.
        List<FileRecord> again = new ArrayList<>(members("B00001", 1, 1, 3, 1000, "ds1"));
        again.addAll(members("B00001", 1, 20, 2, 1000, "ds1"));
        CatalogException e = assertThrows(CatalogException.class, () ->
                catalog.commitAggregate(aggregate("B00001", 1, again, FAMILY, "ds1", 300), again));

        assertTrue(e.getMessage().contains("B00001"), e.getMessage());
        assertEquals(2, rows("aggregates"));
        assertEquals(6, rows("files"));
        assertEquals(0, rows("deleted_files"));
        assertEquals(Optional.of(onA.get(0)), catalog.file(pnfsid(1)));
        assertEquals(Optional.empty(), catalog.file(pnfsid(20)));
        assertEquals(0, cartridgeOf("A00001").reclaimableBytes());
        assertEquals(before, cartridgeOf("B00001"));
    }

    @Test
    void commitAggregate_failureAfterMovingFiles_rollsBackEveryRow() throws SQLException {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("B00001", FAMILY));
        List<FileRecord> onA = commit("A00001", 1, 1, 3, 1000, "ds1", 100);
        CartridgeRecord aBefore = cartridgeOf("A00001");
        CartridgeRecord bBefore = cartridgeOf("B00001");
        failInsertsOf(pnfsid(42));

        // By the time pnfsid 42 is inserted, the aggregate row, the superseded copies of 1..3, A's reclaimable
        // bytes and the new rows of 1..3 have all been written in this transaction.
        List<FileRecord> moving = new ArrayList<>(members("B00001", 1, 1, 3, 1000, "ds1"));
        moving.addAll(members("B00001", 1, 42, 1, 1000, "ds1"));
        CatalogException e = assertThrows(CatalogException.class, () ->
                catalog.commitAggregate(aggregate("B00001", 1, moving, FAMILY, "ds1", 300), moving));

        assertTrue(e.getMessage().contains("commitAggregate") && e.getMessage().contains("B00001"), e.getMessage());
        assertTrue(causes(e).contains("injected failure"), causes(e));

        assertEquals(1, rows("aggregates"));
        assertEquals(3, rows("files"));
        assertEquals(0, rows("deleted_files"));
        assertEquals(onA, catalog.files("A00001"));
        assertEquals(List.of(), catalog.files("B00001"));
        assertEquals(aBefore, cartridgeOf("A00001"));
        assertEquals(bBefore, cartridgeOf("B00001"));
    }

    @Test
    void commitAggregate_fileLiveOnAnotherCartridge_movesItAndMakesOldCopyReclaimable() throws SQLException {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("B00001", FAMILY));
        List<FileRecord> onA = commit("A00001", 1, 1, 3, 1000, "ds1", 100);

        List<FileRecord> reflushed = members("B00001", 1, 2, 3, 1500, "ds1"); // 2 and 3 again, 4 new
        AggregateRecord agg = aggregate("B00001", 1, reflushed, FAMILY, "ds1", 200);
        catalog.commitAggregate(agg, reflushed);

        assertEquals(Optional.of(reflushed.get(0)), catalog.file(pnfsid(2)));
        assertEquals(List.of(onA.get(0)), catalog.files("A00001"));
        assertEquals(reflushed, catalog.files("B00001"));
        assertEquals(2000, cartridgeOf("A00001").reclaimableBytes());
        assertEquals(0, cartridgeOf("B00001").reclaimableBytes());
        assertEquals(agg.bytes(), cartridgeOf("B00001").usedBytes());
        assertEquals(2, count("SELECT COUNT(*) FROM deleted_files WHERE reason = ? AND cartridge = ?",
                "superseded", "A00001"));
    }

    @Test
    void commitAggregate_fileKnownOnlyFromHint_replacesHintWithoutReclaimable() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("V00001", null));
        catalog.putHints(List.of(hint(pnfsid(1), "V00001", 7, 1000)));

        List<FileRecord> members = commit("A00001", 1, 1, 1, 1000, "ds1", 100);

        assertEquals(Optional.of(members.get(0)), catalog.file(pnfsid(1)));
        assertEquals(0, cartridgeOf("V00001").reclaimableBytes());
        assertEquals(List.of(), catalog.files("V00001"));
    }

    @Test
    void commitAggregate_inconsistentMembers_rejectedWithoutTouchingTheDatabase() throws SQLException {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        List<FileRecord> members = members("A00001", 2, 1, 2, 1000, "ds1");
        assertThrows(IllegalArgumentException.class, () ->
                catalog.commitAggregate(aggregate("A00001", 1, members, FAMILY, "ds1", 100), members));
        List<FileRecord> twice = List.of(members.get(0), members.get(0));
        assertThrows(IllegalArgumentException.class, () ->
                catalog.commitAggregate(aggregate("A00001", 2, twice, FAMILY, "ds1", 100), twice));
        assertEquals(0, rows("aggregates"));
    }

    // ---------------------------------------------------------------- delete

    @Test
    void delete_liveAndUnknownIds_returnsLiveOnesAndAccountsReclaimable() throws SQLException {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        commit("A00001", 1, 1, 5, 100, "ds1", 100);

        List<String> deleted = catalog.delete(ids(3, 99, 1, 3), 500);

        assertEquals(ids(3, 1), deleted);
        assertEquals(Optional.empty(), catalog.file(pnfsid(1)));
        assertEquals(ids(2, 4, 5), ids(catalog.files("A00001")));
        assertEquals(200, cartridgeOf("A00001").reclaimableBytes());
        assertEquals(2, count("SELECT COUNT(*) FROM deleted_files WHERE reason = ? AND deleted_at = ?",
                "deleted", 500L));

        assertEquals(List.of(), catalog.delete(ids(1, 3), 600));
        assertEquals(200, cartridgeOf("A00001").reclaimableBytes());
    }

    @Test
    void delete_tenThousandFilesInOneCall_deletesAllAndAccountsPerCartridge() throws SQLException {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("B00001", FAMILY));
        List<String> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String barcode = i % 2 == 0 ? "A00001" : "B00001";
            all.addAll(ids(commit(barcode, i + 1, i * 1000L, 1000, 10, "ds" + i, 100 + i)));
        }
        List<String> request = new ArrayList<>(all);
        request.add(pnfsid(1_000_000)); // unknown

        long start = System.nanoTime();
        List<String> deleted = catalog.delete(request, 1000);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("[%s] delete of %d pnfsids in one call: %d ms%n", getClass().getSimpleName(),
                request.size(), millis);

        assertEquals(all, deleted);
        assertEquals(0, rows("files"));
        assertEquals(10_000, rows("deleted_files"));
        assertEquals(50_000, cartridgeOf("A00001").reclaimableBytes());
        assertEquals(50_000, cartridgeOf("B00001").reclaimableBytes());
        assertTrue(millis < 30_000, "10 000 deletes took " + millis + " ms");
    }

    @Test
    void delete_hintOnlyFile_removesItWithoutReclaimable() {
        catalog.putCartridge(cartridge("V00001", null));
        catalog.putHints(List.of(hint(pnfsid(1), "V00001", 1, 1000)));

        assertEquals(ids(1), catalog.delete(ids(1), 10));
        assertEquals(Optional.empty(), catalog.file(pnfsid(1)));
        assertEquals(0, cartridgeOf("V00001").reclaimableBytes());
    }

    // ---------------------------------------------------------------- hints

    @Test
    void putHints_newFiles_storesThemAsHints() {
        List<FileRecord> hints = List.of(hint(pnfsid(1), "724216", 3, 100), hint(pnfsid(2), "724216", 1, 200));

        assertEquals(2, catalog.putHints(hints));

        FileRecord one = catalog.file(pnfsid(1)).orElseThrow();
        assertEquals(hints.get(0), one);
        assertTrue(one.isHint());
    }

    @Test
    void putHints_fileWrittenByTapeq_neverReplacesTheLocation() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        List<FileRecord> members = commit("A00001", 1, 1, 1, 1000, "ds1", 100);

        assertEquals(0, catalog.putHints(List.of(hint(pnfsid(1), "724216", 3, 1000))));
        assertEquals(Optional.of(members.get(0)), catalog.file(pnfsid(1)));
    }

    @Test
    void putHints_sameHintAgain_storesNothingButAChangedHintReplacesIt() {
        catalog.putHints(List.of(hint(pnfsid(1), "724216", 3, 100)));

        assertEquals(0, catalog.putHints(List.of(hint(pnfsid(1), "724216", 3, 100))));
        assertEquals(1, catalog.putHints(List.of(hint(pnfsid(1), "724217", 9, 100))));
        assertEquals(Optional.of(hint(pnfsid(1), "724217", 9, 100)), catalog.file(pnfsid(1)));
        assertEquals(0, catalog.putHints(List.of(hint(pnfsid(1), "724217", 9, -1))), "unknown size changes nothing");
        assertEquals(1, catalog.putHints(List.of(hint(pnfsid(1), "724218", 9, -1))));
        assertEquals(Optional.of(hint(pnfsid(1), "724218", 9, 100)), catalog.file(pnfsid(1)), "known size kept");
    }

    @Test
    void putHints_deletedFile_isNotBroughtBack() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        commit("A00001", 1, 1, 1, 1000, "ds1", 100);
        catalog.putHints(List.of(hint(pnfsid(2), "724216", 1, 100)));
        catalog.delete(ids(1, 2), 200);

        assertEquals(0, catalog.putHints(List.of(hint(pnfsid(1), "724216", 3, 1000),
                hint(pnfsid(2), "724216", 1, 100))));
        assertEquals(Optional.empty(), catalog.file(pnfsid(1)));
        assertEquals(Optional.empty(), catalog.file(pnfsid(2)));
    }

    @Test
    void putHints_recordWithTapeFile_rejected() {
        FileRecord notAHint = members("A00001", 1, 1, 1, 10, null).get(0);
        assertThrows(IllegalArgumentException.class, () -> catalog.putHints(List.of(notAHint)));
    }

    // ---------------------------------------------------------------- reads

    @Test
    void files_tapeFilesCommittedOutOfOrder_returnedInTapeOrder() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        commit("A00001", 2, 20, 3, 100, "ds1", 100);
        commit("A00001", 1, 10, 3, 100, "ds1", 200);
        catalog.putHints(List.of(hint(pnfsid(31), "V00001", 5, 1), hint(pnfsid(32), "V00001", 1, 1),
                hint(pnfsid(33), "V00001", 3, 1)));

        assertEquals(ids(10, 11, 12, 20, 21, 22), ids(catalog.files("A00001")));
        assertEquals(ids(32, 33, 31), ids(catalog.files("V00001")));
        assertEquals(List.of(1, 2), catalog.aggregates("A00001").stream().map(AggregateRecord::tapeFile).toList());
        assertEquals(List.of(), catalog.files("NOPE01"));
    }

    @Test
    void cartridgesHoldingDataset_severalCartridges_mostRecentlyWrittenFirst() {
        for (String barcode : List.of("A00001", "B00001", "C00001")) {
            catalog.putCartridge(cartridge(barcode, FAMILY));
        }
        catalog.putCartridge(cartridge("D00001", "cms"));
        catalog.putCartridge(cartridge("E00001", null));
        commit("A00001", 1, 100, 2, 10, "ds", 100);
        commit("B00001", 1, 200, 2, 10, "ds", 300);
        commit("C00001", 1, 300, 2, 10, "ds", 200);
        commit("C00001", 2, 400, 2, 10, "other", 400);
        List<FileRecord> onD = members("D00001", 1, 500, 2, 10, "ds");
        catalog.commitAggregate(aggregate("D00001", 1, onD, "cms", "ds", 500), onD);
        List<FileRecord> onE = members("E00001", 1, 600, 1, 10, "ds");
        catalog.commitAggregate(aggregate("E00001", 1, onE, null, "ds", 50), onE);

        assertEquals(List.of("B00001", "C00001", "A00001"), catalog.cartridgesHoldingDataset(FAMILY, "ds"));
        assertEquals(List.of("D00001"), catalog.cartridgesHoldingDataset("cms", "ds"));
        assertEquals(List.of("E00001"), catalog.cartridgesHoldingDataset(null, "ds"));
        assertEquals(List.of(), catalog.cartridgesHoldingDataset(FAMILY, "none"));

        catalog.delete(ids(200, 201), 600);
        assertEquals(List.of("C00001", "A00001"), catalog.cartridgesHoldingDataset(FAMILY, "ds"));
    }

    @Test
    void forEachFile_moreThanOnePage_visitsEveryLiveFileOnce() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        int files = JdbcCatalog.PAGE_SIZE * 2 + 7;
        commit("A00001", 1, 0, files, 10, "ds", 100);
        catalog.putHints(List.of(hint(pnfsid(1_000_000), "V00001", 1, 1)));
        catalog.delete(ids(5), 200);

        Set<String> seen = new HashSet<>();
        AtomicLong duplicates = new AtomicLong();
        catalog.forEachFile(f -> {
            if (!seen.add(f.pnfsid())) {
                duplicates.incrementAndGet();
            }
            // The consumer runs outside the catalog's lock, so it may use the catalog.
            assertTrue(catalog.file(f.pnfsid()).isPresent());
        });

        assertEquals(0, duplicates.get());
        assertEquals(files + 1 - 1, seen.size());
        assertFalse(seen.contains(pnfsid(5)));
    }

    // ---------------------------------------------------------------- cartridges and drives

    @Test
    void putCartridge_existingBarcode_changesStateAndFlagsButNotTheCountersItDoesNotOwn() {
        catalog.putCartridge(cartridge("B00001", FAMILY));
        catalog.putCartridge(cartridge("A00001", FAMILY));
        CartridgeRecord changed = new CartridgeRecord("A00001", "LTO8", "cms", CartridgeState.FULL, 100, 90, 10, 4,
                7, 1234, true, "operator says so");
        catalog.putCartridge(changed);

        assertEquals(Optional.of(new CartridgeRecord("A00001", "LTO8", "cms", CartridgeState.FULL, 100, 0, 0, 0, 0, 0,
                true, "operator says so")), catalog.cartridge("A00001"));
        assertEquals(List.of("A00001", "B00001"), catalog.cartridges().stream().map(CartridgeRecord::barcode).toList());
        assertEquals(Optional.empty(), catalog.cartridge("NOPE01"));
    }

    @Test
    void putCartridge_newBarcode_takesItsCounters() {
        CartridgeRecord entered = new CartridgeRecord("A00001", "LTO9", FAMILY, CartridgeState.FULL, 100, 90, 10, 4, 7,
                1234, false, "loaded");
        catalog.putCartridge(entered);

        assertEquals(Optional.of(entered), catalog.cartridge("A00001"));
    }

    /**
     * A state change made from a copy of the record read before deletes (as the engine keeps one) must not undo
     * the deletes' reclaimable bytes, nor the commits' and mounts' counts: closing for a repack or migration,
     * disabling and SUSPECT all used to write the stale copy whole.
     */
    @Test
    void putCartridge_staleCopyAfterDeletesCommitsAndMounts_keepsTheCatalogsCounters() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        CartridgeRecord stale = cartridgeOf("A00001");
        commit("A00001", 1, 1, 3, 100, "ds", 100);
        commit("A00001", 2, 4, 2, 1_000, "ds", 110);
        catalog.recordMount("A00001", 120);
        catalog.delete(ids(1, 2, 5), 130);
        CartridgeRecord counted = cartridgeOf("A00001");
        assertEquals(1_200, counted.reclaimableBytes());

        catalog.putCartridge(stale.withState(CartridgeState.FULL, "closed for writing: being repacked"));
        assertCounters(counted, cartridgeOf("A00001"));
        catalog.putCartridge(stale.withDisabled(true, "disabled: cleaning"));
        assertCounters(counted, cartridgeOf("A00001"));
        catalog.putCartridge(stale.withState(CartridgeState.SUSPECT, "verification: 1 bad member"));
        CartridgeRecord suspect = cartridgeOf("A00001");
        assertCounters(counted, suspect);
        assertEquals(CartridgeState.SUSPECT, suspect.state());
        assertEquals("verification: 1 bad member", suspect.reason());
    }

    private static void assertCounters(CartridgeRecord expected, CartridgeRecord actual) {
        assertEquals(List.of(expected.usedBytes(), expected.reclaimableBytes(), (long) expected.tapeFiles(),
                expected.mountCount(), expected.lastMount()), List.of(actual.usedBytes(), actual.reclaimableBytes(),
                (long) actual.tapeFiles(), actual.mountCount(), actual.lastMount()), "counters of " + actual);
    }

    @Test
    void recordMount_knownCartridge_countsMountAndSetsLastMount() {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.recordMount("A00001", 1000);
        catalog.recordMount("A00001", 2000);

        CartridgeRecord a = cartridgeOf("A00001");
        assertEquals(2, a.mountCount());
        assertEquals(2000, a.lastMount());
    }

    @Test
    void recordMount_unknownCartridge_failsNamingIt() {
        CatalogException e = assertThrows(CatalogException.class, () -> catalog.recordMount("NOPE01", 1));
        assertTrue(e.getMessage().contains("recordMount") && e.getMessage().contains("NOPE01"), e.getMessage());
    }

    @Test
    void putDrive_newAndExisting_listedByIdWithLatestState() {
        catalog.putDrive(new DriveRecord("drive2", false, "cleaning", 0, 10));
        catalog.putDrive(new DriveRecord("drive1", true, null, 0, 10));
        DriveRecord failing = new DriveRecord("drive1", false, "3 consecutive errors", 3, 20);
        catalog.putDrive(failing);

        assertEquals(List.of(failing, new DriveRecord("drive2", false, "cleaning", 0, 10)), catalog.drives());
    }

    // ---------------------------------------------------------------- rebuild

    @Test
    void replaceCartridgeContents_readFromTape_replacesRowsAndResolvesOtherCopies() throws SQLException {
        for (String barcode : List.of("A00001", "B00001", "C00001")) {
            catalog.putCartridge(cartridge(barcode, FAMILY));
        }
        commit("A00001", 1, 1, 3, 100, "ds", 100);                       // 1, 2, 3
        commit("B00001", 1, 4, 1, 100, "ds", 50);                        // 4: older than the rebuild's copy
        List<FileRecord> newer = commit("B00001", 2, 5, 1, 100, "ds", 900); // 5: newer
        commit("C00001", 1, 6, 1, 100, "ds", 10);                        // 6: deleted at 160
        catalog.delete(ids(6), 160);
        long bReclaimable = cartridgeOf("B00001").reclaimableBytes();

        // What a rebuild read from A: tape file 1 lacks file 3, tape file 2 holds 4, 5 and 6 (written at 120).
        List<FileRecord> tf1 = members("A00001", 1, 1, 2, 100, "ds");
        List<FileRecord> tf2 = members("A00001", 2, 4, 3, 100, "ds");
        List<AggregateRecord> aggs = List.of(aggregate("A00001", 1, tf1, FAMILY, "ds", 100),
                aggregate("A00001", 2, tf2, FAMILY, "ds", 120));
        List<FileRecord> read = new ArrayList<>(tf1);
        read.addAll(tf2);
        long used = aggs.stream().mapToLong(AggregateRecord::bytes).sum();
        CartridgeRecord rebuilt = new CartridgeRecord("A00001", "LTO9", FAMILY, CartridgeState.APPENDABLE,
                Records.CAPACITY, used, 0, 2, 5, 7000, false, null);

        catalog.replaceCartridgeContents(rebuilt, aggs, read);

        assertEquals(aggs, catalog.aggregates("A00001"));
        assertEquals(ids(1, 2, 4), ids(catalog.files("A00001")));
        assertEquals(Optional.empty(), catalog.file(pnfsid(3)));
        assertEquals(Optional.of(newer.get(0)), catalog.file(pnfsid(5)));
        assertEquals(Optional.empty(), catalog.file(pnfsid(6)));
        CartridgeRecord a = cartridgeOf("A00001");
        assertEquals(used, a.usedBytes());
        assertEquals(2, a.tapeFiles());
        assertEquals(200, a.reclaimableBytes()); // copies of 5 and 6 here are dead
        assertEquals(bReclaimable + 100, cartridgeOf("B00001").reclaimableBytes()); // B's copy of 4 superseded
        assertEquals(1, count("SELECT COUNT(*) FROM deleted_files WHERE reason = ? AND pnfsid = ?", "lost",
                pnfsid(3)));

        // Running the same rebuild again changes nothing.
        catalog.replaceCartridgeContents(rebuilt, aggs, read);
        assertEquals(200, cartridgeOf("A00001").reclaimableBytes());
        assertEquals(bReclaimable + 100, cartridgeOf("B00001").reclaimableBytes());
        assertEquals(ids(1, 2, 4), ids(catalog.files("A00001")));
    }

    @Test
    void replaceCartridgeContents_fileOutsideTheGivenAggregates_rejected() {
        List<FileRecord> stray = members("A00001", 3, 1, 1, 100, "ds");
        CartridgeRecord a = cartridge("A00001", FAMILY);
        assertThrows(IllegalArgumentException.class, () -> catalog.replaceCartridgeContents(a, List.of(), stray));
        assertEquals(Optional.empty(), catalog.cartridge("A00001"));
    }

    // ---------------------------------------------------------------- threads

    @Test
    void concurrentReadersAndWriter_manyThreads_noErrorsAndConsistentResult() throws Exception {
        catalog.putCartridge(cartridge("A00001", FAMILY));
        catalog.putCartridge(cartridge("B00001", FAMILY));
        int aggregates = 100;
        int perAggregate = 50;
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            long seed = r;
            Thread t = new Thread(() -> {
                Random random = new Random(seed);
                try {
                    while (!done.get()) {
                        Optional<FileRecord> f = catalog.file(pnfsid(random.nextInt(aggregates * perAggregate)));
                        f.ifPresent(x -> assertEquals(x.size(), 10));
                        List<FileRecord> onA = catalog.files("A00001");
                        assertTrue(onA.size() <= aggregates * perAggregate);
                        catalog.cartridgesHoldingDataset(FAMILY, "ds");
                        catalog.cartridge("B00001").orElseThrow();
                        reads.addAndGet(4);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "catalog-reader-" + r);
            readers.add(t);
            t.start();
        }
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < aggregates; i++) {
                    String barcode = i % 2 == 0 ? "A00001" : "B00001";
                    commit(barcode, i + 1, (long) i * perAggregate, perAggregate, 10, "ds", i);
                    if (i % 10 == 9) {
                        catalog.delete(ids(i * perAggregate), 1000 + i);
                        catalog.recordMount(barcode, i);
                    }
                }
            } catch (Throwable e) {
                errors.add(e);
            }
        }, "catalog-writer");
        writer.start();
        writer.join(120_000);
        done.set(true);
        for (Thread t : readers) {
            t.join(10_000);
        }

        assertEquals(List.of(), new ArrayList<>(errors));
        assertFalse(writer.isAlive());
        assertTrue(reads.get() > 0);
        assertEquals(aggregates * perAggregate - aggregates / 10, rows("files"));
        assertEquals(aggregates, rows("aggregates"));
        assertEquals(aggregates / 10 * 10L, cartridgeOf("A00001").reclaimableBytes()
                + cartridgeOf("B00001").reclaimableBytes());
    }

    @Test
    void close_twice_isHarmlessAndLaterCallsFail() {
        catalog.close();
        catalog.close();
        assertThrows(IllegalStateException.class, () -> catalog.file(pnfsid(1)));
    }
}
