package org.tapeq.daemon.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** {@code tapeq reclaim status}'s line. */
class ReclaimCommandsTest {

    @Test
    void aPauseShowsTheDaemonsWallClockTimeNotTheLoopTime() {
        ObjectNode s = new ObjectMapper().createObjectNode();
        s.put("state", "paused").put("reason", "recall campaign").put("pausedSince", 3_000_000L)
                .put("pausedSinceTime", "2026-11-26T10:40:00Z").put("threshold", 0.3).put("candidates", 2)
                .put("queued", 0).put("started", 0);
        s.putArray("listed");
        s.putArray("needOperator");
        StringWriter text = new StringWriter();

        ReclaimCommands.printStatus(s, new PrintWriter(text, true));

        assertTrue(text.toString().startsWith("reclaim: paused (recall campaign, since 2026-11-26T10:40:00Z)"),
                text.toString());
    }
}
