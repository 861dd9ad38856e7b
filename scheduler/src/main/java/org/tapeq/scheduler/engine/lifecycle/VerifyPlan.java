package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/**
 * The aggregates a verification reads, in tape order, each with its live members: every aggregate holding a
 * live file, or a sample of {@code n} spread evenly over the cartridge (the first and, for n > 1, the last
 * included). Aggregates whose files were all removed are not read.
 */
record VerifyPlan(List<Unit> units, boolean sampled) {

    /** One tape file to read and the members to check in it. */
    record Unit(AggregateRecord aggregate, List<FileRecord> members) {
    }

    /** {@code sample} 0: every aggregate. */
    static VerifyPlan of(List<AggregateRecord> aggregates, List<FileRecord> liveFiles, int sample) {
        Map<Integer, List<FileRecord>> byTapeFile = new LinkedHashMap<>();
        for (FileRecord f : liveFiles) {
            if (!f.isHint()) {
                byTapeFile.computeIfAbsent(f.tapeFile(), k -> new ArrayList<>()).add(f);
            }
        }
        List<Unit> all = new ArrayList<>();
        for (AggregateRecord a : aggregates) {
            List<FileRecord> members = byTapeFile.get(a.tapeFile());
            if (members != null) {
                members.sort((x, y) -> Long.compare(x.offset(), y.offset()));
                all.add(new Unit(a, List.copyOf(members)));
            }
        }
        if (sample <= 0 || sample >= all.size()) {
            return new VerifyPlan(List.copyOf(all), false);
        }
        List<Unit> picked = new ArrayList<>(sample);
        for (int i = 0; i < sample; i++) {
            int index = sample == 1 ? 0 : (int) ((long) i * (all.size() - 1) / (sample - 1));
            picked.add(all.get(index));
        }
        return new VerifyPlan(List.copyOf(picked), true);
    }

    int files() {
        int n = 0;
        for (Unit u : units) {
            n += u.members().size();
        }
        return n;
    }
}
