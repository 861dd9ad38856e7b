package org.tapeq.scheduler.engine.queue;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.time.EventLoop;

/**
 * Which queues may be mounted, sorted so a mount decision takes logarithmic time even with 100 000 queues.
 *
 * <p>A queue is in at most one place: the waiting set (ordered by the time the policy makes it eligible,
 * with one timer for the earliest), or the ready set of its group and direction (ordered by the policy's
 * time-invariant rank). Mounted and blocked queues are in neither. Keys are computed on insertion; a queue
 * whose counters change is removed and re-inserted ({@link #update}).
 */
public final class QueueIndex {

    private static final Comparator<WorkQueue> BY_RANK = (a, b) -> {
        int c = Double.compare(b.rankKey, a.rankKey);
        return c != 0 ? c : Long.compare(a.seq, b.seq);
    };
    private static final Comparator<WorkQueue> BY_ELIGIBLE = (a, b) -> {
        int c = Long.compare(a.eligibleKey, b.eligibleKey);
        return c != 0 ? c : Long.compare(a.seq, b.seq);
    };

    /** Ready queues of one group, split by direction so direction caps can skip a whole set. */
    public static final class GroupSets {
        private final String group;
        private final TreeSet<WorkQueue> reads = new TreeSet<>(BY_RANK);
        private final TreeSet<WorkQueue> writes = new TreeSet<>(BY_RANK);
        private int drivesInUse;

        GroupSets(String group) {
            this.group = group;
        }

        public String group() {
            return group;
        }

        /** Ready queues with reads, best first. */
        public Iterable<WorkQueue> reads() {
            return reads;
        }

        /** Ready queues with writes only, best first. */
        public Iterable<WorkQueue> writes() {
            return writes;
        }

        public boolean isEmpty() {
            return reads.isEmpty() && writes.isEmpty();
        }

        /** Drives accounted to the group (kept here by dispatch's accounting). */
        public int drivesInUse() {
            return drivesInUse;
        }

        public void driveTaken() {
            drivesInUse++;
        }

        public void driveFreed() {
            drivesInUse--;
        }
    }

    private final MountPolicy policy;
    private final EventLoop loop;
    private final Runnable onEligible;
    private final TreeSet<WorkQueue> waiting = new TreeSet<>(BY_ELIGIBLE);
    private final Map<String, GroupSets> groups = new HashMap<>();
    private EventLoop.Timer timer;
    private long timerAt = Long.MAX_VALUE;
    private int readyCount;

    public QueueIndex(MountPolicy policy, EventLoop loop, Runnable onEligible) {
        this.policy = policy;
        this.loop = loop;
        this.onEligible = onEligible;
    }

    public GroupSets group(String name) {
        return groups.computeIfAbsent(name, GroupSets::new);
    }

    public Map<String, GroupSets> groups() {
        return groups;
    }

    public int readyCount() {
        return readyCount;
    }

    public int waitingCount() {
        return waiting.size();
    }

    /** Re-files the queue after a change: into the waiting or ready set, or nowhere if it has no work. */
    public void update(WorkQueue q) {
        remove(q);
        if (q.isEmpty()) {
            return;
        }
        q.eligibleKey = policy.eligibleAt(q);
        q.rankKey = policy.rank(q);
        if (q.eligibleKey <= loop.now()) {
            addReady(q);
        } else {
            q.slot = WorkQueue.Slot.WAITING;
            waiting.add(q);
            arm();
        }
    }

    /** Takes the queue out of the index (it is being mounted, blocked, or emptied). */
    public void remove(WorkQueue q) {
        switch (q.slot) {
            case WAITING -> waiting.remove(q);
            case READY -> {
                GroupSets g = group(q.group());
                (q.writeOnlyKeyed ? g.writes : g.reads).remove(q);
                readyCount--;
            }
            default -> {
            }
        }
        if (q.slot == WorkQueue.Slot.WAITING || q.slot == WorkQueue.Slot.READY) {
            q.slot = WorkQueue.Slot.NONE;
        }
    }

    /** Moves the queues whose time has come into the ready sets. */
    public void promoteDue(long now) {
        WorkQueue q;
        while ((q = waiting.isEmpty() ? null : waiting.first()) != null && q.eligibleKey <= now) {
            waiting.pollFirst();
            addReady(q);
        }
        arm();
    }

    private void addReady(WorkQueue q) {
        q.writeOnlyKeyed = q.writeOnly();
        GroupSets g = group(q.group());
        (q.writeOnlyKeyed ? g.writes : g.reads).add(q);
        q.slot = WorkQueue.Slot.READY;
        readyCount++;
    }

    private void arm() {
        long next = waiting.isEmpty() ? Long.MAX_VALUE : waiting.first().eligibleKey;
        if (next == timerAt) {
            return;
        }
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        timerAt = next;
        if (next != Long.MAX_VALUE) {
            timer = loop.schedule(Math.max(0, next - loop.now()), () -> {
                timer = null;
                timerAt = Long.MAX_VALUE;
                onEligible.run();
            });
        }
    }
}
