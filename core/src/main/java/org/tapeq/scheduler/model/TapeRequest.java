package org.tapeq.scheduler.model;

/**
 * A request handed to the scheduler. Ids are chosen by the caller and only reported back; the scheduler does
 * not require them to be unique. The arrival time is the loop time at which the scheduler accepted it.
 */
public sealed interface TapeRequest permits StageRequest, FlushRequest, RemoveRequest {

    long id();

    String pnfsid();

    /** The experiment or VO this request is accounted to for fair share and drive caps. */
    String group();

    /** Where it came from; handed back with its outcome ({@link RequestOrigin#NONE} if the caller routes nothing). */
    RequestOrigin origin();
}
