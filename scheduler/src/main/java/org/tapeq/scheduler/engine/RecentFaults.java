package org.tapeq.scheduler.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

import org.tapeq.scheduler.model.FaultKind;

/**
 * The last {@value #CAPACITY} faults the engine met, for the status: when, on which drive and cartridge, of which
 * kind, and why. The oldest is dropped when a new one comes; the counters ({@link Counters}) keep the totals.
 * Loop-confined, owned by the {@link Engine}.
 */
final class RecentFaults {

    /** How many faults are kept. */
    static final int CAPACITY = 50;

    private final ArrayDeque<SchedulerStatus.Fault> faults = new ArrayDeque<>(CAPACITY);

    /** Records a fault at loop time {@code at}; {@code drive} and {@code cartridge} may be null (none involved). */
    void add(long at, FaultKind kind, String drive, String cartridge, String reason) {
        if (faults.size() == CAPACITY) {
            faults.removeLast();
        }
        faults.addFirst(new SchedulerStatus.Fault(at, kind.name().toLowerCase(Locale.ROOT), drive, cartridge,
                reason));
    }

    /** The faults kept, newest first. */
    List<SchedulerStatus.Fault> newestFirst() {
        List<SchedulerStatus.Fault> list = new ArrayList<>(faults.size());
        for (Iterator<SchedulerStatus.Fault> it = faults.iterator(); it.hasNext(); ) {
            list.add(it.next());
        }
        return list;
    }
}
