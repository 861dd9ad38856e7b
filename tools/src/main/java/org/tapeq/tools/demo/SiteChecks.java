package org.tapeq.tools.demo;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the three-host demo reads from the catalog after the campaign: work recorded twice. A file of the demo
 * is flushed once, so a file the catalog superseded (recorded on tape a second time) was written twice; two tape
 * files of one cartridge whose blocks overlap are two writers that appended at the same place. A cartridge the
 * library appended more tape files to than the catalog records holds writes whose record never came.
 */
final class SiteChecks {

    private static final String SUPERSEDED = "SELECT count(*) FROM deleted_files WHERE reason = 'superseded'";
    private static final String OVERLAPS = "SELECT count(*) FROM aggregates a JOIN aggregates b"
            + " ON a.cartridge = b.cartridge AND a.tape_file < b.tape_file"
            + " AND a.start_block < b.start_block + b.block_count AND b.start_block < a.start_block + a.block_count";
    private static final String WRITTEN = "SELECT count(DISTINCT cartridge) FROM files";
    private static final String TAPE_FILES = "SELECT cartridge, count(*) FROM aggregates GROUP BY cartridge";

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
            r.unrecordedTapeFiles = unrecorded(r, s);
            r.cartridgesWritten = (int) count(s, WRITTEN);
        } catch (SQLException e) {
            throw new IOException("reading the catalog " + url.replaceAll("\\?.*", "") + ": " + e.getMessage(), e);
        }
    }

    /**
     * Tape files the library appended beyond those the catalog records, per cartridge: files written to tape
     * whose record never came (e.g. their writer, mover m1, killed after the append and before the record; the
     * scheduler writes those files again). Not counted as work done twice: the kill in the middle of a write
     * makes them; the summary shows them.
     */
    private static long unrecorded(DemoResult r, Statement s) throws SQLException {
        Map<String, Long> catalogued = new TreeMap<>();
        try (ResultSet rs = s.executeQuery(TAPE_FILES)) {
            while (rs.next()) {
                catalogued.put(rs.getString(1), rs.getLong(2));
            }
        }
        long extra = 0;
        for (Map.Entry<String, Long> e : r.filesWrittenByLibrary.entrySet()) {
            long n = e.getValue() - catalogued.getOrDefault(e.getKey(), 0L);
            if (n > 0) {
                r.unrecordedByCartridge.put(e.getKey(), n);
                extra += n;
            }
        }
        return extra;
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
