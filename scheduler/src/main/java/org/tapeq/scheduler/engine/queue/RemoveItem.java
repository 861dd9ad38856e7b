package org.tapeq.scheduler.engine.queue;

import org.tapeq.scheduler.model.RemoveRequest;

/** A remove request waiting for the next batched catalog delete. */
public final class RemoveItem implements Ticket {

    private final RemoveRequest request;
    private boolean cancelled;

    public RemoveItem(RemoveRequest request) {
        this.request = request;
    }

    @Override
    public RemoveRequest request() {
        return request;
    }

    public boolean cancelled() {
        return cancelled;
    }

    public void cancel() {
        cancelled = true;
    }
}
