package org.tapeq.simulator;

import org.tapeq.simulator.workload.Workload;

/** A named workload generator; the same seed and scale always give the same workload. */
public interface Scenario {

    String name();

    /** One line for listings and reports. */
    String description();

    /**
     * The workload for a seed. {@code scale} multiplies the number of files and cartridges (and the duration of
     * write scenarios); 1 is the full size.
     */
    Workload build(long seed, double scale);
}
