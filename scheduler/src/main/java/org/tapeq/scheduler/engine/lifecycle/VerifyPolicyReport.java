package org.tapeq.scheduler.engine.lifecycle;

import java.util.List;

/**
 * The periodic verification policy as of its last look at the catalog, for status and metrics.
 *
 * @param perWeek       cartridges it verifies per week (0: off, the rest is empty)
 * @param sample        aggregates each verification reads (0: all)
 * @param lastLook      loop time of its last look at the catalog, or 0
 * @param nextLook      loop time of the next one, or 0
 * @param eligible      cartridges it verifies in turn (appendable or full, enabled, holding tape files)
 * @param overdue       of those, the ones never verified or last verified longer ago than a round of all of them
 *                      takes at this rate
 * @param nextDue       the next ones it will verify, oldest verification first (at most {@link #LISTED})
 * @param lastStarted   the cartridge whose verification it started last in this run, or null
 * @param lastStartedAt loop time it did, or 0
 */
public record VerifyPolicyReport(int perWeek, int sample, long lastLook, long nextLook, int eligible, int overdue,
                                 List<String> nextDue, String lastStarted, long lastStartedAt) {

    /** Cartridges named in {@code nextDue}. */
    public static final int LISTED = 10;
}
