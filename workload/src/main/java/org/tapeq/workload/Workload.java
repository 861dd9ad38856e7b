package org.tapeq.workload;

import java.util.List;
import java.util.function.UnaryOperator;

import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.model.MediaType;

/**
 * Everything one simulation run needs, identical for every policy: the library (drives, robot arms, media), the
 * cartridges' contents at the start, the requests, and scenario settings of the scheduler (groups, caps).
 *
 * @param scenario name of the scenario that built it
 * @param seed     the seed it was built with (also seeds the cartridges' geometry)
 * @param config   scenario settings applied to the scheduler configuration of every policy
 * @param options  the scenario's faults, repack and stage buffer
 * @param repackSources cartridges among {@code tapes} repacked beside the workload ({@code options.repack()})
 */
public record Workload(String scenario, long seed, int drives, int robotArms, MediaType media, List<TapeImage> tapes,
                       RequestSource source, UnaryOperator<SchedulerConfig.Builder> config, SimOptions options,
                       List<String> repackSources) {

    public Workload {
        tapes = List.copyOf(tapes);
        repackSources = List.copyOf(repackSources);
        if (drives <= 0 || robotArms <= 0) {
            throw new IllegalArgumentException("drives and robot arms must be positive");
        }
    }
}
