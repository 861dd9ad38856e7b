package org.tapeq.scheduler.catalog.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/** Binds records to statement parameters and maps rows to records, in {@link CatalogSchema}'s column orders. */
final class CatalogRows {
    private CatalogRows() {
    }

    /** Binds the eleven file columns from {@code index}; returns the next free index. */
    static int bindFile(PreparedStatement ps, int index, FileRecord f) throws SQLException {
        ps.setString(index, f.pnfsid());
        ps.setString(index + 1, f.cartridge());
        ps.setInt(index + 2, f.tapeFile());
        ps.setLong(index + 3, f.block());
        ps.setLong(index + 4, f.offset());
        ps.setLong(index + 5, f.size());
        setNullableString(ps, index + 6, f.checksum());
        setNullableString(ps, index + 7, f.storageClass());
        setNullableString(ps, index + 8, f.path());
        setNullableString(ps, index + 9, f.dataset());
        ps.setLong(index + 10, f.hintOrder());
        return index + 11;
    }

    static void setNullableString(PreparedStatement ps, int index, String value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.VARCHAR);
        } else {
            ps.setString(index, value);
        }
    }

    static List<FileRecord> fileRecords(PreparedStatement ps) throws SQLException {
        return list(ps, CatalogRows::fileRecord);
    }

    /** One row mapped to a record. */
    interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    /** Every row of the statement's result, mapped. */
    static <T> List<T> list(PreparedStatement ps, RowMapper<T> mapper) throws SQLException {
        List<T> result = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                result.add(mapper.map(rs));
            }
        }
        return result;
    }

    static FileRecord fileRecord(ResultSet rs) throws SQLException {
        return new FileRecord(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getLong(4), rs.getLong(5),
                rs.getLong(6), rs.getString(7), rs.getString(8), rs.getString(9), rs.getString(10), rs.getLong(11));
    }

    static AggregateRecord aggregateRecord(ResultSet rs) throws SQLException {
        return new AggregateRecord(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getLong(4), rs.getInt(5),
                rs.getLong(6), rs.getInt(7), rs.getString(8), rs.getString(9), rs.getLong(10));
    }

    static CartridgeRecord cartridgeRecord(ResultSet rs) throws SQLException {
        return new CartridgeRecord(rs.getString(1), rs.getString(2), rs.getString(3),
                CartridgeState.valueOf(rs.getString(4)), rs.getLong(5), rs.getLong(6), rs.getLong(7), rs.getInt(8),
                rs.getLong(9), rs.getLong(10), rs.getInt(11) != 0, rs.getString(12));
    }

    static void bindAggregate(PreparedStatement ps, AggregateRecord a) throws SQLException {
        ps.setString(1, a.cartridge());
        ps.setInt(2, a.tapeFile());
        ps.setLong(3, a.startBlock());
        ps.setLong(4, a.blockCount());
        ps.setInt(5, a.blockSize());
        ps.setLong(6, a.bytes());
        ps.setInt(7, a.memberCount());
        setNullableString(ps, 8, a.family());
        setNullableString(ps, 9, a.dataset());
        ps.setLong(10, a.writtenAt());
    }

    static void bindCartridge(PreparedStatement ps, CartridgeRecord c) throws SQLException {
        ps.setString(1, c.barcode());
        setNullableString(ps, 2, c.mediaType());
        setNullableString(ps, 3, c.family());
        ps.setString(4, c.state().name());
        ps.setLong(5, c.capacityBytes());
        ps.setLong(6, c.usedBytes());
        ps.setLong(7, c.reclaimableBytes());
        ps.setInt(8, c.tapeFiles());
        ps.setLong(9, c.mountCount());
        ps.setLong(10, c.lastMount());
        ps.setInt(11, c.disabled() ? 1 : 0);
        setNullableString(ps, 12, c.reason());
    }

    static void bindDrive(PreparedStatement ps, DriveRecord d) throws SQLException {
        ps.setString(1, d.id());
        ps.setInt(2, d.up() ? 1 : 0);
        setNullableString(ps, 3, d.reason());
        ps.setInt(4, d.errorCount());
        ps.setLong(5, d.updatedAt());
    }

    static DriveRecord driveRecord(ResultSet rs) throws SQLException {
        return new DriveRecord(rs.getString(1), rs.getInt(2) != 0, rs.getString(3), rs.getInt(4), rs.getLong(5));
    }

    static org.tapeq.scheduler.catalog.Verification verification(ResultSet rs) throws SQLException {
        return new org.tapeq.scheduler.catalog.Verification(rs.getString(1), rs.getLong(2), rs.getInt(3) != 0,
                rs.getInt(4), rs.getInt(5), rs.getInt(6), rs.getString(7), List.of());
    }

    static org.tapeq.scheduler.catalog.Verification.Finding finding(ResultSet rs) throws SQLException {
        return new org.tapeq.scheduler.catalog.Verification.Finding(rs.getString(1), rs.getInt(2),
                rs.getInt(3) != 0, rs.getString(4));
    }
}
