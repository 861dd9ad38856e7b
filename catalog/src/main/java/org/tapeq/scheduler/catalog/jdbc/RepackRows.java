package org.tapeq.scheduler.catalog.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import org.tapeq.scheduler.catalog.RepackJob;

/**
 * The repack jobs' table (schema 4, {@code repack_jobs}, one row per source cartridge; schema 5 added its
 * {@code target_media}) and its SQL, kept out of
 * {@link JdbcCatalog}, which runs it inside its own transactions and reads.
 */
final class RepackRows {

    /** Migration 4. */
    static final String CREATE_TABLE = "CREATE TABLE repack_jobs (source TEXT NOT NULL PRIMARY KEY"
            + " REFERENCES cartridges (barcode), target_family TEXT NOT NULL, state TEXT NOT NULL,"
            + " requested_at BIGINT NOT NULL, ended_at BIGINT NOT NULL, files_total INTEGER NOT NULL,"
            + " bytes_total BIGINT NOT NULL, files_failed INTEGER NOT NULL, summary TEXT)";

    /** Migration 5: the media type a repack writes to (null: any). */
    static final String ADD_TARGET_MEDIA = "ALTER TABLE repack_jobs ADD COLUMN target_media TEXT";

    private static final String COLUMNS = "source, target_family, state, requested_at, ended_at, files_total,"
            + " bytes_total, files_failed, summary, target_media";
    private static final String UPSERT = "INSERT INTO repack_jobs (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
            + " ?)"
            + " ON CONFLICT (source) DO UPDATE SET target_family = excluded.target_family, state = excluded.state,"
            + " requested_at = excluded.requested_at, ended_at = excluded.ended_at,"
            + " files_total = excluded.files_total, bytes_total = excluded.bytes_total,"
            + " files_failed = excluded.files_failed, summary = excluded.summary,"
            + " target_media = excluded.target_media";
    private static final String SELECT_ALL = "SELECT " + COLUMNS + " FROM repack_jobs ORDER BY source";

    /** The catalog's cached statements, on its connection. */
    @FunctionalInterface
    interface Statements {
        PreparedStatement get(String sql) throws SQLException;
    }

    private RepackRows() {
    }

    static void put(Statements statements, RepackJob job) throws SQLException {
        PreparedStatement ps = statements.get(UPSERT);
        ps.setString(1, job.source());
        ps.setString(2, job.targetFamily());
        ps.setString(3, job.state());
        ps.setLong(4, job.requestedAt());
        ps.setLong(5, job.endedAt());
        ps.setInt(6, job.filesTotal());
        ps.setLong(7, job.bytesTotal());
        ps.setInt(8, job.filesFailed());
        CatalogRows.setNullableString(ps, 9, job.summary());
        CatalogRows.setNullableString(ps, 10, job.targetMedia());
        ps.executeUpdate();
    }

    static List<RepackJob> all(Statements statements) throws SQLException {
        return CatalogRows.list(statements.get(SELECT_ALL), RepackRows::job);
    }

    private static RepackJob job(ResultSet rs) throws SQLException {
        return new RepackJob(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5),
                rs.getInt(6), rs.getLong(7), rs.getInt(8), rs.getString(9), rs.getString(10));
    }
}
