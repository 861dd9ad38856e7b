package org.tapeq.scheduler.engine.drive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.tapeq.scheduler.engine.queue.FlushItem;
import org.tapeq.scheduler.engine.queue.PendingAggregate;
import org.tapeq.scheduler.format.AggregateMember;
import org.tapeq.scheduler.format.AggregatePlan;
import org.tapeq.scheduler.model.TapeFault;

/** The engine's use of the on-tape format for writes: check members off the loop, lay out at write time. */
public final class AggregateFormat {

    private AggregateFormat() {
    }

    /** Result of the pre-pass: the plan of the good members (without a cartridge yet) and the rejected ones. */
    public record Checked(AggregatePlan plan, Map<FlushItem, TapeFault> rejected) {
    }

    /**
     * Blocking I/O: checks each source and computes missing checksums. Two requests for one pnfsid share one
     * member (and its outcome).
     */
    public static Checked prepare(PendingAggregate agg, List<FlushItem> items, long now, int blockSize,
                                  AggregatePlan.ChecksumCheck check) {
        Map<String, FlushItem> first = new LinkedHashMap<>();
        for (FlushItem item : items) {
            first.putIfAbsent(item.request().pnfsid(), item);
        }
        List<AggregateMember> members = new ArrayList<>(first.size());
        for (FlushItem item : first.values()) {
            members.add(member(item));
        }
        AggregatePlan.Prepared prepared = AggregatePlan.prepare("", agg.family(), agg.dataset(), now, members,
                blockSize, check);
        Map<FlushItem, TapeFault> rejected = new HashMap<>();
        for (AggregatePlan.Rejected r : prepared.rejected()) {
            for (FlushItem item : items) {
                if (item.request().pnfsid().equals(r.member().pnfsid())) {
                    rejected.put(item, r.fault());
                }
            }
        }
        return new Checked(prepared.plan(), rejected);
    }

    private static AggregateMember member(FlushItem item) {
        return new AggregateMember(item.request().pnfsid(), item.request().size(), item.request().checksum(),
                item.request().storageClass(), item.request().path(), item.dataset(), item.request().source(),
                item.request().origin().sources());
    }

    /** The plan for writing on {@code barcode}, without members cancelled since the pre-pass. No I/O. */
    static AggregatePlan forWrite(AggregatePlan checked, String barcode, List<FlushItem> live) {
        Set<String> keep = new HashSet<>();
        for (FlushItem item : live) {
            keep.add(item.request().pnfsid());
        }
        return checked.relayout(barcode, m -> keep.contains(m.pnfsid()));
    }
}
