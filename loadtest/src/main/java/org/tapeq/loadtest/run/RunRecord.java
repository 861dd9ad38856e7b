package org.tapeq.loadtest.run;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.tapeq.workload.scenario.Scenario;

/**
 * Everything a run recorded, for the report.
 *
 * @param started        when the measured phase began
 * @param wallNanos      how long the measured phase lasted (wall time)
 * @param speed          library time per wall time
 * @param partial        the run was stopped (Ctrl-C) before every request ended; {@code stopReason} says why
 * @param prepared       files written before the measured phase (inputs of A-DT and carousel)
 * @param prepareFailed  of those, flushes that failed (they are left out of the recall)
 * @param prepareMillis  how long writing them took, wall time
 * @param emptied        how the drives were emptied before the measured phase; null if the target cannot
 * @param written        the measured phase's files whose flush completed, in the order of the plan
 * @param problems       first failure and loss reasons, and SPI violations the pool emulator saw
 * @param transfers      the reads and aggregate writes on tape during the measured phase, as the daemon's drives
 *                       told them; null if the daemon does not tell them (a daemon the harness did not start)
 */
public record RunRecord(Scenario scenario, String target, Instant started, long wallNanos, double speed,
                        boolean partial, String stopReason, RequestLog log, List<Sample> samples,
                        Map<String, Long> mountsPerCartridge, int prepared, int prepareFailed, long prepareMillis,
                        Target.Emptied emptied, List<FileList.Entry> written, List<String> problems,
                        int spiViolations, List<Transfer> transfers) {

    /** Library milliseconds of a wall-clock duration in nanoseconds. */
    public double libraryMillis(long wallNanos) {
        return wallNanos / 1e6 * speed;
    }
}
