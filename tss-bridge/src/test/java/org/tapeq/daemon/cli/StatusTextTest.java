package org.tapeq.daemon.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** {@code tapeq status} as text: what an operator reads first. */
class StatusTextTest {

    private static String print(String json) throws Exception {
        JsonNode status = new ObjectMapper().readTree(json);
        StringWriter out = new StringWriter();
        try (PrintWriter w = new PrintWriter(out)) {
            StatusText.print(status, w);
        }
        return out.toString();
    }

    @Test
    void catalogUnreachable_isShownWithSinceWhenAndWhy() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":125000,\"catalog\":"
                + "{\"reachable\":false,\"unreachableSince\":5000,\"reason\":\"connection refused\"}}");
        assertTrue(text.contains("catalog: UNREACHABLE for 2 min"), text);
        assertTrue(text.contains("connection refused"), text);
        assertTrue(text.contains("no writes"), text);
    }

    @Test
    void catalogReachable_isOneLine() throws Exception {
        String text = print("{\"version\":\"1\",\"startedMillis\":0,\"nowMillis\":1000,\"catalog\":"
                + "{\"reachable\":true,\"unreachableSince\":0,\"reason\":null}}");
        assertTrue(text.contains("catalog: reachable"), text);
    }
}
