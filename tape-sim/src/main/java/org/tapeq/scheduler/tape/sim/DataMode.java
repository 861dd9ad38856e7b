package org.tapeq.scheduler.tape.sim;

/** What the simulated library keeps of the data written to it. */
public enum DataMode {
    /** Real bytes, in local files under a directory; they survive closing and re-opening the library. */
    BYTES,
    /**
     * Only lengths: sinks receive nothing and sources are never read. For petabyte-scale simulations and
     * benchmarks. Size-only: staged files are sparse files of the right length, zeros (the scheduler creates a
     * stage's target that way when no bytes arrive).
     */
    SIZE_ONLY
}
