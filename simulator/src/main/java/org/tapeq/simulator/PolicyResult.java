package org.tapeq.simulator;

import org.tapeq.charts.Series;

/**
 * What one policy did on one workload (one seed). Times in seconds of virtual time from the first request.
 *
 * @param makespanS          until the last request ended
 * @param boundS             the workload's physical lower bound
 * @param bestLocateS        the workload's locate time under the best order of whole runs ({@link BestReadOrder}),
 *                           or NaN where it is not computed
 * @param entryLocateS       the bound's locate term: every requested file entered once, each file's end before at
 *                           most one ({@link TrueReadCosts}); no order locates less
 * @param oracleLocateS      the locate time of the greedy order on the true physics, one mount per cartridge
 *                           ({@link TrueReadCosts}), or NaN without reads
 * @param mountsPerCartridge mounts / distinct cartridges mounted
 * @param locateS            positioning time over all drives (includes positioning to end of data for writes)
 * @param locateShare        locate time / busy time of all drives
 * @param mbPerDrive         useful bytes read and written / drives / makespan, in MB/s
 * @param driveEfficiency    {@code mbPerDrive} / native rate
 * @param writeEfficiency    bytes written / (native rate x time drives spent writing, filemarks included), or 0
 *                           without writes: how close writing streams, whatever the arrival rate
 * @param idleShare          share of drive time within the makespan with no operation running
 * @param failed             requests that did not end as staged or flushed
 * @param setupS             real time to preload the library and the catalog (not part of the run)
 * @param wallS              real time the run took (scheduler and library, without building the workload)
 * @param cpuS               CPU time of the thread that ran the loop (the run's cost, whatever else the machine does)
 * @param queueDepth         outstanding requests over time (hours)
 * @param throughput         MB/s of completed requests over time (hours)
 * @param repack             what the repack beside the workload did, or null without one
 */
public record PolicyResult(String name, long seed, double makespanS, double boundS, double bestLocateS,
                           double entryLocateS, double oracleLocateS, long mounts,
                           int cartridgesMounted, double mountsPerCartridge, double locateS, double locateShare,
                           double mbPerDrive, double driveEfficiency, double writeEfficiency, double latencyP50S,
                           double latencyP99S, double idleShare, long completed, long failed, double setupS, double wallS,
                           double cpuS, Series queueDepth, Series throughput, RepackBeside.Progress repack) {

    public double ratio() {
        return makespanS / boundS;
    }

    /** Virtual seconds per real second. */
    public double speedup() {
        return makespanS / Math.max(wallS, 1e-9);
    }

    /** Virtual seconds per CPU second of the loop thread. */
    public double cpuSpeedup() {
        return makespanS / Math.max(cpuS, 1e-9);
    }
}
