package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/**
 * What a repack reads, in tape order: one read per unit. An aggregate whose live members fill at least
 * {@link #WHOLE_READ_FRACTION} of the span from its first live member to its last is read as one range (the
 * dead members in between stream past and are dropped); a sparser one is read member by member, each a locate
 * and a read of that member alone. Streaming costs time per dead byte, a locate costs seconds per member: at half
 * the span dead, reading through is at most twice the live bytes, while a locate per member wins only when the
 * dead gaps are large. A unit bigger than the spool is read member by member too (a member bigger than the
 * spool is read alone). Files known only from ENDIT hints (no tapeq aggregate) cannot be read by tapeq's format
 * and are listed apart: they stay on the source.
 */
record RepackPlan(List<Unit> units, List<FileRecord> hints, int files, long bytes) {

    /** Live share of an aggregate's span at and above which it is read as one range. */
    static final double WHOLE_READ_FRACTION = 0.5;

    /** One read: members of one aggregate in tape order, read as one range. */
    record Unit(AggregateRecord aggregate, List<FileRecord> members) {
        long liveBytes() {
            long sum = 0;
            for (FileRecord f : members) {
                sum += f.size();
            }
            return sum;
        }

        /** Tape-file offset of the first byte read. */
        long start() {
            return members.get(0).offset();
        }

        /** Bytes from the first member's first byte to the last member's last. */
        long span() {
            FileRecord last = members.get(members.size() - 1);
            return last.offset() + last.size() - start();
        }
    }

    static RepackPlan of(List<AggregateRecord> aggregates, List<FileRecord> liveFiles, long spoolBytes) {
        Map<Integer, List<FileRecord>> byTapeFile = new LinkedHashMap<>();
        List<FileRecord> hints = new ArrayList<>();
        for (FileRecord f : liveFiles) {
            if (f.isHint()) {
                hints.add(f);
            } else {
                byTapeFile.computeIfAbsent(f.tapeFile(), k -> new ArrayList<>()).add(f);
            }
        }
        List<Unit> units = new ArrayList<>();
        for (AggregateRecord a : aggregates) {
            List<FileRecord> members = byTapeFile.remove(a.tapeFile());
            if (members == null) {
                continue;
            }
            members.sort((x, y) -> Long.compare(x.offset(), y.offset()));
            Unit whole = new Unit(a, List.copyOf(members));
            if (whole.liveBytes() >= WHOLE_READ_FRACTION * whole.span() && whole.liveBytes() <= spoolBytes) {
                units.add(whole);
            } else {
                for (FileRecord f : members) {
                    units.add(new Unit(a, List.of(f)));
                }
            }
        }
        // live files whose aggregate row is missing cannot be located: listed with the hints, left in place
        byTapeFile.values().forEach(hints::addAll);
        int files = 0;
        long bytes = 0;
        for (Unit u : units) {
            files += u.members().size();
            bytes += u.liveBytes();
        }
        return new RepackPlan(List.copyOf(units), List.copyOf(hints), files, bytes);
    }
}
