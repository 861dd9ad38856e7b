package org.tapeq.scheduler.engine;

import java.util.Map;
import java.util.TreeMap;

import org.tapeq.scheduler.engine.queue.WorkQueue;

/**
 * The work waiting, summed per fair-share group and per tape family, for metrics. Built on the loop from the
 * queues' own running totals (one step per queue with work, never per request), so a scrape costs the same
 * with ten million requests queued as with ten.
 *
 * @param now      loop time of the snapshot
 * @param groups   per group: its queues with work (reads of cartridges, writes of families); a group whose
 *                 queues are empty is there with {@link Load#NONE}
 * @param families per family: its write queue (files waiting to be written), or {@link Load#NONE}
 */
public record SchedulerLoad(long now, Map<String, Load> groups, Map<String, Load> families) {

    /**
     * @param oldestArrival loop time the oldest waiting request arrived, or {@code Long.MAX_VALUE} if none
     */
    public record Load(int queues, long files, long bytes, long oldestArrival) {

        /** Nothing waiting. */
        public static final Load NONE = new Load(0, 0, 0, Long.MAX_VALUE);

        Load plus(WorkQueue q) {
            return new Load(queues + 1, files + q.files(), bytes + q.bytes(),
                    Math.min(oldestArrival, q.oldestArrival()));
        }

        /** Seconds since the oldest waiting request arrived, at loop time {@code now}; 0 if none waits. */
        public double oldestAgeSeconds(long now) {
            return oldestArrival == Long.MAX_VALUE ? 0 : Math.max(0, now - oldestArrival) / 1000.0;
        }
    }

    static SchedulerLoad of(Engine e) {
        Map<String, Load> groups = new TreeMap<>();
        Map<String, Load> families = new TreeMap<>();
        for (WorkQueue q : e.queues.cartridgeQueues()) {
            add(groups, q.group(), q);
        }
        for (WorkQueue q : e.queues.familyQueues()) {
            add(groups, q.group(), q);
            add(families, q.family(), q);
        }
        return new SchedulerLoad(e.loop.now(), groups, families);
    }

    /** A queue without work still names its group or family (at zero): a name once used stays a series. */
    private static void add(Map<String, Load> into, String name, WorkQueue q) {
        if (name == null || name.isEmpty()) {
            return;
        }
        Load sum = into.getOrDefault(name, Load.NONE);
        into.put(name, q.isEmpty() ? sum : sum.plus(q));
    }
}
