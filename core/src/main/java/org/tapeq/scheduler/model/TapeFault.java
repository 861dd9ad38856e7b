package org.tapeq.scheduler.model;

/** A classified failure of a tape operation or of the data around it. */
public final class TapeFault extends Exception {

    private final FaultKind kind;

    public TapeFault(FaultKind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public TapeFault(FaultKind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public FaultKind kind() {
        return kind;
    }

    @Override
    public String toString() {
        return kind + ": " + getMessage();
    }
}
