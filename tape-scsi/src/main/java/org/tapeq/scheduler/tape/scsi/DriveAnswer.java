package org.tapeq.scheduler.tape.scsi;

import org.tapeq.scheduler.model.TapeFault;

/**
 * A drive's answer to an optional command (READ END OF WRAP POSITION, the recommended access order commands): the
 * value, or the fault. {@code unsupported}: the drive lacks the command ({@link FaultMap#lacksCommand}), a
 * {@link TapeFault#refusal} that will not change for this drive, so it is not asked again. A
 * malformed answer is a refusal too, but only of this request. Any other failure (another sense key, a timeout, the
 * tape host unreachable) is a fault as {@link FaultMap} classifies it.
 */
record DriveAnswer<T>(T value, TapeFault fault, boolean unsupported) {

    static <T> DriveAnswer<T> of(T value) {
        return new DriveAnswer<>(value, null, false);
    }

    /** The drive does not implement the command. */
    static <T> DriveAnswer<T> notOffered(String message) {
        return new DriveAnswer<>(null, TapeFault.refusal(message), true);
    }

    /** The request failed (a refusal of this request only, or a fault). */
    static <T> DriveAnswer<T> failed(TapeFault fault) {
        return new DriveAnswer<>(null, fault, false);
    }

    boolean ok() {
        return fault == null;
    }

    /** The value, or the fault thrown. */
    T get() throws TapeFault {
        if (fault != null) {
            throw fault;
        }
        return value;
    }
}
