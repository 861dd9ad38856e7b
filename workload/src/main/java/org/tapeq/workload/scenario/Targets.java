package org.tapeq.workload.scenario;

/**
 * What a run must show to pass. Rates and times are in library time.
 *
 * @param sustainedRate   bytes per second the chain must sustain over {@code windowMillis} (0: not checked)
 * @param windowMillis    the window for {@code sustainedRate}
 * @param maxLost         requests that may end lost (never answered, or a stage whose file is not on disk)
 * @param maxFailed       requests that may fail
 * @param maxP99Millis    the slowest 1 % of requests of any kind may take at most this long (0: not checked)
 */
public record Targets(double sustainedRate, long windowMillis, long maxLost, long maxFailed, long maxP99Millis) {
}
