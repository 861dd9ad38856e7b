package org.tapeq.scheduler.engine.lifecycle;

import java.util.List;

/**
 * The automatic reclamation policy as {@code tapeq status}, {@code tapeq reclaim status} and the metrics show it.
 *
 * @param state       {@code off} (not enabled in the configuration), {@code paused} or {@code on}
 * @param pausedSince loop time the operator paused it, or 0
 * @param reason      the operator's reason for the pause, or null
 * @param threshold   live fraction below which a FULL cartridge is repacked
 * @param candidates  cartridges the last look found to repack (SUSPECT ones first, then the emptiest), whether or
 *                    not a repack of them is started yet; {@code listed} names the first {@link #LISTED}
 * @param queued      repacks the policy started that have not ended (queued or running)
 * @param started     repacks the policy started in this run
 * @param needOperator cartridges the policy leaves alone because their last repack failed, was cancelled or left
 *                    files it could not read (tapeq cartridge repack VID tries again)
 * @param lastLook    loop time of the last look at the catalog, or 0
 */
public record ReclaimStatus(String state, long pausedSince, String reason, double threshold, int candidates,
                            List<String> listed, int queued, int started, List<String> needOperator,
                            long lastLook) {

    /** Candidates named in {@link #listed}. */
    public static final int LISTED = 20;

    public ReclaimStatus {
        listed = List.copyOf(listed);
        needOperator = List.copyOf(needOperator);
    }
}
