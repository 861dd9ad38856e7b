package org.tapeq.scheduler.engine;

import org.tapeq.scheduler.model.FlushRequest;

/** A flush request on its way to tape: buffered in an open aggregate, then written with it. */
final class FlushItem implements Ticket {

    final FlushRequest request;
    final String family;
    final String dataset;
    PendingAggregate aggregate;
    boolean cancelled;
    boolean done;

    FlushItem(FlushRequest request, String family, String dataset) {
        this.request = request;
        this.family = family;
        this.dataset = dataset;
    }

    @Override
    public FlushRequest request() {
        return request;
    }
}
