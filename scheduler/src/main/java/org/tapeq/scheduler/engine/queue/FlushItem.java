package org.tapeq.scheduler.engine.queue;

import org.tapeq.scheduler.model.FlushRequest;

/** A flush request on its way to tape: buffered in an open aggregate, then written with it. */
public final class FlushItem implements Ticket {

    private final FlushRequest request;
    private final String family;
    private final String dataset;
    private PendingAggregate aggregate;
    private boolean cancelled;
    private boolean done;

    public FlushItem(FlushRequest request, String family, String dataset) {
        this.request = request;
        this.family = family;
        this.dataset = dataset;
    }

    @Override
    public FlushRequest request() {
        return request;
    }

    public String family() {
        return family;
    }

    public String dataset() {
        return dataset;
    }

    /** The aggregate it was added to, or null. */
    public PendingAggregate aggregate() {
        return aggregate;
    }

    void addedTo(PendingAggregate agg) {
        aggregate = agg;
    }

    public boolean cancelled() {
        return cancelled;
    }

    public void cancel() {
        cancelled = true;
    }

    public boolean done() {
        return done;
    }

    /** Ends it; returns false if it was done already (an outcome is given once). */
    public boolean markDone() {
        if (done) {
            return false;
        }
        done = true;
        return true;
    }
}
