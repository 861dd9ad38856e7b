package org.tapeq.scheduler.engine;

import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.engine.fault.FaultReactions;
import org.tapeq.scheduler.engine.queue.FlushItem;
import org.tapeq.scheduler.engine.queue.Queues;
import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.engine.queue.WorkQueue;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.model.TapeRequest;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The one path every request ends through: it clears the request's pending state (its queue's counters),
 * counts the outcome and tells the listener exactly once. A failed read comes here too, and is retried or
 * ended as {@link FaultReactions} says.
 */
final class RequestEnds {

    private static final Logger LOG = LoggerFactory.getLogger(RequestEnds.class);

    private final EventLoop loop;
    private final SchedulerConfig config;
    private final Supplier<Tuning> tuning;
    private final Queues queues;
    private final Counters counters;
    private final RequestListener listener;

    RequestEnds(EventLoop loop, SchedulerConfig config, Supplier<Tuning> tuning, Queues queues, Counters counters,
                RequestListener listener) {
        this.tuning = tuning;
        this.loop = loop;
        this.config = config;
        this.queues = queues;
        this.counters = counters;
        this.listener = listener;
    }

    /** The one place a stage ends: clears its queue's counters and tells the listener. */
    void finish(StageItem item, Outcome outcome) {
        if (!item.markDone()) {
            return;
        }
        WorkQueue q = item.queue();
        if (q != null) {
            queues.refileIfFree(q);
        }
        counters.count(outcome, true);
        deliver(item.request(), outcome);
    }

    /** The one place a flush ends. */
    void finish(FlushItem item, Outcome outcome) {
        if (!item.markDone()) {
            return;
        }
        counters.count(outcome, false);
        deliver(item.request(), outcome);
    }

    /** Tells the listener; a remove, which has no queue, ends here directly. */
    void deliver(TapeRequest request, Outcome outcome) {
        try {
            listener.completed(request, outcome);
        } catch (RuntimeException e) {
            LOG.error("[{}] listener failed on outcome {}: {}", request.pnfsid(), outcome, e.toString(), e);
        }
    }

    Outcome.Failed failed(FaultKind kind, String message, int attempts) {
        return new Outcome.Failed(kind, FaultReactions.returnCode(kind), message, attempts);
    }

    /**
     * A read of this item failed with {@code fault} during {@code op} on {@code drive}: retry after a backoff,
     * avoiding the drive, or fail for good after the last attempt or when the fault table says so.
     */
    void readFailed(StageItem item, TapeFault fault, FaultReactions.Operation op, String drive) {
        int attempts = item.failedAttempt();
        String where = item.request().pnfsid() + " on " + item.queue().barcode() + " tape file " + item.tapeFile();
        boolean fail = FaultReactions.of(op, fault.kind()).requests() == FaultReactions.Requests.FAIL;
        if (item.cancelled()) {
            finish(item, new Outcome.Cancelled());
        } else if (fail || attempts >= tuning.get().maxAttempts()) {
            finish(item, failed(fault.kind(), "cannot stage " + where + " after " + attempts + " attempt(s): "
                    + fault.getMessage(), attempts));
        } else {
            item.requeued();
            item.retryAfter(loop.now() + (config.retryBackoffMillis() << (attempts - 1)), drive);
            LOG.warn("[{}] read failed (attempt {} of {}), retrying after backoff: {}", item.request().pnfsid(),
                    attempts, tuning.get().maxAttempts(), fault.toString());
        }
    }
}
