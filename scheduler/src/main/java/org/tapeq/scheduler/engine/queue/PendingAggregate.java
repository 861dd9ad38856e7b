package org.tapeq.scheduler.engine.queue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.tapeq.scheduler.format.AggregatePlan;
import org.tapeq.scheduler.time.EventLoop;

/**
 * Files of one family and dataset collected into one tape file: open, then closed and checked (off the loop),
 * then queued for writing; written, or put back after a failed write.
 */
public final class PendingAggregate {

    private final String family;
    private final String dataset;
    private final String group;
    private final long opened;
    private final List<FlushItem> members = new ArrayList<>();
    private final List<FlushItem> membersView = Collections.unmodifiableList(members);
    private long bytes;
    private int priority;
    private boolean closed;
    private boolean prepared;
    private boolean writing;
    /** The checked layout (without a cartridge); set when prepared. */
    private AggregatePlan plan;
    private int attempts;
    /** Not written again before this time after a failed write. */
    private long notBefore = Long.MIN_VALUE;
    private EventLoop.Timer closeTimer;

    public PendingAggregate(String family, String dataset, String group, long opened) {
        this.family = family;
        this.dataset = dataset;
        this.group = group;
        this.opened = opened;
    }

    public String family() {
        return family;
    }

    public String dataset() {
        return dataset;
    }

    public String group() {
        return group;
    }

    /** When its first file arrived. */
    public long opened() {
        return opened;
    }

    /** Its members, finished and cancelled ones included until {@link #recount()}. */
    public List<FlushItem> members() {
        return membersView;
    }

    public long bytes() {
        return bytes;
    }

    public int priority() {
        return priority;
    }

    public void add(FlushItem item) {
        members.add(item);
        item.addedTo(this);
        bytes += item.request().size();
        priority = Math.max(priority, item.request().priority());
    }

    /** Members not cancelled or finished. */
    public List<FlushItem> live() {
        List<FlushItem> live = new ArrayList<>(members.size());
        for (FlushItem m : members) {
            if (!m.cancelled() && !m.done()) {
                live.add(m);
            }
        }
        return live;
    }

    /** How many members {@link #live} lists. */
    public int liveCount() {
        int n = 0;
        for (FlushItem m : members) {
            if (!m.cancelled() && !m.done()) {
                n++;
            }
        }
        return n;
    }

    /** Drops finished and cancelled members from the totals. */
    public void recount() {
        members.removeIf(m -> m.cancelled() || m.done());
        bytes = 0;
        priority = 0;
        for (FlushItem m : members) {
            bytes += m.request().size();
            priority = Math.max(priority, m.request().priority());
        }
    }

    public long liveBytes() {
        long sum = 0;
        for (FlushItem m : members) {
            if (!m.cancelled() && !m.done()) {
                sum += m.request().size();
            }
        }
        return sum;
    }

    public boolean closed() {
        return closed;
    }

    /** Closes it for new members and stops its close timer; returns false if it was closed already. */
    public boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        cancelCloseTimer();
        return true;
    }

    /** Opens it again so it is checked once more (a source changed while it was written). */
    public void reopen() {
        closed = false;
        prepared = false;
    }

    /** Closes it when this timer fires, unless it closes earlier. */
    public void closeAt(EventLoop.Timer timer) {
        closeTimer = timer;
    }

    public void cancelCloseTimer() {
        if (closeTimer != null) {
            closeTimer.cancel();
            closeTimer = null;
        }
    }

    /** The check off the loop is done: {@code checked} is the layout of the good members. */
    public void prepared(AggregatePlan checked) {
        plan = checked;
        prepared = true;
    }

    public boolean isPrepared() {
        return prepared;
    }

    /** The checked layout, without a cartridge. */
    public AggregatePlan plan() {
        return plan;
    }

    public boolean writing() {
        return writing;
    }

    public void writing(boolean on) {
        writing = on;
    }

    public int attempts() {
        return attempts;
    }

    /** Counts a failed write; returns the attempts so far. */
    public int failedAttempt() {
        return ++attempts;
    }

    public long notBefore() {
        return notBefore;
    }

    public void notBefore(long at) {
        notBefore = at;
    }
}
