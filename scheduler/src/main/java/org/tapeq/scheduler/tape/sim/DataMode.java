package org.tapeq.scheduler.tape.sim;

/** What the simulated library keeps of the data written to it. */
public enum DataMode {
    /** Real bytes, in local files under a directory; they survive closing and re-opening the library. */
    BYTES,
    /** Only lengths: sinks receive nothing and sources are never read. For petabyte-scale simulations. */
    SIZE_ONLY
}
