package org.tapeq.scheduler.catalog.jdbc;

import java.util.ArrayList;
import java.util.List;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/** Builders for catalog records in the catalog module's tests (public: the hint-import tests use them too). */
public final class Records {
    public static final long CAPACITY = 18_000_000_000_000L;
    public static final int BLOCK_SIZE = 262_144;

    private Records() {
    }

    /** A Chimera-style pnfsid (36 hex digits) made from {@code n}. */
    public static String pnfsid(long n) {
        return String.format("0000%032X", n);
    }

    public static CartridgeRecord cartridge(String barcode, String family) {
        return new CartridgeRecord(barcode, "LTO9", family, CartridgeState.APPENDABLE, CAPACITY, 0, 0, 0, 0, 0,
                false, null);
    }

    public static AggregateRecord aggregate(String barcode, int tapeFile, List<FileRecord> members, String family,
                                     String dataset, long writtenAt) {
        long bytes = BLOCK_SIZE + members.stream().mapToLong(FileRecord::size).sum();
        return new AggregateRecord(barcode, tapeFile, 1000L * tapeFile, bytes / BLOCK_SIZE + 1, BLOCK_SIZE, bytes,
                members.size(), family, dataset, writtenAt);
    }

    /** Members with pnfsids {@code first .. first+count-1}, each {@code size} bytes, packed after a manifest. */
    public static List<FileRecord> members(String barcode, int tapeFile, long first, int count, long size,
                                    String dataset) {
        List<FileRecord> members = new ArrayList<>();
        long offset = BLOCK_SIZE;
        for (int i = 0; i < count; i++) {
            members.add(new FileRecord(pnfsid(first + i), barcode, tapeFile, 1000L * tapeFile + offset / BLOCK_SIZE,
                    offset, size, "adler32:0a1b2c3d", "atlas:raw", "/pnfs/test/f" + (first + i), dataset, 0));
            offset += size;
        }
        return members;
    }

    public static FileRecord hint(String pnfsid, String volid, long order, long size) {
        return new FileRecord(pnfsid, volid, -1, -1, -1, size, null, null, null, null, order);
    }
}
