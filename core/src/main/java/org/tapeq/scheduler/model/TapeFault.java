package org.tapeq.scheduler.model;

/** A classified failure of a tape operation or of the data around it. */
public final class TapeFault extends Exception {

    private final FaultKind kind;
    private final boolean refusal;

    public TapeFault(FaultKind kind, String message) {
        super(message);
        this.kind = kind;
        this.refusal = false;
    }

    private TapeFault(String message, boolean refusal) {
        super(message);
        this.kind = FaultKind.DRIVE;
        this.refusal = refusal;
    }

    /**
     * The drive does not do an optional thing it was asked (ILLEGAL REQUEST, a command it lacks): a {@link
     * FaultKind#DRIVE} fault that says nothing is wrong with the drive, so it is not counted against it.
     */
    public static TapeFault refusal(String message) {
        return new TapeFault(message, true);
    }

    /** Whether this is a {@link #refusal}, not a failure. */
    public boolean refusal() {
        return refusal;
    }

    public TapeFault(FaultKind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.refusal = false;
    }

    public FaultKind kind() {
        return kind;
    }

    @Override
    public String toString() {
        return kind + ": " + getMessage();
    }
}
