package org.tapeq.workload.scenario;

import org.tapeq.workload.SimOptions;
import java.util.List;

/**
 * A workload scenario as read from its YAML file ({@link ScenarioFile}), run by {@code tapeq loadtest} through the
 * whole chain or by {@code tapeq simulate} in virtual time. Every rate and duration in it is in
 * <em>library time</em>: with a simulated library running {@code speed} times faster than real drives, the harness
 * issues a DT of 1 GB/s for 1 h as {@code speed} GB/s of wall time for 1/{@code speed} h, and reports back in
 * library time, so one scenario describes the same exercise on a real or a scaled library.
 *
 * @param source        the file it was read from (for messages)
 * @param type          dt, adt, carousel, burst or mixed (several activities at once)
 * @param seed          seed of sizes, order and names: a scenario with the same seed issues the same requests
 * @param timeoutMillis the run ends (lost: whatever is still outstanding) after this much library time (the
 *                      harness only)
 * @param description   one line for listings ({@code tapeq simulate --list}); may be empty
 * @param scaleFloor    the least each count shrinks to under {@code tapeq simulate --scale} (the simulator only)
 * @param options       faults, a repack beside the workload, a stage buffer (the simulator only)
 */
public record Scenario(String source, String name, String type, long seed, LibrarySettings library,
                       List<Experiment> experiments, Targets targets, long timeoutMillis, String description,
                       ScaleFloor scaleFloor, SimOptions options) {

    /** The least files, cartridges and requests of an experiment under {@code --scale}. */
    public record ScaleFloor(int files, int cartridges, int requests) {
    }

    public Scenario {
        experiments = List.copyOf(experiments);
    }

    public boolean has(Activity activity) {
        return experiments.stream().anyMatch(e -> e.activity() == activity);
    }

    /** Whether an experiment recalls the files an earlier run wrote ({@link Experiment#inputs()}). */
    public boolean hasInputs() {
        return experiments.stream().anyMatch(e -> e.inputs() != null);
    }
}
