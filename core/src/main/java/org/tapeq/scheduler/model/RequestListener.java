package org.tapeq.scheduler.model;

/** Receives the outcome of every request, once, on the scheduler's event loop. Must not block. */
@FunctionalInterface
public interface RequestListener {

    void completed(TapeRequest request, Outcome outcome);
}
