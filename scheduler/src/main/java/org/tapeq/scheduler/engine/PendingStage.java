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

    /** The caller's request until the lookup is done; then null: the entry holds its fields (a daemon keeps ten million queued). */
    private StageRequest request;
    private StageItem item;
    private boolean cancelled;

    PendingStage(StageRequest request) {
        this.request = request;
    }

    /** The request: the caller's, or once queued the entry, which has taken its fields over. */
    @Override
    public TapeRequest request() {
        return item != null ? item : request;
    }

    /** The queued stage once the lookup is done, else null. */
    StageItem item() {
        return item;
    }

    /** The lookup is done: {@code i} replaces the caller's request, which is not kept. */
    void item(StageItem i) {
        item = i;
        request = null;
    }

    boolean cancelled() {
        return cancelled;
    }

    void cancel() {
        cancelled = true;
    }
}
