package org.tapeq.scheduler.engine;

import org.tapeq.scheduler.model.TapeRequest;

/** The handle of an accepted request; {@link Scheduler#cancel(Ticket)} takes it, in O(1). */
public interface Ticket {

    TapeRequest request();
}
