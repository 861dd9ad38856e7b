package org.tapeq.scheduler.engine;

import java.util.List;
import java.util.Map;

import org.tapeq.scheduler.engine.lifecycle.RelabelReport;
import org.tapeq.scheduler.engine.lifecycle.MigrationReport;
import org.tapeq.scheduler.engine.lifecycle.ReclaimStatus;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.engine.lifecycle.VerifyPolicyReport;
import org.tapeq.scheduler.engine.lifecycle.VerifyReport;

/**
 * A snapshot of the scheduler for {@code tapeq status} and {@code /status}: every queue that cannot move says
 * why (waiting for its mount criteria until a time, remount guard, blocked, drive down).
 *
 * @param now             loop time of the snapshot
 * @param counters        running totals (requests by outcome, bytes, mounts, remounts, faults by class)
 * @param queueCount      queues with work
 * @param queues          the most urgent queues (mounted first, then by rank), at most the number asked for
 * @param oldestArrival   arrival time of the oldest waiting request, or 0
 * @param robot           why mounts are paused, or null
 * @param blocked         requests that cannot be served at all, by reason ({@code no_drive}: every drive out of
 *                        service; {@code no_cartridge}: flushes of a family without an appendable cartridge);
 *                        both reasons always present
 * @param cartridges      every cartridge with its fill and mounts, by barcode, paged like {@code queues} (their
 *                        total is the sum of {@code cartridgesByState})
 * @param background      background work: tasks waiting for a drive and drives running one
 * @param verifications   the cartridge verifications of this run (running, then the latest ended), with their
 *                        progress or result
 * @param repacks         the cartridge repacks of this run (and those resumed at start), with their progress or
 *                        result
 * @param relabels        the relabels of this run (and those resumed at start), with their result
 * @param verifyPolicy    the periodic verification policy as of its last look (what is due, what is overdue)
 * @param migrations      the media migrations of this run (and the one resumed at start), with their progress,
 *                        estimated end or result
 * @param cartridgeCount  every cartridge of the library ({@code cartridges} holds a page of them)
 * @param recentFaults    the last faults of this run, newest first, at most 50 ({@code counters} has the totals)
 * @param reclaim         the automatic reclamation policy: on, off or paused, its candidates and repacks
 * @param hold            while all tape work and answers are held (a daemon that may have lost its site lease):
 *                        why, and the commands still running in the library; null while they are not
 */
public record SchedulerStatus(long now, String policy, Map<String, Long> counters, List<DriveStatus> drives,
                              int queueCount, int readyQueues, int waitingQueues, List<QueueStatus> queues,
                              List<AggregateStatus> openAggregates, Map<String, Integer> cartridgesByState,
                              List<CartridgeStatus> attention, long oldestArrival, String robot,
                              Map<String, Integer> mountsPerCartridge, Map<String, Blocked> blocked,
                              List<CartridgeUse> cartridges,
                              Background background, List<VerifyReport> verifications,
                              List<RepackReport> repacks, List<MigrationReport> migrations,
                              List<RelabelReport> relabels,
                              VerifyPolicyReport verifyPolicy, int cartridgeCount,
                              List<Fault> recentFaults, ReclaimStatus reclaim, Hold hold) {

    /**
     * This status with only the queues and the cartridges {@code offset} to {@code offset + limit - 1} of its
     * lists (a published status lists them all: {@code Scheduler.publishedStatus}).
     */
    public SchedulerStatus page(int offset, int limit) {
        return new SchedulerStatus(now, policy, counters, drives, queueCount, readyQueues, waitingQueues,
                slice(queues, offset, limit), openAggregates, cartridgesByState, attention, oldestArrival, robot,
                mountsPerCartridge, blocked, slice(cartridges, offset, limit), background, verifications, repacks,
                migrations, relabels, verifyPolicy, cartridgeCount, recentFaults, reclaim, hold);
    }

    private static <T> List<T> slice(List<T> all, int offset, int limit) {
        int from = Math.min(offset, all.size());
        return List.copyOf(all.subList(from, (int) Math.min(all.size(), (long) from + limit)));
    }

    /**
     * All tape work and answers held: why, the commands and answers that wait for the hold to end, and the library
     * commands given before it began that have not ended yet (0: the library does nothing for this scheduler).
     */
    public record Hold(String reason, int waiting, int running) {
    }

    /**
     * One fault: when (loop time), its kind ({@code robot}, {@code media}, {@code checksum}, ...; the
     * {@code faults_*} counters' names), the drive and cartridge involved (null when none was, e.g. a flush's source
     * file checked before any drive took it), and the reason.
     */
    public record Fault(long at, String kind, String drive, String cartridge, String reason) {
    }

    /**
     * Background work (verification, repack): tasks waiting for a drive, drives running one, their cap, the
     * configured {@code scheduler.backgroundShare} and the drives it lets background work keep while user work
     * waits; slices started, those that mounted their cartridge and those that gave their drive back to waiting
     * user work since the start; and the drive-seconds background and user work held in the current (or last)
     * contention episode, whose ratio the share bounds (docs/scheduler.md, "How background work shares drives").
     */
    public record Background(int waiting, int running, int maxDrives, double share, int keptWhileUserWaits,
                             long slices, long mounts, long yields, long episodeBackgroundSeconds,
                             long episodeUserSeconds) {
    }

    /**
     * Requests waiting on one condition that stops service, and since when it holds (loop time; 0 when it does
     * not hold). They fail once it has lasted {@code scheduler.blockedLimit}.
     */
    public record Blocked(long requests, long since) {
    }

    /**
     * One drive: its state, cartridge, what it is doing since when, why it is down, and why it asks for a routine
     * cleaning while it stays in service ({@code cleaning}, null if it does not).
     */
    public record DriveStatus(String id, String state, String cartridge, String activity, long since, int errors,
                              String group, String reason, String cleaning) {
    }

    /** One queue: a cartridge's, or a family's writes ({@code family:NAME}). */
    public record QueueStatus(String name, String group, long files, long bytes, long oldestArrival, String state,
                              long eligibleAt, String reason) {
    }

    /** An aggregate still collecting files. */
    public record AggregateStatus(String family, String dataset, int files, long bytes, long opened) {
    }

    /** A cartridge needing attention (suspect, foreign, blank, full with errors, disabled). */
    public record CartridgeStatus(String barcode, String state, boolean disabled, String reason) {
    }

    /** A cartridge's state, fill and mounts (since it was labelled; {@code mountsPerCartridge} counts this run's). */
    public record CartridgeUse(String barcode, String family, String state, boolean disabled, long capacityBytes,
                               long usedBytes, long mountCount, String reason) {
    }
}
