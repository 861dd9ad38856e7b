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
 * @param groups   per group: every queue with work (reads of cartridges, writes of families)
 * @param families per family: its write queue (files waiting to be written)
 */
public record SchedulerLoad(long now, Map<String, Load> groups, Map<String, Load> families) {

    /**
     * @param oldestArrival loop time the oldest waiting request arrived, or {@code Long.MAX_VALUE} if none
     */
    public record Load(int queues, long files, long bytes, long oldestArrival) {

        static final Load NONE = new Load(0, 0, 0, Long.MAX_VALUE);

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
            if (!q.isEmpty()) {
                groups.put(q.group(), groups.getOrDefault(q.group(), Load.NONE).plus(q));
            }
        }
        for (WorkQueue q : e.queues.familyQueues()) {
            if (!q.isEmpty()) {
                groups.put(q.group(), groups.getOrDefault(q.group(), Load.NONE).plus(q));
                families.put(q.family(), families.getOrDefault(q.family(), Load.NONE).plus(q));
            }
        }
        return new SchedulerLoad(e.loop.now(), groups, families);
    }
}
