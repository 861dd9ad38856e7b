package org.tapeq.daemon;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.tapeq.daemon.bridge.BridgeStatus;
import org.tapeq.scheduler.engine.SchedulerStatus;

/**
 * What {@code tapeq status} and {@code GET /status} show: the scheduler (queues per cartridge, drives,
 * cartridges needing attention, counters), every request directory, and rates over the last minute.
 *
 * @param rates   per second over the last minute: files staged and flushed, bytes read and written
 * @param catalog whether the catalog answers
 */
public record DaemonStatus(String version, long startedMillis, long nowMillis, Map<String, Double> rates,
                           List<BridgeStatus> directories, SchedulerStatus scheduler, CatalogState catalog) {

    /**
     * Whether the catalog answers.
     *
     * @param reachable        whether its last use (or the attempt to open it at start) succeeded
     * @param unreachableSince wall-clock ms since which it does not answer, or 0
     * @param reason           the last failure while it does not answer, or null
     */
    public record CatalogState(boolean reachable, long unreachableSince, String reason) {
    }

    /** Queues listed in a status. */
    public static final int MAX_QUEUES = 50;
    /** Parked requests listed per directory. */
    public static final int MAX_LISTED = 20;

    private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    public static String currentVersion() {
        String v = DaemonStatus.class.getPackage().getImplementationVersion();
        return v != null ? v : "development";
    }

    public static byte[] toJson(DaemonStatus status) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(status);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("status cannot be written as JSON", e);
        }
    }
}
