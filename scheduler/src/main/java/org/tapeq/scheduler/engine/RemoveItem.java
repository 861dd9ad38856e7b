package org.tapeq.scheduler.engine;

import org.tapeq.scheduler.model.RemoveRequest;

/** A remove request waiting for the next batched catalog delete. */
final class RemoveItem implements Ticket {

    final RemoveRequest request;
    boolean cancelled;

    RemoveItem(RemoveRequest request) {
        this.request = request;
    }

    @Override
    public RemoveRequest request() {
        return request;
    }
}
