package org.tapeq.workload.scenario;

import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.sim.DataMode;

/**
 * The simulated library: of the daemon the harness starts itself when no daemon configuration is given, and of
 * {@code tapeq simulate} (which reads drives, media and robot arms, and cartridges where an experiment names none).
 *
 * @param speed how much faster than real time the library runs; the harness scales every rate and time of the
 *              scenario by it, so a scenario reads in library time
 * @param data  {@code size-only} (sparse files, any size on any disk) or {@code bytes} (real data, small runs)
 * @param robotArms robot arms moving cartridges (the simulator only; the harness's library has its default)
 */
public record LibrarySettings(int drives, int cartridges, MediaType media, double speed, DataMode data,
                              int robotArms) {
}
