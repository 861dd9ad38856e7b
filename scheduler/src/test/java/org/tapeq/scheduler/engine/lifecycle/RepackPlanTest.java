package org.tapeq.scheduler.engine.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/** Which reads a repack makes: whole ranges for mostly-live aggregates, members of sparse ones. */
class RepackPlanTest {

    private static final int BS = 262_144;

    /** Aggregate {@code tapeFile} of {@code count} members of {@code size} bytes after a 512-byte header each. */
    private static List<FileRecord> members(int tapeFile, int count, long size) {
        List<FileRecord> m = new ArrayList<>();
        long offset = BS;
        for (int i = 0; i < count; i++) {
            offset += 512;
            m.add(new FileRecord(String.format("%04X%04X", tapeFile, i), "A00001L9", tapeFile,
                    1000L * tapeFile + offset / BS, offset, size, null, null, null, "ds", 0));
            offset += size;
        }
        return m;
    }

    private static AggregateRecord aggregate(int tapeFile, List<FileRecord> all) {
        FileRecord last = all.get(all.size() - 1);
        long bytes = last.offset() + last.size() + 1024;
        return new AggregateRecord("A00001L9", tapeFile, 1000L * tapeFile, bytes / BS + 1, BS, bytes, all.size(),
                "raw", "ds", 0);
    }

    @Test
    void of_mostlyLiveOneRange_sparseMemberByMember_hintsApart() {
        List<FileRecord> dense = members(1, 6, 1_000_000);
        List<FileRecord> sparse = members(2, 6, 1_000_000);
        FileRecord hint = new FileRecord("FFFF", "A00001L9", -1, -1, -1, 5, null, null, null, null, 1);
        List<FileRecord> live = new ArrayList<>();
        live.addAll(dense.subList(0, 5)); // 5 of 6 live: one range, the first to the fifth member
        live.add(sparse.get(0)); // the first and the last of 6: a third of the span live
        live.add(sparse.get(5));
        live.add(hint);

        RepackPlan plan = RepackPlan.of(List.of(aggregate(1, dense), aggregate(2, sparse)), live, 100_000_000);

        assertEquals(3, plan.units().size());
        assertEquals(dense.subList(0, 5), plan.units().get(0).members());
        assertEquals(List.of(sparse.get(0)), plan.units().get(1).members());
        assertEquals(List.of(sparse.get(5)), plan.units().get(2).members());
        assertEquals(List.of(hint), plan.hints());
        assertEquals(7, plan.files());
        assertEquals(7_000_000, plan.bytes());
        assertEquals(dense.get(0).offset(), plan.units().get(0).start());
    }

    @Test
    void of_aggregateLargerThanTheSpool_readMemberByMember() {
        List<FileRecord> dense = members(1, 4, 1_000_000);

        RepackPlan plan = RepackPlan.of(List.of(aggregate(1, dense)), dense, 2_500_000);

        assertEquals(4, plan.units().size());
        plan.units().forEach(u -> assertEquals(1, u.members().size()));
    }
}
