package org.tapeq.scheduler.catalog.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The operator settings' table (schema 7, {@code settings}, one row per name: value and when it was set) and its
 * SQL, kept out of {@link JdbcCatalog}, which runs it inside its own transactions and reads.
 */
final class SettingRows {

    /** Migration 7. */
    static final String CREATE_TABLE = "CREATE TABLE settings (name TEXT NOT NULL PRIMARY KEY,"
            + " value TEXT NOT NULL, updated_at BIGINT NOT NULL)";

    private static final String UPSERT = "INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?)"
            + " ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at";
    private static final String SELECT = "SELECT value FROM settings WHERE name = ?";

    private SettingRows() {
    }

    static void put(RepackRows.Statements statements, String name, String value, long now) throws SQLException {
        PreparedStatement ps = statements.get(UPSERT);
        ps.setString(1, name);
        ps.setString(2, value);
        ps.setLong(3, now);
        ps.executeUpdate();
    }

    static Optional<String> get(RepackRows.Statements statements, String name) throws SQLException {
        PreparedStatement ps = statements.get(SELECT);
        ps.setString(1, name);
        List<String> values = CatalogRows.list(ps, rs -> rs.getString(1));
        return values.stream().findFirst();
    }
}
