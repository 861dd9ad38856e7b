package org.tapeq.scheduler.catalog.jdbc;

import static org.tapeq.scheduler.catalog.jdbc.CatalogRows.bindCartridge;
import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.CARTRIDGE_COLUMNS;

import java.sql.PreparedStatement;
import java.sql.SQLException;

import org.tapeq.scheduler.catalog.CartridgeRecord;

/**
 * The two ways a cartridge row is written, kept out of {@link JdbcCatalog}, which runs them inside its transactions.
 *
 * <p>Design note: the usage counters of a cartridge ({@code used_bytes}, {@code tape_files},
 * {@code reclaimable_bytes}, {@code mount_count}, {@code last_mount}) belong to the catalog: the statements that
 * commit aggregates, delete or supersede files and count mounts change them in place. A caller's record is a copy
 * that may predate those statements, so {@link #put} writes them only when it creates the row, and otherwise
 * changes just what the caller owns (media, family, state, capacity, disabled, reason). Only what rebuilds a
 * cartridge's whole contents ({@link #replace}: a rebuild from tape, a relabel) sets the counters outright.
 */
final class CartridgeRows {

    private static final String INSERT = "INSERT INTO cartridges (" + CARTRIDGE_COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (barcode) DO UPDATE SET";
    private static final String PUT = INSERT
            + " media_type = excluded.media_type, family = excluded.family, state = excluded.state,"
            + " capacity_bytes = excluded.capacity_bytes, disabled = excluded.disabled, reason = excluded.reason";
    private static final String REPLACE = PUT
            + ", used_bytes = excluded.used_bytes, reclaimable_bytes = excluded.reclaimable_bytes,"
            + " tape_files = excluded.tape_files, mount_count = excluded.mount_count,"
            + " last_mount = excluded.last_mount";

    private CartridgeRows() {
    }

    /** Inserts the cartridge, or changes its state, family, media, capacity and flags, keeping its counters. */
    static void put(RepackRows.Statements statements, CartridgeRecord c) throws SQLException {
        write(statements.get(PUT), c);
    }

    /** Inserts or replaces the whole row, counters included: only for a cartridge whose contents are replaced. */
    static void replace(RepackRows.Statements statements, CartridgeRecord c) throws SQLException {
        write(statements.get(REPLACE), c);
    }

    private static void write(PreparedStatement ps, CartridgeRecord c) throws SQLException {
        bindCartridge(ps, c);
        ps.executeUpdate();
    }
}
