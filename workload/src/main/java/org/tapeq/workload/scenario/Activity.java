package org.tapeq.workload.scenario;

/** What one experiment of a scenario does; a scenario's type is one of these or {@code mixed}. */
public enum Activity {
    /** Data taking: write at a target rate for a duration. */
    DT,
    /**
     * After data taking: recall in bulk datasets written first (not measured), or the files an earlier run wrote
     * ({@link Experiment#inputs()}).
     */
    ADT,
    /** Sliding window: at most X % of the inputs requested or on disk at once, each consumed, then dropped. */
    CAROUSEL,
    /** N stage requests at once of files already on tape. */
    BURST
}
