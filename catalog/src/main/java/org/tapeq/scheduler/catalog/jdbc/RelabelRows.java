package org.tapeq.scheduler.catalog.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import org.tapeq.scheduler.catalog.RelabelIntent;

/**
 * The relabel intents' table (schema 5, {@code relabel_intents}, one row per cartridge being relabelled) and the SQL
 * of a relabel's commit, kept out of {@link JdbcCatalog}, which runs it inside its own transactions and reads.
 */
final class RelabelRows {

    /** Migration 5. */
    static final String CREATE_TABLE = "CREATE TABLE relabel_intents (barcode TEXT NOT NULL PRIMARY KEY"
            + " REFERENCES cartridges (barcode), family TEXT NOT NULL, requested_at BIGINT NOT NULL)";

    private static final String UPSERT = "INSERT INTO relabel_intents (barcode, family, requested_at)"
            + " VALUES (?, ?, ?) ON CONFLICT (barcode) DO UPDATE SET family = excluded.family,"
            + " requested_at = excluded.requested_at";
    private static final String SELECT_ALL = "SELECT barcode, family, requested_at FROM relabel_intents"
            + " ORDER BY barcode";
    private static final String COUNT_LIVE = "SELECT COUNT(*) FROM files WHERE cartridge = ?";
    private static final String DELETE_AGGREGATES = "DELETE FROM aggregates WHERE cartridge = ?";
    private static final String DELETE_OLD_COPIES = "DELETE FROM deleted_files WHERE cartridge = ? AND reason IN ('"
            + CatalogSchema.REASON_SUPERSEDED + "', '" + CatalogSchema.REASON_LOST + "')";
    private static final String DELETE_INTENT = "DELETE FROM relabel_intents WHERE barcode = ?";
    private static final String DELETE_FINDINGS = "DELETE FROM verification_findings WHERE barcode = ?";
    private static final String DELETE_VERIFICATION = "DELETE FROM cartridge_verifications WHERE barcode = ?";

    private RelabelRows() {
    }

    /** Refuses if any file (hints included) is live on the cartridge. */
    static void requireNoLiveFile(RepackRows.Statements statements, String barcode) throws SQLException {
        PreparedStatement ps = statements.get(COUNT_LIVE);
        ps.setString(1, barcode);
        try (ResultSet rs = ps.executeQuery()) {
            long live = rs.next() ? rs.getLong(1) : 0;
            if (live > 0) {
                throw new IllegalStateException("cartridge " + barcode + " still holds " + live
                        + " live files; it is not relabelled");
            }
        }
    }

    static void put(RepackRows.Statements statements, RelabelIntent intent) throws SQLException {
        PreparedStatement ps = statements.get(UPSERT);
        ps.setString(1, intent.barcode());
        ps.setString(2, intent.family());
        ps.setLong(3, intent.requestedAt());
        ps.executeUpdate();
    }

    static List<RelabelIntent> all(RepackRows.Statements statements) throws SQLException {
        return CatalogRows.list(statements.get(SELECT_ALL),
                rs -> new RelabelIntent(rs.getString(1), rs.getString(2), rs.getLong(3)));
    }

    /**
     * Forgets the tape files of a relabelled cartridge, its verification (a relabelled cartridge has no
     * verification history: the periodic policy must not take it for recently verified) and its intent (the
     * caller stores the fresh record).
     */
    static void forgetTapeFiles(RepackRows.Statements statements, String barcode) throws SQLException {
        for (String sql : List.of(DELETE_AGGREGATES, DELETE_OLD_COPIES, DELETE_FINDINGS, DELETE_VERIFICATION,
                DELETE_INTENT)) {
            PreparedStatement ps = statements.get(sql);
            ps.setString(1, barcode);
            ps.executeUpdate();
        }
    }
}
