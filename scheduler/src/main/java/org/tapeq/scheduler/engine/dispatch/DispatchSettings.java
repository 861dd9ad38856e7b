package org.tapeq.scheduler.engine.dispatch;

import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/**
 * The settings the mount decision works with (a view of the scheduler configuration).
 *
 * @param maxReadDrives      drives that may read at once, 0 for all
 * @param maxWriteDrives     drives that may write at once, 0 for all
 * @param groupShare         a group's relative share of the drives
 * @param groupMaxDrives     most drives a group may use at once, 0 for no cap
 * @param retryBackoffMillis how long mounts pause after too many robot errors
 * @param robotErrorLimit    consecutive robot errors after which mounts pause
 * @param maxBackgroundDrives drives background work may use at once (0: none runs)
 * @param backgroundShare    by how much background work may delay user work ({@code scheduler.backgroundShare})
 * @param backgroundHoldoffMillis hysteresis of background work around user work ({@code scheduler.backgroundHoldoff})
 */
public record DispatchSettings(int maxReadDrives, int maxWriteDrives, ToDoubleFunction<String> groupShare,
                               ToIntFunction<String> groupMaxDrives, long retryBackoffMillis,
                               int robotErrorLimit, int maxBackgroundDrives,
                               double backgroundShare, long backgroundHoldoffMillis) {
}
