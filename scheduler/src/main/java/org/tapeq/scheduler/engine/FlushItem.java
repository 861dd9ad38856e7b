package org.tapeq.scheduler.engine;

import org.tapeq.scheduler.model.FlushRequest;

/** A flush request on its way to tape: buffered in an open aggregate, then written with it. */
final class FlushItem implements Ticket {

    final FlushRequest request;
    final long arrival;
    final String family;
    final String dataset;
    /** Checksum computed by the pre-pass when the request had none. */
    String checksum;
    PendingAggregate aggregate;
    boolean cancelled;
    boolean done;

    FlushItem(FlushRequest request, long arrival, String family, String dataset) {
        this.request = request;
        this.arrival = arrival;
        this.family = family;
        this.dataset = dataset;
        this.checksum = request.checksum();
    }

    @Override
    public FlushRequest request() {
        return request;
    }
}
