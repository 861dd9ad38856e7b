package org.tapeq.daemon.bridge;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One request directory as {@code tapeq status} and {@code /status} show it.
 *
 * @param requests       tracked request files by state (checking, queued, waiting_link, delivered, answered, unwritten,
 *                       parked, ...)
 * @param removing       trash entries being removed
 * @param inScheduler    requests the scheduler holds
 * @param oldestMillis   wall-clock time the oldest waiting request was first seen, or 0
 * @param bufferReserved bytes reserved in in/ (being read or delivered and not yet taken by the pool)
 * @param bufferCapacity the configured stage buffer
 * @param bufferRefusals reads refused for lack of buffer space (a waiting drive asks again each second; each
 *                       refusal counts)
 * @param rejected       request files refused at intake since start
 * @param parkedCount    flushes that failed without an error channel
 * @param parked         the oldest of them, with their reasons
 * @param rescans        full rescans of the directory completed since start (the first one at start included)
 * @param intakeBacklog  request files found and not yet taken: waiting for the intake pool or being read
 * @param intakePauses   times the intake pool was full and this directory waited for it to drain
 * @param reads          request files read by the intake since start (one gone before it was read is not; a
 *                       re-read of an empty one counts again)
 * @param stopped        why the daemon stopped serving this directory (a path in it names something else than
 *                       at start: a symbolic link, another directory), or null while it serves it
 * @param takenMillis    wall-clock time the bridge's thread took this snapshot (every 250 ms while it is free)
 */
public record BridgeStatus(String name, String path, Map<String, Integer> requests, int removing, int inScheduler,
                           long oldestMillis, long bufferReserved, long bufferCapacity, long bufferRefusals,
                           long rejected, int parkedCount, List<Parked> parked, long rescans, int intakeBacklog,
                           long intakePauses, long reads, String stopped, long takenMillis) {

    /** Every state a tracked request file can be in, as {@link #requests} names them. */
    public static final List<String> REQUEST_STATES = Arrays.stream(Tracked.State.values())
            .map(s -> s.name().toLowerCase(Locale.ROOT)).toList();

    /** This status with only the parked flushes {@code offset} to {@code offset + limit - 1} (it lists them all). */
    public BridgeStatus page(int offset, int limit) {
        int from = Math.min(offset, parked.size());
        List<Parked> page = List.copyOf(parked.subList(from, (int) Math.min(parked.size(), (long) from + limit)));
        return new BridgeStatus(name, path, requests, removing, inScheduler, oldestMillis, bufferReserved,
                bufferCapacity, bufferRefusals, rejected, parkedCount, page, rescans, intakeBacklog, intakePauses,
                reads, stopped, takenMillis);
    }

    /** A parked flush and why. */
    public record Parked(String pnfsid, long seenMillis, String reason) {
    }
}
