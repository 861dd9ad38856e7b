package org.tapeq.scheduler.catalog.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

import org.tapeq.scheduler.catalog.MigrationJob;

/**
 * The media migrations' table (schema 6, {@code migration_jobs}, one row per migration) and its SQL, kept out of
 * {@link JdbcCatalog}, which runs it inside its own transactions and reads. A migration's cartridges are one
 * space-separated column: barcodes hold no space, and the list is written once.
 */
final class MigrationRows {

    /** Migration 6. */
    static final String CREATE_TABLE = "CREATE TABLE migration_jobs (id TEXT NOT NULL PRIMARY KEY,"
            + " from_media TEXT NOT NULL, to_media TEXT NOT NULL, family TEXT, state TEXT NOT NULL,"
            + " requested_at BIGINT NOT NULL, ended_at BIGINT NOT NULL, cartridges TEXT NOT NULL,"
            + " bytes_total BIGINT NOT NULL, summary TEXT)";

    private static final String COLUMNS = "id, from_media, to_media, family, state, requested_at, ended_at,"
            + " cartridges, bytes_total, summary";
    private static final String UPSERT = "INSERT INTO migration_jobs (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?,"
            + " ?, ?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state, ended_at = excluded.ended_at,"
            + " summary = excluded.summary";
    private static final String SELECT_ALL = "SELECT " + COLUMNS + " FROM migration_jobs ORDER BY requested_at, id";

    private MigrationRows() {
    }

    static void put(RepackRows.Statements statements, MigrationJob job) throws SQLException {
        PreparedStatement ps = statements.get(UPSERT);
        ps.setString(1, job.id());
        ps.setString(2, job.fromMedia());
        ps.setString(3, job.toMedia());
        CatalogRows.setNullableString(ps, 4, job.family());
        ps.setString(5, job.state());
        ps.setLong(6, job.requestedAt());
        ps.setLong(7, job.endedAt());
        ps.setString(8, String.join(" ", job.cartridges()));
        ps.setLong(9, job.bytesTotal());
        CatalogRows.setNullableString(ps, 10, job.summary());
        ps.executeUpdate();
    }

    static List<MigrationJob> all(RepackRows.Statements statements) throws SQLException {
        return CatalogRows.list(statements.get(SELECT_ALL), MigrationRows::job);
    }

    private static MigrationJob job(ResultSet rs) throws SQLException {
        String list = rs.getString(8);
        return new MigrationJob(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getLong(6), rs.getLong(7), list.isEmpty() ? List.of() : Arrays.asList(list.split(" ")),
                rs.getLong(9), rs.getString(10));
    }
}
