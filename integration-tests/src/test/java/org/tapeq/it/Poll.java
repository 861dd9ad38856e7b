package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.Callable;

/** Waiting for a condition, with a deadline and a message that says what was awaited. */
final class Poll {

    static final Duration DEFAULT = Duration.ofSeconds(30);

    private Poll() {
    }

    /** A condition that may throw (e.g. it reads files); an exception counts as "not yet". */
    interface Condition {
        boolean holds() throws Exception;
    }

    static void until(String what, Condition condition) throws InterruptedException {
        until(what, DEFAULT, condition);
    }

    static void until(String what, Duration timeout, Condition condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (true) {
            try {
                if (condition.holds()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() > deadline) {
                fail("timed out after " + timeout.toMillis() + " ms waiting until " + what
                        + (last != null ? " (last error: " + last + ")" : ""));
            }
            Thread.sleep(10);
        }
    }

    /** Calls {@code c} until it returns non-null; fails after the timeout. */
    static <T> T value(String what, Duration timeout, Callable<T> c) throws InterruptedException {
        Object[] box = new Object[1];
        until(what, timeout, () -> (box[0] = c.call()) != null);
        @SuppressWarnings("unchecked")
        T t = (T) box[0];
        return t;
    }
}
