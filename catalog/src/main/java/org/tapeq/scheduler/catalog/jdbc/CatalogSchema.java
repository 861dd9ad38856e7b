package org.tapeq.scheduler.catalog.jdbc;

import java.util.List;

/**
 * The catalog's tables and the SQL that reads and writes them: plain SQL that SQLite and PostgreSQL both
 * accept. The design is described at the top of {@link JdbcCatalog}.
 */
final class CatalogSchema {

    /** A file's location, shared by the live and the deleted files. */
    private static final String LOCATION_COLUMNS = " cartridge TEXT NOT NULL, tape_file INTEGER NOT NULL,"
            + " block_no BIGINT NOT NULL, offset_bytes BIGINT NOT NULL, size BIGINT NOT NULL, checksum TEXT,"
            + " storage_class TEXT, path TEXT, dataset TEXT, hint_order BIGINT NOT NULL";

    static final String REASON_DELETED = "deleted";
    static final String REASON_SUPERSEDED = "superseded";
    static final String REASON_LOST = "lost";

    /** Migration n (1-based) is MIGRATIONS[n - 1]. Append only; never edit a released one. */
    static final List<List<String>> MIGRATIONS = List.of(List.of(
            "CREATE TABLE cartridges ("
                    + " barcode TEXT NOT NULL PRIMARY KEY,"
                    + " media_type TEXT,"
                    + " family TEXT,"
                    + " state TEXT NOT NULL,"
                    + " capacity_bytes BIGINT NOT NULL,"
                    + " used_bytes BIGINT NOT NULL,"
                    + " reclaimable_bytes BIGINT NOT NULL,"
                    + " tape_files INTEGER NOT NULL,"
                    + " mount_count BIGINT NOT NULL,"
                    + " last_mount BIGINT NOT NULL,"
                    + " disabled INTEGER NOT NULL,"
                    + " reason TEXT)",
            "CREATE TABLE aggregates ("
                    + " cartridge TEXT NOT NULL REFERENCES cartridges (barcode),"
                    + " tape_file INTEGER NOT NULL,"
                    + " start_block BIGINT NOT NULL,"
                    + " block_count BIGINT NOT NULL,"
                    + " block_size INTEGER NOT NULL,"
                    + " bytes BIGINT NOT NULL,"
                    + " member_count INTEGER NOT NULL,"
                    + " family TEXT,"
                    + " dataset TEXT,"
                    + " written_at BIGINT NOT NULL,"
                    + " PRIMARY KEY (cartridge, tape_file))",
            "CREATE TABLE files (pnfsid TEXT NOT NULL PRIMARY KEY," + LOCATION_COLUMNS + ")",
            "CREATE INDEX files_tape_order ON files (cartridge, tape_file, offset_bytes, hint_order)",
            "CREATE INDEX files_dataset ON files (dataset, cartridge, tape_file)",
            "CREATE TABLE deleted_files (pnfsid TEXT NOT NULL," + LOCATION_COLUMNS + ","
                    + " reason TEXT NOT NULL,"
                    + " deleted_at BIGINT NOT NULL)",
            "CREATE INDEX deleted_files_pnfsid ON deleted_files (pnfsid)",
            "CREATE TABLE drives ("
                    + " id TEXT NOT NULL PRIMARY KEY,"
                    + " up INTEGER NOT NULL,"
                    + " reason TEXT,"
                    + " error_count INTEGER NOT NULL,"
                    + " updated_at BIGINT NOT NULL)"),
            // 2: the site lease (SiteLease): who may write this catalog, and the fencing epoch.
            List.of("CREATE TABLE site_lease (site TEXT NOT NULL PRIMARY KEY, holder TEXT NOT NULL,"
                    + " host TEXT NOT NULL, pid BIGINT NOT NULL, epoch BIGINT NOT NULL, acquired_at BIGINT NOT NULL,"
                    + " expires_at BIGINT NOT NULL)"),
            // 3: the last verification of each cartridge (Verification) and every file it found bad or unreadable.
            List.of("CREATE TABLE cartridge_verifications (barcode TEXT NOT NULL PRIMARY KEY,"
                    + " verified_at BIGINT NOT NULL, sampled INTEGER NOT NULL, files_good INTEGER NOT NULL,"
                    + " files_bad INTEGER NOT NULL, files_unreadable INTEGER NOT NULL, summary TEXT NOT NULL)",
                    "CREATE TABLE verification_findings (barcode TEXT NOT NULL"
                    + " REFERENCES cartridge_verifications (barcode), pnfsid TEXT NOT NULL,"
                    + " tape_file INTEGER NOT NULL, bad INTEGER NOT NULL, reason TEXT NOT NULL,"
                    + " PRIMARY KEY (barcode, pnfsid))"),
            // 4: the repack job of each cartridge (RepackJob).
            List.of(RepackRows.CREATE_TABLE),
            // 5: the cartridges being relabelled (RelabelIntent).
            List.of(RelabelRows.CREATE_TABLE),
            // 6: the media type a repack writes to, and the media migrations (MigrationJob).
            List.of(RepackRows.ADD_TARGET_MEDIA, MigrationRows.CREATE_TABLE),
            // 7: operator settings that outlive a restart (the reclamation pause).
            List.of(SettingRows.CREATE_TABLE));

    static final String VERIFICATION_COLUMNS = "barcode, verified_at, sampled, files_good, files_bad, "
            + "files_unreadable, summary";
    static final String UPSERT_VERIFICATION = "INSERT INTO cartridge_verifications (" + VERIFICATION_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (barcode) DO UPDATE SET verified_at = excluded.verified_at,"
            + " sampled = excluded.sampled, files_good = excluded.files_good, files_bad = excluded.files_bad,"
            + " files_unreadable = excluded.files_unreadable, summary = excluded.summary";

    static final String FINDING_COLUMNS = "pnfsid, tape_file, bad, reason";
    static final String INSERT_FINDING = "INSERT INTO verification_findings (barcode, " + FINDING_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?)";

    static final String LEASE_COLUMNS = "site, holder, host, pid, epoch, acquired_at, expires_at";

    static final String FILE_COLUMNS = "pnfsid, cartridge, tape_file, block_no, offset_bytes, size, "
            + "checksum, storage_class, path, dataset, hint_order";
    static final String FILE_PARAMS = "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?";
    static final String CARTRIDGE_COLUMNS = "barcode, media_type, family, state, capacity_bytes, "
            + "used_bytes, reclaimable_bytes, tape_files, mount_count, last_mount, disabled, reason";
    static final String AGGREGATE_COLUMNS = "cartridge, tape_file, start_block, block_count, block_size, "
            + "bytes, member_count, family, dataset, written_at";
    static final String DRIVE_COLUMNS = "id, up, reason, error_count, updated_at";

    static final String UPSERT_FILE = "INSERT INTO files (" + FILE_COLUMNS + ") VALUES (" + FILE_PARAMS
            + ") ON CONFLICT (pnfsid) DO UPDATE SET cartridge = excluded.cartridge,"
            + " tape_file = excluded.tape_file, block_no = excluded.block_no,"
            + " offset_bytes = excluded.offset_bytes, size = excluded.size, checksum = excluded.checksum,"
            + " storage_class = excluded.storage_class, path = excluded.path, dataset = excluded.dataset,"
            + " hint_order = excluded.hint_order";
    /**
     * A hint is inserted unless the file was deleted, and replaces only a different hint: a tapeq-written
     * location (tape_file >= 0) is never touched, and an unknown size (-1) does not replace a known one. The
     * update count is 1 exactly when something was stored.
     */
    static final String PUT_HINT = "INSERT INTO files (" + FILE_COLUMNS + ") SELECT " + FILE_PARAMS
            + " WHERE NOT EXISTS (SELECT 1 FROM deleted_files d WHERE d.pnfsid = ? AND d.reason = '"
            + REASON_DELETED + "')"
            + " ON CONFLICT (pnfsid) DO UPDATE SET cartridge = excluded.cartridge,"
            + " size = CASE WHEN excluded.size >= 0 THEN excluded.size ELSE files.size END,"
            + " hint_order = excluded.hint_order"
            + " WHERE files.tape_file < 0 AND (files.cartridge <> excluded.cartridge"
            + " OR files.hint_order <> excluded.hint_order"
            + " OR (excluded.size >= 0 AND files.size <> excluded.size))";
    static final String ARCHIVE_FILE = "INSERT INTO deleted_files (" + FILE_COLUMNS
            + ", reason, deleted_at) VALUES (" + FILE_PARAMS + ", ?, ?)";
    static final String INSERT_AGGREGATE = "INSERT INTO aggregates (" + AGGREGATE_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String UPSERT_DRIVE = "INSERT INTO drives (" + DRIVE_COLUMNS + ") VALUES (?, ?, ?, ?, ?)"
            + " ON CONFLICT (id) DO UPDATE SET up = excluded.up, reason = excluded.reason,"
            + " error_count = excluded.error_count, updated_at = excluded.updated_at";
    static final String ADD_RECLAIMABLE =
            "UPDATE cartridges SET reclaimable_bytes = reclaimable_bytes + ? WHERE barcode = ?";

    private CatalogSchema() {
    }
}
