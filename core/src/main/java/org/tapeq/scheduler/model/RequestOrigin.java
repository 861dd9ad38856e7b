package org.tapeq.scheduler.model;

/**
 * Where a request came from (in the daemon: the request directory that sent it). Chosen by the caller and
 * only handed back with the request's outcome, so the caller can route the outcome without encoding anything
 * in the request id. The scheduler never looks inside it.
 */
public interface RequestOrigin {

    /** No particular origin: requests built by tools and tests that route nothing. */
    RequestOrigin NONE = () -> "none";

    /** A short name for logs. */
    String name();
}
