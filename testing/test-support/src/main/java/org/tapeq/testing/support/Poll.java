package org.tapeq.testing.support;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Waiting in a test for something another thread or process does: the condition is asked again every few
 * milliseconds until it holds, and the test fails (an {@link AssertionError} naming what was awaited, the time
 * waited and the last exception the condition threw) when the deadline passes first. A test that polls asserts
 * the outcome it waited for, so it fails when nothing happens; it never sleeps a fixed time and hopes.
 */
public final class Poll {

    /** The deadline when a test names none. */
    public static final Duration DEFAULT = Duration.ofSeconds(30);
    /** Between two questions. */
    private static final long PAUSE_MILLIS = 5;

    private Poll() {
    }

    /** A condition that may throw (e.g. it reads files or asks a server); an exception counts as "not yet". */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /** Waits up to {@link #DEFAULT} until {@code condition} holds. */
    public static void until(String what, Condition condition) throws InterruptedException {
        until(what, DEFAULT, condition);
    }

    /** Waits up to {@code timeout} until {@code condition} holds; fails naming {@code what} otherwise. */
    public static void until(String what, Duration timeout, Condition condition) throws InterruptedException {
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
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting until " + what
                        + (last != null ? " (last error: " + last + ")" : ""), last);
            }
            Thread.sleep(PAUSE_MILLIS);
        }
    }

    /** Calls {@code value} until it returns non-null, and returns that; fails after {@code timeout}. */
    public static <T> T value(String what, Duration timeout, Callable<T> value) throws InterruptedException {
        Object[] box = new Object[1];
        until(what, timeout, () -> (box[0] = value.call()) != null);
        @SuppressWarnings("unchecked")
        T t = (T) box[0];
        return t;
    }
}
