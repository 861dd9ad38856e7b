package org.tapeq.scheduler.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.queue.FlushItem;
import org.tapeq.scheduler.engine.queue.PendingAggregate;
import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.engine.queue.WorkQueue;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.time.EventLoop;

/**
 * Requests that cannot be served at all, on the loop: with every drive out of service nothing moves
 * ({@link #NO_DRIVE}); a family with writes and no appendable cartridge cannot flush ({@link #NO_CARTRIDGE}).
 *
 * <p>Design notes. After every dispatch (which runs after each event that can change the answer) this notes
 * when each condition began; that costs a look at the drives and the family queues, never at the requests.
 * Once a condition has lasted {@code blockedLimit}, the requests waiting on it fail through {@link RequestEnds}
 * with rc 1 (retriable: the pool sends them again) and a message saying why, and so do requests arriving while
 * it lasts; a request being read or written is left to finish. A timer at the moment the limit is reached makes
 * sure the failures happen even if nothing else wakes the dispatcher. The requests waiting on each condition
 * are counted only when the status is taken, without listing them: the stages from each queue's own count
 * ({@link WorkQueue#queuedReads}, O(1)), the flushes by their aggregates. Listing a million queued stages into
 * lists four times a second took most of the loop's CPU during a restart with every drive down.
 */
final class Stalls {

    /** Every drive is out of service: no request moves. */
    static final String NO_DRIVE = "no_drive";
    /** A family has writes and no appendable cartridge: its flushes do not move. */
    static final String NO_CARTRIDGE = "no_cartridge";

    private static final Logger LOG = LoggerFactory.getLogger(Stalls.class);
    private static final long NOT_BLOCKED = Long.MIN_VALUE;

    private final Engine e;
    private long noDriveSince = NOT_BLOCKED;
    /** Family to when it was first seen without an appendable cartridge. */
    private final Map<String, Long> familySince = new HashMap<>();
    private EventLoop.Timer timer;
    private long timerAt = Long.MAX_VALUE;

    Stalls(Engine e) {
        this.e = e;
    }

    /** After each dispatch: notes when each condition began, fails what has waited too long. */
    void observe() {
        long now = e.loop.now();
        boolean noDrive = allDrivesDown();
        noDriveSince = noDrive ? (noDriveSince == NOT_BLOCKED ? now : noDriveSince) : NOT_BLOCKED;
        Map<String, WorkQueue> blockedFamilies = blockedFamilies();
        familySince.keySet().retainAll(blockedFamilies.keySet());
        for (String f : blockedFamilies.keySet()) {
            familySince.putIfAbsent(f, now);
        }
        long limit = e.tuning.blockedLimitMillis();
        if (limit == 0) {
            arm(Long.MAX_VALUE, now);
            return;
        }
        long next = Long.MAX_VALUE;
        if (noDriveSince != NOT_BLOCKED) {
            if (now - noDriveSince >= limit) {
                failAll(now);
            } else {
                next = noDriveSince + limit;
            }
        }
        for (Map.Entry<String, WorkQueue> f : blockedFamilies.entrySet()) {
            long since = familySince.get(f.getKey());
            if (now - since >= limit) {
                failFamily(f.getValue(), now - since);
            } else {
                next = Math.min(next, since + limit);
            }
        }
        arm(next, now);
    }

    /** The requests waiting on each condition and since when; both conditions always listed. */
    Map<String, SchedulerStatus.Blocked> snapshot() {
        Map<String, SchedulerStatus.Blocked> out = new HashMap<>();
        long stages = 0;
        long flushes = 0;
        if (noDriveSince != NOT_BLOCKED) {
            for (WorkQueue q : e.queues.cartridgeQueues()) {
                stages += q.queuedReads();
                flushes += countQueuedWrites(q.writesView());
            }
            for (WorkQueue q : e.queues.familyQueues()) {
                flushes += countQueuedWrites(q.writesView());
            }
            flushes += countQueuedWrites(e.aggregator.open().values());
        }
        out.put(NO_DRIVE, new SchedulerStatus.Blocked(stages + flushes, noDriveSince == NOT_BLOCKED ? 0 : noDriveSince));
        long familyFlushes = 0;
        long earliest = 0;
        for (Map.Entry<String, Long> f : familySince.entrySet()) {
            WorkQueue q = e.queues.familyQueueIfAny(f.getKey());
            familyFlushes += q == null ? 0 : countQueuedWrites(q.writesView())
                    + countQueuedWrites(familyOpen(q.family()));
            earliest = earliest == 0 ? f.getValue() : Math.min(earliest, f.getValue());
        }
        out.put(NO_CARTRIDGE, new SchedulerStatus.Blocked(familyFlushes, earliest));
        return out;
    }

    private boolean allDrivesDown() {
        for (DriveRunner d : e.dispatcher.drives()) {
            if (!d.isDown()) {
                return false;
            }
        }
        return true;
    }

    /** Family queues with writes that found no appendable cartridge at their last try. */
    private Map<String, WorkQueue> blockedFamilies() {
        Map<String, WorkQueue> out = new HashMap<>();
        for (WorkQueue q : e.queues.familyQueues()) {
            if (q.hasWrites() && q.writers() == 0 && q.blockedReason() != null) {
                out.put(q.family(), q);
            }
        }
        return out;
    }

    private void failAll(long now) {
        String why = "every drive has been out of service for " + minutes(now - noDriveSince)
                + " (scheduler.blockedLimit " + minutes(e.tuning.blockedLimitMillis()) + "); rc "
                + ReturnCodes.FAILED
                + ": the pool may retry, tapeq serves it as soon as a drive is back in service";
        int failed = 0;
        for (WorkQueue q : e.queues.cartridgeQueues()) {
            for (StageItem item : queuedReads(q)) {
                e.ends.finish(item, failure(FaultKind.DRIVE, "not staged: " + why));
                failed++;
            }
            failed += failWrites(q, FaultKind.DRIVE, why);
        }
        for (WorkQueue q : e.queues.familyQueues()) {
            failed += failWrites(q, FaultKind.DRIVE, why);
        }
        for (FlushItem item : queuedWrites(e.aggregator.open().values())) {
            e.aggregator.ended(item, failure(FaultKind.DRIVE, "not flushed: " + why));
            failed++;
        }
        if (failed > 0) {
            LOG.error("{} request(s) failed: {}", failed, why);
        }
    }

    private void failFamily(WorkQueue q, long blockedFor) {
        String why = "no appendable cartridge of family " + q.family() + " for " + minutes(blockedFor)
                + " (scheduler.blockedLimit " + minutes(e.tuning.blockedLimitMillis()) + "); rc "
                + ReturnCodes.FAILED
                + ": the pool may retry, tapeq flushes as soon as a cartridge of the family is labelled or enabled";
        int failed = failWrites(q, FaultKind.TAPE_FULL, why);
        for (FlushItem item : queuedWrites(familyOpen(q.family()))) {
            e.aggregator.ended(item, failure(FaultKind.TAPE_FULL, "not flushed: " + why));
            failed++;
        }
        if (failed > 0) {
            LOG.error("{} flush(es) failed: {}", failed, why);
        }
    }

    /** Fails the queue's waiting writes and drops the aggregates left empty (none is being written). */
    private int failWrites(WorkQueue q, FaultKind kind, String why) {
        List<FlushItem> items = queuedWrites(q.writesView());
        for (FlushItem item : items) {
            e.aggregator.ended(item, failure(kind, "not flushed: " + why));
        }
        if (!q.isHeld()) {
            while (q.peekWrite() != null && !q.peekWrite().writing() && q.peekWrite().live().isEmpty()) {
                q.takeWrite();
            }
            e.queues.refileIfFree(q);
        }
        return items.size();
    }

    private List<PendingAggregate> familyOpen(String family) {
        List<PendingAggregate> out = new ArrayList<>();
        for (PendingAggregate a : e.aggregator.open().values()) {
            if (a.family().equals(family)) {
                out.add(a);
            }
        }
        return out;
    }

    private static List<StageItem> queuedReads(WorkQueue q) {
        List<StageItem> out = new ArrayList<>();
        for (StageItem item : q.reads()) {
            if (item.queued() && !item.done()) {
                out.add(item);
            }
        }
        return out;
    }

    /**
     * How many {@link #queuedWrites} would list, without listing them: a status is taken every 250 ms, also with
     * millions queued and every drive down (a restart of a daemon whose drives are down).
     */
    private static long countQueuedWrites(Collection<PendingAggregate> aggregates) {
        long n = 0;
        for (PendingAggregate a : aggregates) {
            if (!a.writing()) {
                n += a.liveCount();
            }
        }
        return n;
    }

    /** Members of aggregates not being written, not finished or cancelled. */
    private static List<FlushItem> queuedWrites(Collection<PendingAggregate> aggregates) {
        List<FlushItem> out = new ArrayList<>();
        for (PendingAggregate a : aggregates) {
            if (!a.writing()) {
                out.addAll(a.live());
            }
        }
        return out;
    }

    private static Outcome.Failed failure(FaultKind kind, String message) {
        return new Outcome.Failed(kind, ReturnCodes.FAILED, message, 0);
    }

    /** A timer for the earliest moment a limit is reached, so failures do not wait for another event. */
    private void arm(long at, long now) {
        if (at == timerAt) {
            return;
        }
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        timerAt = at;
        if (at != Long.MAX_VALUE) {
            timer = e.loop.schedule(Math.max(0, at - now), () -> {
                timer = null;
                timerAt = Long.MAX_VALUE;
                e.dispatcher.requestDispatch();
            });
        }
    }

    private static String minutes(long millis) {
        long m = millis / 60_000;
        return m >= 60 ? (m / 60) + " h " + (m % 60) + " min" : m + " min";
    }
}
