package org.tapeq.workload;

import java.util.List;

/**
 * The top-level keys of a scenario that only {@code tapeq simulate} reads (docs/simulator.md): faults injected
 * into the simulated library, cartridges the engine repacks beside the workload, and a bounded stage buffer.
 *
 * @param faults      faults of the run (none: {@link Faults#NONE})
 * @param repack      cartridges repacked beside the workload, or null
 * @param stageBuffer the pool's stage buffer, or null (unbounded)
 */
public record SimOptions(Faults faults, Repack repack, StageBuffer stageBuffer) {

    /** No faults, no repack, an unbounded buffer. */
    public static final SimOptions NONE = new SimOptions(Faults.NONE, null, null);

    /**
     * Faults of a run, each at a time after its start: the same as {@code simulate --drive-failures}, plus slow
     * drives and robot outages.
     *
     * @param driveFailures drives that fail and come back
     * @param slowDrives    drives streaming slower than their media's rate from the start
     * @param robotOutages  times when every robot move fails
     */
    public record Faults(List<DriveFailure> driveFailures, SlowDrives slowDrives, List<RobotOutage> robotOutages) {

        public static final Faults NONE = new Faults(List.of(), null, List.of());

        public Faults {
            driveFailures = List.copyOf(driveFailures);
            robotOutages = List.copyOf(robotOutages);
        }
    }

    /**
     * The drives {@code first} .. {@code first + count - 1} fail at {@code atMillis} (every operation, unload
     * included) and are repaired and put back into service {@code repairMillis} later.
     */
    public record DriveFailure(int first, int count, long atMillis, long repairMillis) {
    }

    /** The last {@code count} drives stream at {@code factor} times the media's rate for the whole run. */
    public record SlowDrives(int count, double factor) {
    }

    /** Every robot move fails from {@code atMillis} for {@code forMillis}. */
    public record RobotOutage(long atMillis, long forMillis) {
    }

    /**
     * Cartridges the engine repacks (its {@code RepackTask}, {@code tapeq cartridge repack}) beside the workload.
     *
     * @param cartridges  source cartridges, written co-located like an adt's inputs, never requested
     * @param files       live ATLAS-like files on them in all
     * @param targets     blank cartridges of the target family the files move to
     * @param barcodes    barcode prefix of the sources (the targets' is the same with a trailing T)
     * @param startMillis when every repack is asked for
     * @param maxDrives   drives background work may use at once ({@code scheduler.maxBackgroundDrives})
     * @param share       by how much background work may delay user work ({@code scheduler.backgroundShare})
     */
    public record Repack(int cartridges, int files, int targets, String barcodes, long startMillis, int maxDrives,
                         double share) {
    }

    /**
     * The pool's stage buffer: a staged file takes its size from when its read starts until the pool has moved
     * it on, which it does one file after the other at {@code drainBytesPerSecond}.
     */
    public record StageBuffer(long bytes, double drainBytesPerSecond) {
    }
}
