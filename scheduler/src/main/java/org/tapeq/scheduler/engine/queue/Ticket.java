package org.tapeq.scheduler.engine.queue;

import org.tapeq.scheduler.model.TapeRequest;

/** The handle of an accepted request; {@code Scheduler.cancel(Ticket)} takes it, in O(1). */
public interface Ticket {

    TapeRequest request();
}
