package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.ZoneOffset;
import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.engine.lifecycle.ReclaimStatus;

/** The reclamation policy's loop times shown as the wall-clock times they correspond to. */
class StatusTimesReclaimTest {

    @Test
    void pausedSinceIsShownAsWallClockAtTheLibrarysSpeed() {
        long loopNow = 3_600_000; // a simulated library's loop: an hour of library time since it started
        long wallNow = 1_795_000_000_000L; // 2026-11-18T...Z
        // paused 50 minutes of library time ago: one wall-clock minute at speed 50
        ReclaimStatus status = new ReclaimStatus("paused", loopNow - 3_000_000, "recall campaign", 0.3, 0, List.of(),
                0, 0, List.of(), 0);
        ObjectNode tree = DaemonStatus.JSON.valueToTree(status);

        StatusTimes.reclaim(tree, wallNow, loopNow, 50, ZoneOffset.UTC);

        assertEquals(StatusTimes.iso(wallNow - 60_000, ZoneOffset.UTC), tree.path("pausedSinceTime").asText());
        assertFalse(tree.has("lastLookTime"), "no look yet: no time shown");
    }
}
