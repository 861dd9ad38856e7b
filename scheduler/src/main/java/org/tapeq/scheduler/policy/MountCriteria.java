package org.tapeq.scheduler.policy;

/**
 * The settings a mount policy may use (a view of the scheduler configuration, so that policies do not depend
 * on the engine).
 *
 * @param minMountBytes      bytes that make a full mount's worth of work
 * @param minMountFiles      files that make a full mount's worth of work
 * @param quietMillis        no new request for this long: the burst has arrived
 * @param maxWaitMillis      the longest a request waits for a mount
 * @param remountGuardMillis a cartridge is not mounted again within this time unless it has a full mount
 */
public record MountCriteria(long minMountBytes, int minMountFiles, long quietMillis, long maxWaitMillis,
                            long remountGuardMillis) {
}
