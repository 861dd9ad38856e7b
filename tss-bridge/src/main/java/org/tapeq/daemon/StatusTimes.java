package org.tapeq.daemon;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Adds a readable time next to each machine time of a status tree: ISO 8601 with the zone offset
 * ({@code 2026-11-25T19:40:12+01:00}), in the daemon's time zone. The millisecond fields stay for the clients
 * that compute with them ({@code tapeq status}, the load harness).
 *
 * <p>Two clocks meet in a status. The daemon's and the bridges' times are wall-clock milliseconds. The
 * scheduler's are loop time: wall-clock time at speed 1 (production), and the library's own time on a simulated
 * library that runs {@code speed} times faster. Loop times are shown as the wall-clock time they correspond to,
 * {@code wallNow - (loopNow - t) / speed}, so a drive busy since a minute of library time shows a second ago at
 * speed 60, never hours in the future.
 */
final class StatusTimes {

    private static final DateTimeFormatter ISO = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

    private StatusTimes() {
    }

    /** Adds the readable times to {@code status} (the tree of a {@code DaemonStatus}) and returns it. */
    static ObjectNode add(ObjectNode status, double speed, ZoneId zone) {
        long wallNow = status.path("nowMillis").asLong();
        wall(status, "startedMillis", "started", zone);
        wall(status, "nowMillis", "time", zone);
        for (JsonNode d : status.path("directories")) {
            if (d.path("oldestMillis").asLong() != 0) {
                wall((ObjectNode) d, "oldestMillis", "oldest", zone);
            }
            wall((ObjectNode) d, "takenMillis", "taken", zone);
            for (JsonNode p : d.path("parked")) {
                wall((ObjectNode) p, "seenMillis", "seen", zone);
            }
        }
        JsonNode s = status.path("scheduler");
        if (!(s instanceof ObjectNode sched)) {
            return status;
        }
        long loopNow = sched.path("now").asLong();
        Loop loop = t -> iso(wallNow - Math.round((loopNow - t) / speed), zone);
        for (String kind : new String[] {"groups", "families"}) {
            for (JsonNode l : status.path("load").path(kind)) {
                put((ObjectNode) l, "oldestArrival", "oldestArrivalTime", loop);
            }
        }
        put(sched, "now", "time", loop);
        put(sched, "oldestArrival", "oldestArrivalTime", loop);
        for (JsonNode d : sched.path("drives")) {
            put((ObjectNode) d, "since", "sinceTime", loop);
        }
        for (JsonNode q : sched.path("queues")) {
            put((ObjectNode) q, "oldestArrival", "oldestArrivalTime", loop);
            put((ObjectNode) q, "eligibleAt", "eligibleAtTime", loop);
        }
        for (JsonNode b : sched.path("blocked")) {
            put((ObjectNode) b, "since", "sinceTime", loop);
        }
        for (JsonNode a : sched.path("openAggregates")) {
            put((ObjectNode) a, "opened", "openedTime", loop);
        }
        for (JsonNode f : sched.path("recentFaults")) {
            put((ObjectNode) f, "at", "atTime", loop);
        }
        for (JsonNode m : sched.path("migrations")) {
            if (m.path("etaMillis").asLong() > 0) { // -1 while unknown
                put((ObjectNode) m, "etaMillis", "etaTime", loop);
            }
        }
        if (sched.path("reclaim") instanceof ObjectNode reclaim) {
            reclaim(reclaim, loop);
        }
        return status;
    }

    /**
     * Adds the readable times to the reclamation policy's status as {@code tapeq reclaim} answers it, given the
     * wall-clock and loop times of one moment.
     */
    static ObjectNode reclaim(ObjectNode reclaim, long wallNow, long loopNow, double speed, ZoneId zone) {
        reclaim(reclaim, t -> iso(wallNow - Math.round((loopNow - t) / speed), zone));
        return reclaim;
    }

    private static void reclaim(ObjectNode reclaim, Loop loop) {
        put(reclaim, "pausedSince", "pausedSinceTime", loop);
        put(reclaim, "lastLook", "lastLookTime", loop);
    }

    private interface Loop {
        String iso(long loopMillis);
    }

    /** Sets {@code name} from the loop time in {@code field}; a time of 0 or none ("no such time") is skipped. */
    private static void put(ObjectNode node, String field, String name, Loop loop) {
        long t = node.path(field).asLong();
        if (t != 0 && t != Long.MAX_VALUE && t != Long.MIN_VALUE) {
            node.put(name, loop.iso(t));
        }
    }

    private static void wall(ObjectNode node, String field, String name, ZoneId zone) {
        node.put(name, iso(node.path(field).asLong(), zone));
    }

    static String iso(long epochMillis, ZoneId zone) {
        return ZonedDateTime.ofInstant(Instant.ofEpochMilli(epochMillis).truncatedTo(ChronoUnit.SECONDS), zone)
                .format(ISO);
    }
}
