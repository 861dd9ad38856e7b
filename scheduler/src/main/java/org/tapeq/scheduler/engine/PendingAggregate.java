package org.tapeq.scheduler.engine;

import java.util.ArrayList;
import java.util.List;

/** Files of one family and dataset collected into one tape file; open, then closed and queued for writing. */
final class PendingAggregate {

    final String family;
    final String dataset;
    final String group;
    final long opened;
    final List<FlushItem> members = new ArrayList<>();
    long bytes;
    int priority;
    boolean closed;
    boolean prepared;
    boolean writing;
    /** The checked layout (without a cartridge); set when {@link #prepared}. */
    org.tapeq.scheduler.format.AggregatePlan plan;
    int attempts;
    /** Not written again before this time after a failed write. */
    long notBefore = Long.MIN_VALUE;
    org.tapeq.scheduler.time.EventLoop.Timer closeTimer;

    PendingAggregate(String family, String dataset, String group, long opened) {
        this.family = family;
        this.dataset = dataset;
        this.group = group;
        this.opened = opened;
    }

    void add(FlushItem item) {
        members.add(item);
        item.aggregate = this;
        bytes += item.request.size();
        priority = Math.max(priority, item.request.priority());
    }

    /** Members not cancelled or finished. */
    List<FlushItem> live() {
        List<FlushItem> live = new ArrayList<>(members.size());
        for (FlushItem m : members) {
            if (!m.cancelled && !m.done) {
                live.add(m);
            }
        }
        return live;
    }

    /** Drops finished and cancelled members from the totals. */
    void recount() {
        members.removeIf(m -> m.cancelled || m.done);
        bytes = 0;
        priority = 0;
        for (FlushItem m : members) {
            bytes += m.request.size();
            priority = Math.max(priority, m.request.priority());
        }
    }

    long liveBytes() {
        long sum = 0;
        for (FlushItem m : members) {
            if (!m.cancelled && !m.done) {
                sum += m.request.size();
            }
        }
        return sum;
    }
}
