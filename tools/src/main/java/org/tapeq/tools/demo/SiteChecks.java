package org.tapeq.tools.demo;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What the three-host demo reads from the catalog after the campaign: work recorded twice. A file of the demo
 * is flushed once, so a file the catalog superseded (recorded on tape a second time) was written twice; two tape
 * files of one cartridge whose blocks overlap are two writers that appended at the same place.
 */
final class SiteChecks {

    private static final String SUPERSEDED = "SELECT count(*) FROM deleted_files WHERE reason = 'superseded'";
    private static final String OVERLAPS = "SELECT count(*) FROM aggregates a JOIN aggregates b"
            + " ON a.cartridge = b.cartridge AND a.tape_file < b.tape_file"
            + " AND a.start_block < b.start_block + b.block_count AND b.start_block < a.start_block + a.block_count";
    private static final String WRITTEN = "SELECT count(DISTINCT cartridge) FROM files";

    private SiteChecks() {
    }

    /** Adds the catalog's double records to {@code r.duplicated} and the cartridges written. */
    static void catalog(DemoResult r, String url) throws IOException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            long superseded = count(s, SUPERSEDED);
            long overlaps = count(s, OVERLAPS);
            if (superseded > 0) {
                r.failures.add(superseded + " file(s) recorded on tape twice (superseded in the catalog)");
            }
            if (overlaps > 0) {
                r.failures.add(overlaps + " pair(s) of tape files written over each other on one cartridge");
            }
            r.duplicated += superseded + overlaps;
            r.cartridgesWritten = (int) count(s, WRITTEN);
        } catch (SQLException e) {
            throw new IOException("reading the catalog " + url.replaceAll("\\?.*", "") + ": " + e.getMessage(), e);
        }
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
