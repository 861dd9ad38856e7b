package org.tapeq.provider;

/** How a request ends: completed with a value, or failed with a return code or an exception. */
final class Ending {
    final boolean success;
    final Object value;
    final int returnCode;
    final String message;
    final Exception exception;

    private Ending(boolean success, Object value, int returnCode, String message, Exception exception) {
        this.success = success;
        this.value = value;
        this.returnCode = returnCode;
        this.message = message;
        this.exception = exception;
    }

    static Ending completed(Object value) {
        return new Ending(true, value, 0, null, null);
    }

    static Ending failed(int returnCode, String message) {
        return new Ending(false, null, returnCode, message, null);
    }

    static Ending failed(Exception exception) {
        return new Ending(false, null, 0, String.valueOf(exception.getMessage()), exception);
    }

    @Override
    public String toString() {
        if (success) {
            return "completed";
        }
        return exception != null ? "failed: " + exception : "failed with rc " + returnCode + ": " + message;
    }
}
