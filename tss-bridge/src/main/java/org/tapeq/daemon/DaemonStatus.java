package org.tapeq.daemon;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.tapeq.daemon.bridge.BridgeStatus;
import org.tapeq.daemon.control.StatusPage;
import org.tapeq.scheduler.engine.SchedulerLoad;
import org.tapeq.scheduler.engine.SchedulerStatus;

/**
 * What {@code tapeq status} and {@code GET /status} show: the scheduler (queues per cartridge, drives,
 * cartridges needing attention, counters), every request directory, and rates over the last minute.
 *
 * <p>Everything but two lists is an aggregate kept as requests come and go, so a status costs the same with ten
 * million requests queued as with ten. The two lists are paged: the scheduler's {@code queues} (their total is
 * {@code queueCount}) and each directory's {@code parked} flushes (total {@code parkedCount}) hold entries
 * {@code offset} to {@code offset + limit - 1} of their own order ({@link StatusPage}; docs/operations.md, "Status").
 *
 * @param rates   per second over the last minute: files staged and flushed, bytes read and written
 * @param driveRates bytes per second each drive moved over the last minute
 * @param load    the work waiting per group and per family (null while the scheduler starts)
 * @param catalog whether the catalog answers
 * @param site    the site lease: whether this daemon is active or a standby
 * @param offset  the first entry of each paged list shown (0 is the first)
 * @param limit   at most this many entries of each paged list
 */
public record DaemonStatus(String version, long startedMillis, long nowMillis, Map<String, Double> rates,
                           Map<String, Double> driveRates, List<BridgeStatus> directories, SchedulerStatus scheduler,
                           SchedulerLoad load, CatalogState catalog, SiteState site, int offset,
                           int limit) {

    /**
     * This daemon's part in its site.
     *
     * @param name    the site ({@code catalog.site})
     * @param role    {@code active} (holds the lease and serves), {@code standby} (waits for the lease: {@code
     *                catalog.standby}) or {@code starting}
     * @param epoch   the epoch of the lease held, or 0
     * @param waiting while a standby: why it waits, naming the holder; else null
     */
    public record SiteState(String name, String role, long epoch, String waiting) {
    }

    /**
     * Whether the catalog answers.
     *
     * @param reachable        whether its last use (or the attempt to open it at start) succeeded
     * @param unreachableSince wall-clock ms since which it does not answer, or 0
     * @param reason           the last failure while it does not answer, or null
     */
    public record CatalogState(boolean reachable, long unreachableSince, String reason) {
    }


    static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    public static String currentVersion() {
        String v = DaemonStatus.class.getPackage().getImplementationVersion();
        return v != null ? v : "development";
    }

    public static byte[] toJson(JsonNode status) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(status);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("status cannot be written as JSON", e);
        }
    }
}
