package org.tapeq.poolemulator;

import java.util.concurrent.CancellationException;

/** How a request ended, as the pool saw it: completed with a result, or failed with a code or exception. */
public final class Outcome {
    private final boolean completed;
    private final Object result;
    private final int returnCode;
    private final String message;
    private final Exception exception;

    private Outcome(boolean completed, Object result, int returnCode, String message, Exception exception) {
        this.completed = completed;
        this.result = result;
        this.returnCode = returnCode;
        this.message = message;
        this.exception = exception;
    }

    static Outcome completed(Object result) {
        return new Outcome(true, result, 0, null, null);
    }

    static Outcome failed(int rc, String message) {
        return new Outcome(false, null, rc, message, null);
    }

    static Outcome failed(Exception cause) {
        return new Outcome(false, null, 0, String.valueOf(cause.getMessage()), cause);
    }

    public boolean isCompleted() {
        return completed;
    }

    public boolean isFailed() {
        return !completed;
    }

    /** Failed through {@code failed(Exception)} with a {@link CancellationException}. */
    public boolean isCancelled() {
        return exception instanceof CancellationException;
    }

    /** The value passed to {@code completed}. */
    public Object result() {
        return result;
    }

    /** The code passed to {@code failed(int, String)}, or 0 when failed with an exception. */
    public int returnCode() {
        return returnCode;
    }

    public String message() {
        return message;
    }

    /** The exception passed to {@code failed(Exception)}, or null. */
    public Exception exception() {
        return exception;
    }

    @Override
    public String toString() {
        if (completed) {
            return "completed(" + result + ")";
        }
        return exception != null ? "failed(" + exception + ")" : "failed(rc=" + returnCode + ", " + message + ")";
    }
}
