package org.tapeq.testing.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class PollTest {

    @Test
    void until_conditionHoldsAfterSomeAsks_returns() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        Poll.until("the third ask", () -> asked.incrementAndGet() == 3);
        assertEquals(3, asked.get());
    }

    @Test
    void until_neverHolds_failsNamingWhatAndTheLastError() {
        IOException cause = new IOException("no such file");
        AssertionError e = assertThrows(AssertionError.class, () -> Poll.until("the file appears",
                Duration.ofMillis(50), () -> {
                    throw cause;
                }));
        assertTrue(e.getMessage().startsWith("timed out after 50 ms waiting until the file appears"), e.getMessage());
        assertTrue(e.getMessage().contains("no such file"), e.getMessage());
        assertSame(cause, e.getCause());
    }

    @Test
    void value_returnsTheFirstNonNull() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        assertEquals("ready", Poll.value("ready", Duration.ofSeconds(10),
                () -> asked.incrementAndGet() < 3 ? null : "ready"));
    }
}
