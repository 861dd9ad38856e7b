package org.tapeq.scheduler.catalog.jdbc;

import static org.tapeq.scheduler.catalog.jdbc.CatalogRows.aggregateRecord;
import static org.tapeq.scheduler.catalog.jdbc.CatalogRows.bindAggregate;
import static org.tapeq.scheduler.catalog.jdbc.CatalogRows.bindDrive;
import static org.tapeq.scheduler.catalog.jdbc.CatalogRows.bindFile;
import static org.tapeq.scheduler.catalog.jdbc.CatalogRows.cartridgeRecord;
import static org.tapeq.scheduler.catalog.jdbc.CatalogRows.driveRecord;
import static org.tapeq.scheduler.catalog.jdbc.CatalogRows.fileRecord;
import static org.tapeq.scheduler.catalog.jdbc.CatalogRows.fileRecords;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.ADD_RECLAIMABLE;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.AGGREGATE_COLUMNS;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.ARCHIVE_FILE;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.CARTRIDGE_COLUMNS;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.DRIVE_COLUMNS;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.FILE_COLUMNS;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.FINDING_COLUMNS;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.INSERT_AGGREGATE;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.INSERT_FINDING;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.MIGRATIONS;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.PUT_HINT;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.REASON_DELETED;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.REASON_LOST;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.REASON_SUPERSEDED;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.UPSERT_DRIVE;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.UPSERT_FILE;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.UPSERT_VERIFICATION;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.VERIFICATION_COLUMNS;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.CatalogLeaseException;
import org.tapeq.scheduler.catalog.CatalogUnavailableException;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.catalog.RelabelIntent;
import org.tapeq.scheduler.catalog.MigrationJob;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.catalog.SiteLease;
import org.tapeq.scheduler.catalog.Verification;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/*
 * Design notes
 *
 * Schema (version 1; plain SQL that SQLite and PostgreSQL both accept):
 *   schema_version (version, applied_at)              one row per applied migration
 *   cartridges     (barcode PK, ..., used_bytes, reclaimable_bytes, tape_files, mount_count, last_mount, ...)
 *   aggregates     (cartridge, tape_file) PK, cartridge -> cartridges
 *   files          (pnfsid PK, cartridge, tape_file, block_no, offset_bytes, size, ..., dataset, hint_order)
 *                  the LIVE location of each file; index (cartridge, tape_file, offset_bytes, hint_order) gives
 *                  a cartridge's files in tape order, index (dataset, cartridge, tape_file) the cartridges
 *                  holding a dataset (joined to aggregates for the family and the write time)
 *   deleted_files  (pnfsid, the old location, reason, deleted_at), indexed by pnfsid: the audit trail. A
 *                  deleted file is moved here (reason 'deleted'), as is the old copy of a file written again
 *                  ('superseded') and a file a rebuild did not find on its cartridge ('lost'). A 'deleted' row
 *                  is also a tombstone: a later tape-hint import does not bring the file back.
 *   drives         (id PK, up, reason, error_count, updated_at)
 * Column names avoid words reserved in either dialect (offset, order). Booleans are INTEGER 0/1.
 *
 * Hints (ENDIT tape hints) live in files with tape_file = block_no = offset_bytes = -1 and their order in
 * hint_order. Their volume need not be a cartridge tapeq knows, so files has no foreign key to cartridges
 * (aggregates does). Hints are not counted in a cartridge's used bytes, so removing or superseding a hint
 * adds nothing to reclaimable bytes; only tapeq-written copies do.
 *
 * Transactions: every mutating method runs as one transaction (autocommit off, commit, autocommit back on)
 * and any failure rolls it back and surfaces as a CatalogException naming the operation and its subject.
 * Reads run in autocommit mode, one statement each (forEachFile: one statement per page). SQLite
 * transactions are BEGIN IMMEDIATE: the write lock is taken at the start, so a transaction never fails
 * half-way on a lock upgrade, and busy_timeout makes it wait for another process (an admin tool) instead
 * of failing. On PostgreSQL (READ COMMITTED) the rows a transaction reads before changing them are read
 * with SELECT ... FOR UPDATE; that suffix is the only dialect difference in the data statements (the
 * upserts use INSERT ... ON CONFLICT ... DO UPDATE, which both accept).
 *
 * Durability: SQLite runs with journal_mode=WAL and synchronous=FULL, so a commit returns only after the
 * WAL is synced (foreign_keys=ON, busy_timeout, a 64 MiB page cache). PostgreSQL commits are durable with
 * its default synchronous_commit=on.
 *
 * Threads: one JDBC connection at a time guarded by one lock, held for each whole method (and per page in
 * forEachFile, whose consumer runs outside the lock). A connection is not safe for concurrent use, and a
 * SQLite database has one writer anyway; reads are indexed point lookups (tens of microseconds through
 * JDBC, see CatalogLookupBenchmarkTest), so serialising them costs little next to a tape mount. A pool of
 * read-only connections would let reads overlap a write if that ever shows up in profiles. Prepared
 * statements are cached per SQL text; IN lists are padded to a few fixed lengths (repeating the last id)
 * so the cache stays small.
 *
 * Connections (CatalogConnections): SQLite keeps one connection for its life. PostgreSQL borrows its one
 * connection from a HikariCP pool for each method and gives it back after (its statements are closed then;
 * the driver keeps the server-side prepared statements per connection). A failure that means the server
 * could not be reached (connection refused or cut, server shutting down) evicts the connection and surfaces
 * as CatalogUnavailableException: nothing of the operation is recorded and it may be retried; the next call
 * gets a new connection once the server answers. A commit whose answer was lost may have been recorded
 * anyway, so every write the catalog writer may run again is idempotent: commitAggregate counts an aggregate
 * already recorded exactly as given as done; recordMount counts a mount (cartridge, time) once; delete reports a
 * file archived as deleted at the same time as deleted; the upserts and replaceCartridgeContents set, not add.
 *
 * Site lease (schema 2, table site_lease, one row per site): SiteLeases takes, renews (on PostgreSQL on a
 * connection of its own) and releases it; while one is held every mutating transaction first passes its fence
 * (the row read FOR KEY SHARE, refused if the epoch was taken over). See its design notes.
 *
 * Verifications (schema 3, table cartridge_verifications, one row per cartridge): the last verification's
 * time, whether it was a sample, its counts of good, bad and unreadable files and a summary naming the first
 * ones; table verification_findings holds every bad and unreadable file of it (tape file, reason). Both are
 * replaced by the next (recordVerification, one transaction, fenced like every write).
 *
 * Repack jobs (schema 4, table repack_jobs, one row per source cartridge; SQL in RepackRows): commitRepacked is
 * commitAggregate that does not bring back a member deleted while it was copied.
 *
 * Relabel intents (schema 5, table relabel_intents, one row per cartridge; SQL in RelabelRows): written before a
 * relabel's label, removed by commitRelabel with the cartridge's aggregates, its verification (with its findings)
 * and its superseded/lost copies (the 'deleted' rows stay: they keep a deletion a deletion when another copy of the
 * file is rebuilt from tape).
 * Operator settings (schema 7, table settings, one row per name; SQL in SettingRows): what an operator set that
 * must outlive a restart, such as the reclamation policy's pause (reclaim.paused).
 *
 * Schema versions: open() creates schema_version if missing and applies the migrations after the recorded
 * version, all in one transaction (DDL is transactional in both); a database newer than this code is
 * refused. On PostgreSQL a transaction-scoped advisory lock serialises concurrent openers.
 * openBeforeLease() (a daemon, a standby, import-hints: processes that write only under the site lease) does not
 * migrate a database that already has the lease table (version >= LEASE_SCHEMA_VERSION): another tapeq may
 * hold the site and run on that schema, so the migration waits until this process holds the lease
 * (acquireLease migrates, fenced, right after the lease is taken). A database without the lease table (fresh,
 * or from before leases) has no holder to disturb and is migrated at once, as open() does. The lease table's
 * shape is therefore fixed since LEASE_SCHEMA_VERSION: a later migration must not change it.
 *
 * PostgreSQL path: open("jdbc:postgresql://host/db?user=..&currentSchema=..") with the PostgreSQL driver on
 * the class path (tapeq does not ship it; the tests use it). currentSchema keeps tapeq's tables in their
 * own schema. Ordering by text (barcodes, pnfsids) follows the database's collation.
 */

/**
 * The catalog in a relational database: SQLite (a file, or in memory for simulations) or PostgreSQL.
 * Thread-safe; every mutating method is one durable transaction. See the design notes in the source.
 */
public final class JdbcCatalog implements Catalog {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcCatalog.class);

    /**
     * The schema version this code writes and reads (2: the site lease, 3: verifications, 4: repack jobs, 5: relabel
     * intents, 6: repack target media and media migrations, 7: operator settings).
     */
    public static final int SCHEMA_VERSION = 7;
    /** The first schema version with the site lease table. */
    static final int LEASE_SCHEMA_VERSION = 2;
    /** How long a SQLite transaction waits for another process's write lock. */
    public static final int BUSY_TIMEOUT_MS = 30_000;
    /** SQLite page cache of the catalog's connection, KiB (the default 2 MiB is small for millions of files). */
    public static final int SQLITE_CACHE_KIB = 64 * 1024;
    /** Rows read per lock hold in {@link #forEachFile}. */
    static final int PAGE_SIZE = 2_000;
    /** Lengths IN lists are padded to; the last one is also the batch size for pnfsid lists. */
    private static final int[] IN_LENGTHS = {1, 16, 128, 512};
    static final int MAX_IN = IN_LENGTHS[IN_LENGTHS.length - 1];

    /** The two databases tapeq runs on; only locking and connection set-up differ. */
    enum Dialect {
        SQLITE(""),
        POSTGRESQL(" FOR UPDATE");

        /** Appended to a SELECT whose rows the transaction is about to change. */
        final String forUpdate;

        Dialect(String forUpdate) {
            this.forUpdate = forUpdate;
        }

        static Dialect of(String jdbcUrl) {
            if (jdbcUrl.startsWith("jdbc:sqlite:")) {
                return SQLITE;
            }
            if (jdbcUrl.startsWith("jdbc:postgresql:")) {
                return POSTGRESQL;
            }
            throw new IllegalArgumentException("unsupported catalog URL (expected jdbc:sqlite:... or "
                    + "jdbc:postgresql:...): " + redact(jdbcUrl));
        }
    }

    /** Work on the connection of the running method (see {@link #transaction}). */
    @FunctionalInterface
    interface Work<T> {
        T run() throws SQLException;
    }

    private final String description;
    private final Dialect dialect;
    private final CatalogConnections connections;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, PreparedStatement> statements = new HashMap<>();
    /** The connection of the method running now (under the lock); null between methods on PostgreSQL. */
    private Connection connection;
    private boolean closed;
    /** Set by {@link #leaseLost}: the lease is not released at close. */
    private volatile boolean leaseLost;
    /** The site lease: acquisition, renewal on its own connection, the fence of every write. */
    private final SiteLeases leases;
    /** Opened by {@link #openBeforeLease} on an older schema: {@link #acquireLease} migrates it. */
    private volatile boolean migrationPending;

    private JdbcCatalog(String description, Dialect dialect, CatalogConnections connections,
                        CatalogConnections leaseConnections) {
        this.description = description;
        this.dialect = dialect;
        this.connections = connections;
        this.leases = new SiteLeases(this, description, dialect, leaseConnections);
    }

    /**
     * Opens (creating or migrating the schema if needed) the catalog at {@code jdbcUrl}:
     * {@code jdbc:sqlite:/path/catalog.db}, {@code jdbc:sqlite::memory:} or {@code jdbc:postgresql://...}.
     *
     * @throws CatalogException if the database cannot be opened or its schema is newer than this code
     * @throws CatalogUnavailableException if a PostgreSQL server cannot be reached now (a later call may succeed)
     */
    public static JdbcCatalog open(String jdbcUrl) {
        return open(jdbcUrl, new Properties());
    }

    /** As {@link #open(String)}, with connection properties for a server database (e.g. user, password). */
    public static JdbcCatalog open(String jdbcUrl, Properties credentials) {
        return open(jdbcUrl, credentials, false);
    }

    private static JdbcCatalog open(String jdbcUrl, Properties credentials, boolean beforeLease) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Dialect dialect = Dialect.of(jdbcUrl);
        String description = redact(jdbcUrl);
        CatalogConnections connections;
        CatalogConnections leaseConnections = null;
        try {
            if (dialect == Dialect.SQLITE) {
                connections = CatalogConnections.single(CatalogConnections.sqlite(jdbcUrl,
                        sqliteConfig().toProperties()));
            } else {
                connections = CatalogConnections.pooled(jdbcUrl, credentials, description);
                leaseConnections = CatalogConnections.pooled(jdbcUrl, credentials, description);
            }
        } catch (SQLException | RuntimeException e) {
            throw new CatalogException("open " + description + ": " + e.getMessage(), e);
        }
        return open(description, dialect, connections, leaseConnections, beforeLease);
    }

    /**
     * As {@link #open(String, Properties)} for a process that writes only under the site lease (a daemon, a
     * standby, an import): a schema that has the lease table and is older than this code is not migrated here
     * but by {@link #acquireLease}, once the lease is held, so a host upgraded first never changes the schema
     * under the running holder. A database without the lease table (nobody can hold the site) is migrated now.
     */
    public static JdbcCatalog openBeforeLease(String jdbcUrl, Properties credentials) {
        return open(jdbcUrl, credentials, true);
    }

    /** Opens the catalog over {@code connections} (tests wrap a connection to inject failures); renews on them. */
    static JdbcCatalog open(String description, Dialect dialect, CatalogConnections connections) {
        return open(description, dialect, connections, null, false);
    }

    private static JdbcCatalog open(String description, Dialect dialect, CatalogConnections connections,
                                    CatalogConnections leaseConnections, boolean beforeLease) {
        JdbcCatalog catalog = new JdbcCatalog(description, dialect, connections, leaseConnections);
        int version;
        try {
            version = catalog.migrate(beforeLease);
        } catch (RuntimeException e) {
            catalog.close();
            throw e;
        }
        if (catalog.migrationPending) {
            LOG.info("Catalog {} open ({}, schema version {}; migrated to {} once this process holds the site "
                    + "lease)", description, dialect, version, SCHEMA_VERSION);
        } else {
            LOG.info("Catalog {} open ({}, schema version {})", description, dialect, SCHEMA_VERSION);
        }
        return catalog;
    }

    private static SQLiteConfig sqliteConfig() {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout(BUSY_TIMEOUT_MS);
        config.setCacheSize(-SQLITE_CACHE_KIB); // negative: KiB rather than pages
        config.enforceForeignKeys(true);
        config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        return config;
    }

    /** The URL with any password masked, for messages. */
    static String redact(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    /**
     * Brings the schema to {@link #SCHEMA_VERSION}: one transaction, so a failed migration leaves none of it;
     * with {@code beforeLease} a schema that has the lease table is left as it is (nothing written) and the
     * migration is pending. Returns the version found.
     */
    private int migrate(boolean beforeLease) {
        int from = transaction("open", description, () -> {
            if (dialect == Dialect.POSTGRESQL) {
                // Serialises concurrent openers of one database; released at commit.
                execute("SELECT pg_advisory_xact_lock(7365807)");
            }
            int current = storedVersion();
            if (current > SCHEMA_VERSION) {
                throw new CatalogException("open " + description + ": catalog schema version " + current
                        + " is newer than this tapeq supports (" + SCHEMA_VERSION + ")");
            }
            if (beforeLease && current >= LEASE_SCHEMA_VERSION && current < SCHEMA_VERSION) {
                migrationPending = true; // another tapeq may hold the site on this schema
                return current;
            }
            execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL,"
                    + " applied_at BIGINT NOT NULL)");
            for (int version = current + 1; version <= SCHEMA_VERSION; version++) {
                for (String ddl : MIGRATIONS.get(version - 1)) {
                    execute(ddl);
                }
                PreparedStatement ps = statement("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)");
                ps.setInt(1, version);
                ps.setLong(2, System.currentTimeMillis());
                ps.executeUpdate();
            }
            migrationPending = false;
            return current;
        });
        if (from < SCHEMA_VERSION && !migrationPending) {
            LOG.info("Catalog {}: schema migrated from version {} to {}", description, from, SCHEMA_VERSION);
        }
        return from;
    }

    /** The schema version the database records, 0 if it has none (a fresh database); on the open connection. */
    private int storedVersion() throws SQLException {
        String exists = dialect == Dialect.POSTGRESQL ? "SELECT to_regclass('schema_version') IS NOT NULL"
                : "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'";
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(exists)) {
            rs.next();
            if (!rs.getBoolean(1)) {
                return 0;
            }
        }
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT MAX(version) FROM schema_version")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** The schema version the database records now (a standby's stays as the holder's until it takes over). */
    public int schemaVersion() {
        return read("schemaVersion", description, this::storedVersion);
    }

    void execute(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    // ---------------------------------------------------------------- reads

    @Override
    public void check() {
        read("check", "connection", () -> {
            try (Statement s = connection.createStatement()) {
                s.execute("SELECT 1");
            }
            return null;
        });
    }

    /**
     * A write transaction that changes nothing: the lease's fence (if a lease is held) and a round trip (a
     * transaction without a statement never reaches a PostgreSQL server, so it would succeed while it is down).
     */
    @Override
    public void checkWritable() {
        transaction("checkWritable", "connection", () -> {
            execute("SELECT 1");
            return null;
        });
    }

    @Override
    public Optional<FileRecord> file(String pnfsid) {
        Objects.requireNonNull(pnfsid, "pnfsid");
        return read("file", "pnfsid " + pnfsid, () -> {
            PreparedStatement ps = statement("SELECT " + FILE_COLUMNS + " FROM files WHERE pnfsid = ?");
            ps.setString(1, pnfsid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(fileRecord(rs)) : Optional.empty();
            }
        });
    }

    @Override
    public Map<String, FileRecord> files(Collection<String> pnfsids) {
        Objects.requireNonNull(pnfsids, "pnfsids");
        List<String> all = new ArrayList<>(pnfsids);
        return read("files", all.size() + " pnfsids", () -> liveFiles(all, ""));
    }

    @Override
    public List<FileRecord> files(String barcode) {
        Objects.requireNonNull(barcode, "barcode");
        return read("files", "cartridge " + barcode, () -> {
            PreparedStatement ps = statement("SELECT " + FILE_COLUMNS + " FROM files WHERE cartridge = ?"
                    + " ORDER BY tape_file, offset_bytes, hint_order, pnfsid");
            ps.setString(1, barcode);
            return fileRecords(ps);
        });
    }

    @Override
    public Map<String, Long> fileCounts() {
        return read("fileCounts", "all", () -> {
            PreparedStatement ps = statement("SELECT cartridge, COUNT(*) FROM files WHERE cartridge IS NOT NULL"
                    + " GROUP BY cartridge");
            Map<String, Long> out = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getLong(2));
                }
            }
            return out;
        });
    }

    @Override
    public void forEachFile(Consumer<FileRecord> consumer) {
        Objects.requireNonNull(consumer, "consumer");
        String after = null;
        while (true) {
            String from = after;
            List<FileRecord> page = read("forEachFile", "page after " + from, () -> {
                PreparedStatement ps;
                if (from == null) {
                    ps = statement("SELECT " + FILE_COLUMNS + " FROM files ORDER BY pnfsid LIMIT " + PAGE_SIZE);
                } else {
                    ps = statement("SELECT " + FILE_COLUMNS + " FROM files WHERE pnfsid > ? ORDER BY pnfsid LIMIT "
                            + PAGE_SIZE);
                    ps.setString(1, from);
                }
                return fileRecords(ps);
            });
            page.forEach(consumer);
            if (page.size() < PAGE_SIZE) {
                return;
            }
            after = page.get(page.size() - 1).pnfsid();
        }
    }

    @Override
    public List<AggregateRecord> aggregates(String barcode) {
        Objects.requireNonNull(barcode, "barcode");
        return read("aggregates", "cartridge " + barcode, () -> {
            PreparedStatement ps = statement("SELECT " + AGGREGATE_COLUMNS + " FROM aggregates WHERE cartridge = ?"
                    + " ORDER BY tape_file");
            ps.setString(1, barcode);
            return CatalogRows.list(ps, CatalogRows::aggregateRecord);
        });
    }

    @Override
    public List<String> cartridgesHoldingDataset(String family, String dataset) {
        Objects.requireNonNull(dataset, "dataset");
        return read("cartridgesHoldingDataset", "family " + family + " dataset " + dataset, () -> {
            PreparedStatement ps = statement("SELECT f.cartridge, MAX(a.written_at) AS last_written"
                    + " FROM files f JOIN aggregates a ON a.cartridge = f.cartridge AND a.tape_file = f.tape_file"
                    + " WHERE f.dataset = ? AND " + (family == null ? "a.family IS NULL" : "a.family = ?")
                    + " GROUP BY f.cartridge ORDER BY last_written DESC, f.cartridge");
            ps.setString(1, dataset);
            if (family != null) {
                ps.setString(2, family);
            }
            return CatalogRows.list(ps, rs -> rs.getString(1));
        });
    }

    @Override
    public List<CartridgeRecord> cartridges() {
        return read("cartridges", "all", () -> {
            PreparedStatement ps = statement("SELECT " + CARTRIDGE_COLUMNS + " FROM cartridges ORDER BY barcode");
            return CatalogRows.list(ps, CatalogRows::cartridgeRecord);
        });
    }

    @Override
    public Optional<CartridgeRecord> cartridge(String barcode) {
        Objects.requireNonNull(barcode, "barcode");
        return read("cartridge", "cartridge " + barcode, () -> {
            PreparedStatement ps = statement("SELECT " + CARTRIDGE_COLUMNS + " FROM cartridges WHERE barcode = ?");
            ps.setString(1, barcode);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(cartridgeRecord(rs)) : Optional.empty();
            }
        });
    }

    @Override
    public List<DriveRecord> drives() {
        return read("drives", "all", () -> {
            PreparedStatement ps = statement("SELECT " + DRIVE_COLUMNS + " FROM drives ORDER BY id");
            return CatalogRows.list(ps, CatalogRows::driveRecord);
        });
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void commitAggregate(AggregateRecord aggregate, List<FileRecord> members) {
        Objects.requireNonNull(aggregate, "aggregate");
        Objects.requireNonNull(members, "members");
        checkAggregate(aggregate, members);
        String subject = subject(aggregate, members);
        transaction("commitAggregate", subject, () -> {
            writeAggregate(aggregate, members, subject);
            return null;
        });
    }

    /** All the aggregates in one transaction: all are recorded, or none (the error names the one that failed). */
    @Override
    public void commitAggregates(List<Written> aggregates) {
        Objects.requireNonNull(aggregates, "aggregates");
        if (aggregates.isEmpty()) {
            return;
        }
        for (Written w : aggregates) {
            checkAggregate(Objects.requireNonNull(w.aggregate(), "aggregate"), Objects.requireNonNull(w.members(),
                    "members"));
        }
        transaction("commitAggregates", aggregates.size() + " aggregates", () -> {
            for (Written w : aggregates) {
                writeAggregate(w.aggregate(), w.members(), subject(w.aggregate(), w.members()));
            }
            return null;
        });
    }

    private static String subject(AggregateRecord aggregate, List<FileRecord> members) {
        return "cartridge " + aggregate.cartridge() + " tape file " + aggregate.tapeFile() + " ("
                + members.size() + " members, first pnfsid " + members.get(0).pnfsid() + ")";
    }

    /** The rows of one aggregate, inside the caller's transaction. */
    private void writeAggregate(AggregateRecord aggregate, List<FileRecord> members, String subject)
            throws SQLException {
        PreparedStatement recorded = statement("SELECT " + AGGREGATE_COLUMNS + " FROM aggregates"
                + " WHERE cartridge = ? AND tape_file = ?");
        recorded.setString(1, aggregate.cartridge());
        recorded.setInt(2, aggregate.tapeFile());
        try (ResultSet rs = recorded.executeQuery()) {
            if (rs.next() && aggregate.equals(aggregateRecord(rs))) {
                // A retry of a commit whose answer was lost: the first attempt was recorded.
                LOG.info("Catalog {}: commitAggregate {}: already recorded", description, subject);
                return;
            }
        }
        PreparedStatement check = statement("SELECT barcode FROM cartridges WHERE barcode = ?" + dialect.forUpdate);
        check.setString(1, aggregate.cartridge());
        try (ResultSet rs = check.executeQuery()) {
            if (!rs.next()) {
                throw new CatalogException("commitAggregate " + subject + ": cartridge " + aggregate.cartridge()
                        + " is not in the catalog");
            }
        }
        insertAggregate(aggregate);

        List<String> ids = members.stream().map(FileRecord::pnfsid).toList();
        Map<String, FileRecord> previous = liveFiles(ids);
        Map<String, Long> reclaim = new HashMap<>();
        for (FileRecord old : previous.values()) {
            if (!old.isHint()) {
                reclaim.merge(old.cartridge(), old.size(), Long::sum);
            }
        }
        archive(previous.values(), REASON_SUPERSEDED, aggregate.writtenAt());
        addReclaimable(reclaim);

        PreparedStatement upsert = batch(UPSERT_FILE);
        for (FileRecord member : members) {
            bindFile(upsert, 1, member);
            upsert.addBatch();
        }
        upsert.executeBatch();

        PreparedStatement usage = statement("UPDATE cartridges SET used_bytes = used_bytes + ?,"
                + " tape_files = tape_files + 1 WHERE barcode = ?");
        usage.setLong(1, aggregate.bytes());
        usage.setString(2, aggregate.cartridge());
        usage.executeUpdate();
    }

    private static void checkAggregate(AggregateRecord aggregate, List<FileRecord> members) {
        Objects.requireNonNull(aggregate.cartridge(), "aggregate cartridge");
        if (members.isEmpty()) {
            throw new IllegalArgumentException("aggregate " + aggregate.cartridge() + "/" + aggregate.tapeFile()
                    + " has no members");
        }
        if (aggregate.tapeFile() < 0) {
            throw new IllegalArgumentException("aggregate " + aggregate.cartridge() + "/" + aggregate.tapeFile()
                    + ": negative tape file number");
        }
        if (aggregate.memberCount() != members.size()) {
            throw new IllegalArgumentException("aggregate " + aggregate.cartridge() + "/" + aggregate.tapeFile()
                    + " says " + aggregate.memberCount() + " members but " + members.size() + " were given");
        }
        Set<String> seen = new HashSet<>();
        for (FileRecord member : members) {
            Objects.requireNonNull(member.pnfsid(), "member pnfsid");
            if (!aggregate.cartridge().equals(member.cartridge()) || aggregate.tapeFile() != member.tapeFile()) {
                throw new IllegalArgumentException("member " + member.pnfsid() + " is located at "
                        + member.cartridge() + "/" + member.tapeFile() + ", not in aggregate "
                        + aggregate.cartridge() + "/" + aggregate.tapeFile());
            }
            if (!seen.add(member.pnfsid())) {
                throw new IllegalArgumentException("member " + member.pnfsid() + " appears twice in aggregate "
                        + aggregate.cartridge() + "/" + aggregate.tapeFile());
            }
        }
    }

    @Override
    public List<String> delete(Collection<String> pnfsids, long now) {
        Objects.requireNonNull(pnfsids, "pnfsids");
        List<String> ids = new ArrayList<>(new LinkedHashSet<>(pnfsids));
        if (ids.isEmpty()) {
            return List.of();
        }
        ids.forEach(id -> Objects.requireNonNull(id, "pnfsid"));
        String subject = ids.size() == 1 ? "pnfsid " + ids.get(0)
                : ids.size() + " pnfsids (first " + ids.get(0) + ")";
        return transaction("delete", subject, () -> deleteIn(ids, now));
    }

    /** The body of {@link #delete}, inside the caller's transaction. */
    private List<String> deleteIn(List<String> ids, long now) throws SQLException {
        Set<String> existed = new HashSet<>();
        Map<String, Long> reclaim = new HashMap<>();
        for (int from = 0; from < ids.size(); from += MAX_IN) {
            List<String> chunk = ids.subList(from, Math.min(ids.size(), from + MAX_IN));
            Map<String, FileRecord> live = liveFiles(chunk);
            if (live.isEmpty()) {
                continue;
            }
            for (FileRecord old : live.values()) {
                existed.add(old.pnfsid());
                if (!old.isHint()) {
                    reclaim.merge(old.cartridge(), old.size(), Long::sum);
                }
            }
            archive(live.values(), REASON_DELETED, now);
            deleteLive(live.keySet());
        }
        addReclaimable(reclaim);
        if (existed.size() < ids.size()) {
            existed.addAll(deletedAt(ids.stream().filter(id -> !existed.contains(id)).toList(), now));
        }
        return ids.stream().filter(existed::contains).toList();
    }

    @Override
    public void commitRepacked(AggregateRecord aggregate, List<FileRecord> members, String source, long now) {
        Objects.requireNonNull(aggregate, "aggregate");
        Objects.requireNonNull(members, "members");
        Objects.requireNonNull(source, "source");
        checkAggregate(aggregate, members);
        String subject = subject(aggregate, members) + " repacked from " + source;
        transaction("commitRepacked", subject, () -> {
            List<String> ids = members.stream().map(FileRecord::pnfsid).toList();
            Map<String, FileRecord> before = liveFiles(ids);
            writeAggregate(aggregate, members, subject);
            List<String> deletedMeanwhile = ids.stream().filter(id -> !before.containsKey(id)).toList();
            if (!deletedMeanwhile.isEmpty()) {
                deleteIn(deletedMeanwhile, now);
            }
            return null;
        });
    }

    @Override
    public void putRepackJob(RepackJob job) {
        Objects.requireNonNull(job, "job");
        transaction("putRepackJob", "cartridge " + job.source(), () -> {
            RepackRows.put(this::statement, job);
            return null;
        });
    }

    @Override
    public List<RepackJob> repackJobs() {
        return read("repackJobs", "all", () -> RepackRows.all(this::statement));
    }

    @Override
    public void putRelabelIntent(RelabelIntent intent) {
        Objects.requireNonNull(intent, "intent");
        transaction("putRelabelIntent", "cartridge " + intent.barcode(), () -> {
            RelabelRows.requireNoLiveFile(this::statement, intent.barcode());
            RelabelRows.put(this::statement, intent);
            return null;
        });
    }

    @Override
    public Optional<String> setting(String name) {
        Objects.requireNonNull(name, "name");
        return read("setting", name, () -> SettingRows.get(this::statement, name));
    }

    @Override
    public void putSetting(String name, String value, long now) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        transaction("putSetting", name, () -> {
            SettingRows.put(this::statement, name, value, now);
            return null;
        });
    }

    @Override
    public void putMigrationJob(MigrationJob job) {
        Objects.requireNonNull(job, "job");
        transaction("putMigrationJob", "migration " + job.id(), () -> {
            MigrationRows.put(this::statement, job);
            return null;
        });
    }

    @Override
    public List<RelabelIntent> relabelIntents() {
        return read("relabelIntents", "all", () -> RelabelRows.all(this::statement));
    }

    @Override
    public void commitRelabel(CartridgeRecord fresh) {
        Objects.requireNonNull(fresh, "cartridge");
        transaction("commitRelabel", "cartridge " + fresh.barcode(), () -> {
            RelabelRows.requireNoLiveFile(this::statement, fresh.barcode());
            RelabelRows.forgetTapeFiles(this::statement, fresh.barcode());
            CartridgeRows.replace(this::statement, fresh);
            return null;
        });
    }

    @Override
    public List<MigrationJob> migrationJobs() {
        return read("migrationJobs", "all", () -> MigrationRows.all(this::statement));
    }

    /**
     * Which of {@code pnfsids} were deleted at {@code now} exactly: a delete run again after its commit's answer
     * was lost finds its own earlier effect here and reports those files as deleted, not as unknown.
     */
    private Set<String> deletedAt(List<String> pnfsids, long now) throws SQLException {
        Set<String> result = new HashSet<>();
        for (int from = 0; from < pnfsids.size(); from += MAX_IN) {
            List<String> chunk = pnfsids.subList(from, Math.min(pnfsids.size(), from + MAX_IN));
            PreparedStatement ps = inStatement("SELECT pnfsid FROM deleted_files WHERE reason = '" + REASON_DELETED
                    + "' AND deleted_at = ? AND pnfsid IN ", "", chunk.size());
            ps.setLong(1, now);
            bindIn(ps, 2, chunk);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    result.add(rs.getString(1));
                }
            }
        }
        return result;
    }

    @Override
    public int putHints(List<FileRecord> hints) {
        Objects.requireNonNull(hints, "hints");
        if (hints.isEmpty()) {
            return 0;
        }
        for (FileRecord hint : hints) {
            Objects.requireNonNull(hint.pnfsid(), "hint pnfsid");
            Objects.requireNonNull(hint.cartridge(), "hint cartridge");
            if (!hint.isHint()) {
                throw new IllegalArgumentException("putHints: " + hint.pnfsid() + " has tape file "
                        + hint.tapeFile() + "; a hint has tape file -1");
            }
        }
        String subject = hints.size() == 1 ? "pnfsid " + hints.get(0).pnfsid()
                : hints.size() + " hints (first pnfsid " + hints.get(0).pnfsid() + ")";
        return transaction("putHints", subject, () -> {
            PreparedStatement ps = batch(PUT_HINT);
            for (FileRecord hint : hints) {
                int next = bindFile(ps, 1, hint);
                ps.setString(next, hint.pnfsid());
                ps.addBatch();
            }
            int stored = 0;
            for (int count : ps.executeBatch()) {
                if (count > 0) {
                    stored += count;
                } else if (count == Statement.SUCCESS_NO_INFO) {
                    throw new SQLException("driver did not report update counts");
                }
            }
            return stored;
        });
    }

    @Override
    public void putCartridge(CartridgeRecord cartridge) {
        Objects.requireNonNull(cartridge, "cartridge");
        Objects.requireNonNull(cartridge.barcode(), "barcode");
        Objects.requireNonNull(cartridge.state(), "state");
        transaction("putCartridge", "cartridge " + cartridge.barcode(), () -> {
            CartridgeRows.put(this::statement, cartridge); // the usage counters are left to their own statements
            return null;
        });
    }

    @Override
    public void recordMount(String barcode, long when) {
        Objects.requireNonNull(barcode, "barcode");
        transaction("recordMount", "cartridge " + barcode, () -> {
            // A mount is its cartridge and time: the same one recorded again (a retry after a commit whose answer
            // was lost) is not counted twice. last_mount 0 with mount_count 0 means "never mounted".
            PreparedStatement ps = statement("UPDATE cartridges SET mount_count = mount_count + 1, last_mount = ?"
                    + " WHERE barcode = ? AND (last_mount <> ? OR mount_count = 0)");
            ps.setLong(1, when);
            ps.setString(2, barcode);
            ps.setLong(3, when);
            if (ps.executeUpdate() == 0 && !cartridgeExists(barcode)) {
                throw new CatalogException("recordMount cartridge " + barcode + ": not in the catalog");
            }
            return null;
        });
    }

    private boolean cartridgeExists(String barcode) throws SQLException {
        PreparedStatement ps = statement("SELECT 1 FROM cartridges WHERE barcode = ?");
        ps.setString(1, barcode);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>In detail: the cartridge row is replaced by {@code cartridge}; its aggregates and live files are
     * replaced by those given. A file read from it whose pnfsid is live on another cartridge wins unless the
     * other copy's aggregate was written later; the losing copy is moved to deleted_files ('superseded') and,
     * if tapeq wrote it, its size is added to its cartridge's reclaimable bytes. A file deleted at or after
     * the write time of its copy here (and not live here before) is not brought back. The sizes of files
     * read from this cartridge that are not live on it are added to {@code cartridge.reclaimableBytes()}.
     * Files the catalog had on this cartridge that are not among {@code files} are moved to deleted_files
     * ('lost', at {@code cartridge.lastMount()}).
     */
    @Override
    public void replaceCartridgeContents(CartridgeRecord cartridge, List<AggregateRecord> aggregates,
                                         List<FileRecord> files) {
        Objects.requireNonNull(cartridge, "cartridge");
        Objects.requireNonNull(aggregates, "aggregates");
        Objects.requireNonNull(files, "files");
        String barcode = Objects.requireNonNull(cartridge.barcode(), "barcode");
        Objects.requireNonNull(cartridge.state(), "state");
        Map<Integer, AggregateRecord> byTapeFile = new HashMap<>();
        for (AggregateRecord a : aggregates) {
            if (!barcode.equals(a.cartridge())) {
                throw new IllegalArgumentException("aggregate " + a.cartridge() + "/" + a.tapeFile()
                        + " is not on cartridge " + barcode);
            }
            if (byTapeFile.put(a.tapeFile(), a) != null) {
                throw new IllegalArgumentException("tape file " + a.tapeFile() + " of " + barcode + " given twice");
            }
        }
        Map<String, FileRecord> incoming = new LinkedHashMap<>();
        for (FileRecord f : files) {
            Objects.requireNonNull(f.pnfsid(), "pnfsid");
            if (!barcode.equals(f.cartridge()) || !byTapeFile.containsKey(f.tapeFile())) {
                throw new IllegalArgumentException("file " + f.pnfsid() + " at " + f.cartridge() + "/"
                        + f.tapeFile() + " is not in one of the given aggregates of " + barcode);
            }
            if (incoming.put(f.pnfsid(), f) != null) {
                throw new IllegalArgumentException("file " + f.pnfsid() + " given twice for " + barcode);
            }
        }
        transaction("replaceCartridgeContents", "cartridge " + barcode, () -> {
            PreparedStatement ps = statement("SELECT " + FILE_COLUMNS + " FROM files WHERE cartridge = ?"
                    + dialect.forUpdate);
            ps.setString(1, barcode);
            Set<String> liveHere = new HashSet<>();
            List<FileRecord> lost = new ArrayList<>();
            for (FileRecord old : fileRecords(ps)) {
                liveHere.add(old.pnfsid());
                if (!incoming.containsKey(old.pnfsid())) {
                    lost.add(old);
                }
            }
            archive(lost, REASON_LOST, cartridge.lastMount());
            PreparedStatement deleteFiles = statement("DELETE FROM files WHERE cartridge = ?");
            deleteFiles.setString(1, barcode);
            deleteFiles.executeUpdate();
            PreparedStatement deleteAggregates = statement("DELETE FROM aggregates WHERE cartridge = ?");
            deleteAggregates.setString(1, barcode);
            deleteAggregates.executeUpdate();

            CartridgeRows.replace(this::statement, cartridge);
            for (AggregateRecord a : aggregates) {
                insertAggregate(a);
            }

            long deadHere = 0;
            Map<String, Long> reclaimElsewhere = new HashMap<>();
            List<FileRecord> all = new ArrayList<>(incoming.values());
            for (int from = 0; from < all.size(); from += MAX_IN) {
                List<FileRecord> chunk = all.subList(from, Math.min(all.size(), from + MAX_IN));
                List<String> chunkIds = chunk.stream().map(FileRecord::pnfsid).toList();
                Map<String, FileRecord> elsewhere = liveFiles(chunkIds);
                Map<String, Long> writtenElsewhere = writtenAt(elsewhere.values());
                Map<String, Long> deletedAt = lastDeletion(chunkIds);
                List<FileRecord> superseded = new ArrayList<>();
                List<Long> supersededAt = new ArrayList<>();
                PreparedStatement upsert = batch(UPSERT_FILE);
                int inserts = 0;
                for (FileRecord f : chunk) {
                    long writtenHere = byTapeFile.get(f.tapeFile()).writtenAt();
                    FileRecord other = elsewhere.get(f.pnfsid());
                    Long otherWritten = writtenElsewhere.get(f.pnfsid());
                    Long deleted = deletedAt.get(f.pnfsid());
                    boolean deletedAfterWrite = other == null && !liveHere.contains(f.pnfsid())
                            && deleted != null && deleted >= writtenHere;
                    if (deletedAfterWrite || otherWritten != null && otherWritten > writtenHere) {
                        deadHere += f.size();
                        continue;
                    }
                    if (other != null) {
                        superseded.add(other);
                        supersededAt.add(writtenHere);
                        if (!other.isHint()) {
                            reclaimElsewhere.merge(other.cartridge(), other.size(), Long::sum);
                        }
                    }
                    bindFile(upsert, 1, f);
                    upsert.addBatch();
                    inserts++;
                }
                if (inserts > 0) {
                    upsert.executeBatch();
                }
                archive(superseded, REASON_SUPERSEDED, supersededAt);
            }
            reclaimElsewhere.merge(barcode, deadHere, Long::sum);
            addReclaimable(reclaimElsewhere);
            return null;
        });
    }

    @Override
    public void recordVerification(Verification v) {
        Objects.requireNonNull(v, "verification");
        Objects.requireNonNull(v.barcode(), "verification barcode");
        transaction("recordVerification", "cartridge " + v.barcode(), () -> {
            PreparedStatement ps = statement(UPSERT_VERIFICATION);
            ps.setString(1, v.barcode());
            ps.setLong(2, v.verifiedAt());
            ps.setInt(3, v.sampled() ? 1 : 0);
            ps.setInt(4, v.filesGood());
            ps.setInt(5, v.filesBad());
            ps.setInt(6, v.filesUnreadable());
            ps.setString(7, v.summary());
            ps.executeUpdate();
            PreparedStatement clear = statement("DELETE FROM verification_findings WHERE barcode = ?");
            clear.setString(1, v.barcode());
            clear.executeUpdate();
            if (!v.findings().isEmpty()) {
                PreparedStatement insert = batch(INSERT_FINDING);
                for (Verification.Finding f : v.findings()) {
                    insert.setString(1, v.barcode());
                    insert.setString(2, f.pnfsid());
                    insert.setInt(3, f.tapeFile());
                    insert.setInt(4, f.bad() ? 1 : 0);
                    insert.setString(5, f.reason());
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            return null;
        });
    }

    @Override
    public Optional<Verification> lastVerification(String barcode) {
        return read("lastVerification", "cartridge " + barcode, () -> {
            PreparedStatement ps = statement("SELECT " + VERIFICATION_COLUMNS
                    + " FROM cartridge_verifications WHERE barcode = ?");
            ps.setString(1, barcode);
            List<Verification> found = CatalogRows.list(ps, CatalogRows::verification);
            if (found.isEmpty()) {
                return Optional.<Verification>empty();
            }
            PreparedStatement findings = statement("SELECT " + FINDING_COLUMNS
                    + " FROM verification_findings WHERE barcode = ? ORDER BY tape_file, pnfsid");
            findings.setString(1, barcode);
            Verification v = found.get(0);
            return Optional.of(new Verification(v.barcode(), v.verifiedAt(), v.sampled(), v.filesGood(),
                    v.filesBad(), v.filesUnreadable(), v.summary(), CatalogRows.list(findings, CatalogRows::finding)));
        });
    }

    @Override
    public void putDrive(DriveRecord drive) {
        Objects.requireNonNull(drive, "drive");
        Objects.requireNonNull(drive.id(), "drive id");
        transaction("putDrive", "drive " + drive.id(), () -> {
            PreparedStatement ps = statement(UPSERT_DRIVE);
            bindDrive(ps, drive);
            ps.executeUpdate();
            return null;
        });
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (leases.held() != null && !leaseLost) {
                try {
                    leases.release();
                } catch (RuntimeException e) {
                    LOG.warn("Catalog {}: releasing the site lease: {}", description, e.getMessage());
                }
            }
            closed = true;
            closeStatements();
            try {
                leases.close();
                connections.close();
            } catch (SQLException e) {
                throw new CatalogException("close " + description + ": " + e.getMessage(), e);
            }
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- site lease (SiteLeases)

    /**
     * The holder learnt that its lease is lost (taken over, or lapsed while the catalog was unreachable): {@link
     * #close} does not try to release it, which could only wait for an unreachable server. Writes stay fenced.
     */
    public void leaseLost() {
        leaseLost = true;
    }

    /**
     * Takes the site's lease for this process (see {@link SiteLeases}): free, lapsed at {@code now}, released, or
     * held by a dead process of this host. From now on every write of this catalog is fenced by it. A catalog
     * opened by {@link #openBeforeLease} on an older schema is migrated now, fenced by the lease just taken.
     *
     * @throws CatalogLeaseException if another process holds a live lease on the site
     */
    public SiteLease acquireLease(String site, String holder, String host, long pid, long now, long ttlMillis) {
        SiteLease taken = leases.acquire(site, holder, host, pid, now, ttlMillis);
        if (migrationPending) {
            migrate(false); // opened before the lease on an older schema: now this process holds the site (fenced)
        }
        return taken;
    }

    /**
     * Moves the held lease's expiry to {@code now + ttl}, refused ({@link CatalogLeaseException}) if another
     * process took it over. On PostgreSQL it runs on a connection of its own and never waits for the catalog's
     * lock, so a slow or stuck write cannot hold it up; it gives up after a third of the lease's length. On
     * SQLite it runs as a write.
     */
    @Override
    public void renewLease(long now) {
        leases.renew(now);
    }

    /**
     * The live lease of another process that keeps {@code holder} of {@code host} from taking the site at {@code
     * now} (by the rules of {@link #acquireLease}), or empty if it may take it. Reads the row without locking it,
     * so a standby that asks before each attempt never makes the holder's writes or renewal wait.
     */
    public Optional<SiteLease> leaseKeepingOut(String site, String holder, String host, long now) {
        return leases.keepingOut(site, holder, host, now);
    }

    /** The lease this catalog holds, or null. */
    public SiteLease heldLease() {
        return leases.held();
    }

    /** The site's lease row as the database has it now, or empty. */
    public Optional<SiteLease> lease(String site) {
        return leases.current(site);
    }

    /** For tests: the /proc tree that tells whether a lease holder of this host is dead. */
    void procRoot(Path proc) {
        leases.procRoot(proc);
    }

    /** For tests and diagnostics: a SQLite PRAGMA's value on the catalog's own connection. */
    String sqlitePragma(String name) {
        if (dialect != Dialect.SQLITE || !name.matches("[a-z_]+")) {
            throw new IllegalArgumentException("not a SQLite pragma query: " + name);
        }
        return read("pragma", name, () -> {
            try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("PRAGMA " + name)) {
                return rs.next() ? rs.getString(1) : null;
            }
        });
    }

    @Override
    public String toString() {
        return "JdbcCatalog[" + description + "]";
    }

    // ---------------------------------------------------------------- helpers (called with the lock held)

    /** The live rows of these pnfsids (in chunks of at most {@link #MAX_IN}), locked for update on PostgreSQL. */
    private Map<String, FileRecord> liveFiles(List<String> pnfsids) throws SQLException {
        return liveFiles(pnfsids, dialect.forUpdate);
    }

    private Map<String, FileRecord> liveFiles(List<String> pnfsids, String suffix) throws SQLException {
        Map<String, FileRecord> result = new HashMap<>();
        for (int from = 0; from < pnfsids.size(); from += MAX_IN) {
            List<String> chunk = pnfsids.subList(from, Math.min(pnfsids.size(), from + MAX_IN));
            PreparedStatement ps = inStatement("SELECT " + FILE_COLUMNS + " FROM files WHERE pnfsid IN ",
                    suffix, chunk.size());
            bindIn(ps, 1, chunk);
            for (FileRecord f : fileRecords(ps)) {
                result.put(f.pnfsid(), f);
            }
        }
        return result;
    }

    private void deleteLive(Collection<String> pnfsids) throws SQLException {
        List<String> list = new ArrayList<>(pnfsids);
        PreparedStatement ps = inStatement("DELETE FROM files WHERE pnfsid IN ", "", list.size());
        bindIn(ps, 1, list);
        ps.executeUpdate();
    }

    /** Time of the latest deletion of each of these pnfsids (at most {@link #MAX_IN}) that was deleted. */
    private Map<String, Long> lastDeletion(List<String> pnfsids) throws SQLException {
        PreparedStatement ps = inStatement("SELECT pnfsid, MAX(deleted_at) FROM deleted_files WHERE reason = '"
                + REASON_DELETED + "' AND pnfsid IN ", " GROUP BY pnfsid", pnfsids.size());
        bindIn(ps, 1, pnfsids);
        Map<String, Long> result = new HashMap<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                result.put(rs.getString(1), rs.getLong(2));
            }
        }
        return result;
    }

    /** Write time of the aggregate holding each tapeq-written file, by pnfsid. */
    private Map<String, Long> writtenAt(Collection<FileRecord> locations) throws SQLException {
        Map<String, Long> result = new HashMap<>();
        PreparedStatement ps = statement("SELECT written_at FROM aggregates WHERE cartridge = ? AND tape_file = ?");
        for (FileRecord f : locations) {
            if (f.isHint()) {
                continue;
            }
            ps.setString(1, f.cartridge());
            ps.setInt(2, f.tapeFile());
            try (ResultSet rs = ps.executeQuery()) {
                result.put(f.pnfsid(), rs.next() ? rs.getLong(1) : Long.MIN_VALUE);
            }
        }
        return result;
    }

    private void archive(Collection<FileRecord> records, String reason, long when) throws SQLException {
        archive(new ArrayList<>(records), reason, Collections.nCopies(records.size(), when));
    }

    /** Moves copies of these records to deleted_files, the i-th with time {@code when.get(i)}. */
    private void archive(List<FileRecord> records, String reason, List<Long> when) throws SQLException {
        if (records.isEmpty()) {
            return;
        }
        PreparedStatement ps = batch(ARCHIVE_FILE);
        for (int i = 0; i < records.size(); i++) {
            int next = bindFile(ps, 1, records.get(i));
            ps.setString(next, reason);
            ps.setLong(next + 1, when.get(i));
            ps.addBatch();
        }
        ps.executeBatch();
    }

    private void addReclaimable(Map<String, Long> bytesByCartridge) throws SQLException {
        if (bytesByCartridge.isEmpty()) {
            return;
        }
        PreparedStatement ps = batch(ADD_RECLAIMABLE);
        // In barcode order, so concurrent writers on PostgreSQL lock cartridge rows in the same order.
        for (Map.Entry<String, Long> e : new TreeMap<>(bytesByCartridge).entrySet()) {
            if (e.getValue() == 0) {
                continue;
            }
            ps.setLong(1, e.getValue());
            ps.setString(2, e.getKey());
            ps.addBatch();
        }
        ps.executeBatch();
    }

    private void insertAggregate(AggregateRecord a) throws SQLException {
        PreparedStatement ps = statement(INSERT_AGGREGATE);
        bindAggregate(ps, a);
        ps.executeUpdate();
    }

    /** A statement on the running method's connection, cached per SQL text (closed with the connection). */
    PreparedStatement statement(String sql) throws SQLException {
        PreparedStatement ps = statements.get(sql);
        if (ps == null) {
            ps = connection.prepareStatement(sql);
            statements.put(sql, ps);
        }
        return ps;
    }

    /** A cached statement with an empty batch (a failed executeBatch may leave entries behind). */
    private PreparedStatement batch(String sql) throws SQLException {
        PreparedStatement ps = statement(sql);
        ps.clearBatch();
        return ps;
    }

    /** {@code prefix (?, ?, ...) suffix} with the list padded to one of {@link #IN_LENGTHS}. */
    private PreparedStatement inStatement(String prefix, String suffix, int count) throws SQLException {
        int length = paddedLength(count);
        StringBuilder sql = new StringBuilder(prefix.length() + suffix.length() + 3 * length + 2).append(prefix)
                .append('(');
        for (int i = 0; i < length; i++) {
            sql.append(i == 0 ? "?" : ", ?");
        }
        return statement(sql.append(')').append(suffix).toString());
    }

    private static int paddedLength(int count) {
        for (int length : IN_LENGTHS) {
            if (count <= length) {
                return length;
            }
        }
        throw new IllegalArgumentException("IN list of " + count + " > " + MAX_IN);
    }

    /** Binds {@code values} then repeats the last one up to the padded length. */
    private static void bindIn(PreparedStatement ps, int index, List<String> values) throws SQLException {
        int length = paddedLength(values.size());
        for (int i = 0; i < length; i++) {
            ps.setString(index + i, values.get(Math.min(i, values.size() - 1)));
        }
    }

    /** Runs {@code work} in autocommit mode, under the lock. */
    <T> T read(String operation, String subject, Work<T> work) {
        return withConnection(operation, subject, work);
    }

    /** Runs {@code work} as one transaction, fenced by the site lease if one is held; rolls back on any failure. */
    <T> T transaction(String operation, String subject, Work<T> work) {
        return withConnection(operation, subject, () -> {
            try {
                connection.setAutoCommit(false);
                leases.fence(operation, subject);
                T result = work.run();
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                rollback(operation, subject, e);
                throw e;
            } finally {
                try {
                    connection.setAutoCommit(true);
                } catch (SQLException e) {
                    LOG.warn("Catalog {}: {} {}: restoring autocommit failed: {}", description, operation, subject,
                            e.toString());
                }
            }
        });
    }

    /**
     * Runs {@code work} under the lock with a connection; a failure that means the server could not be reached
     * becomes a {@link CatalogUnavailableException} and the connection is not used again.
     */
    private <T> T withConnection(String operation, String subject, Work<T> work) {
        lock.lock();
        try {
            ensureOpen();
            boolean lost = false;
            try {
                connection = connections.acquire();
                return work.run();
            } catch (SQLException | RuntimeException e) {
                if (!(e instanceof CatalogException) && CatalogConnections.isConnectionLoss(e)) {
                    lost = true;
                    throw new CatalogUnavailableException(operation + " " + subject + ": catalog " + description
                            + " unreachable: " + e.getMessage(), e);
                }
                if (!(e instanceof CatalogException) && CatalogConnections.isBusy(e)) {
                    throw new CatalogUnavailableException(operation + " " + subject + ": catalog " + description
                            + " busy (held by another process longer than " + BUSY_TIMEOUT_MS + " ms): "
                            + e.getMessage(), e);
                }
                if (!(e instanceof CatalogException) && CatalogConnections.isTransient(e)) {
                    throw new CatalogUnavailableException(operation + " " + subject + ": catalog " + description
                            + " cannot complete it now (deadlock, serialisation failure, disk full or out of memory;"
                            + " retried): " + e.getMessage(), e);
                }
                if (e instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new CatalogException(operation + " " + subject + ": " + e.getMessage(), e);
            } finally {
                if (connection != null && !connections.keepsStatements()) {
                    closeStatements();
                    connections.release(connection, lost);
                    connection = null;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The connection of the running method (inside {@link #transaction} or {@link #read}). */
    Connection connection() {
        return connection;
    }

    private void closeStatements() {
        for (PreparedStatement ps : statements.values()) {
            try {
                ps.close();
            } catch (SQLException e) {
                LOG.debug("Catalog {}: closing a statement: {}", description, e.toString());
            }
        }
        statements.clear();
    }

    private void rollback(String operation, String subject, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
            LOG.error("Catalog {}: {} {}: rollback failed: {}", description, operation, subject, e.toString());
        }
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("catalog " + description + " is closed");
        }
    }
}
