package org.tapeq.scheduler.engine;

import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.engine.queue.Ticket;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeRequest;

/**
 * The ticket of a stage whose catalog lookup found the catalog unreachable: the lookup waits in the catalog
 * writer until the catalog answers, then the stage is queued (or rejected) as any other. Loop-owned.
 */
final class PendingStage implements Ticket {

    private final StageRequest request;
    private StageItem item;
    private boolean cancelled;

    PendingStage(StageRequest request) {
        this.request = request;
    }

    @Override
    public TapeRequest request() {
        return request;
    }

    /** The queued stage once the lookup is done, else null. */
    StageItem item() {
        return item;
    }

    void item(StageItem i) {
        item = i;
    }

    boolean cancelled() {
        return cancelled;
    }

    void cancel() {
        cancelled = true;
    }
}
