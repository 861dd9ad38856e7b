package org.tapeq.scheduler.engine;

import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.model.FaultKind;

/** The deliberate mapping from a fault class to the return code dCache gets (docs/scheduler.md, "Faults"). */
final class Outcomes {

    private Outcomes() {
    }

    /**
     * Return code for a request that failed for good with this fault. Codes 41-43 are never used: dCache
     * would disable the whole pool for one file.
     */
    static int returnCode(FaultKind kind) {
        return switch (kind) {
            // The copy is unreadable or not where the catalog says: dCache should try another copy.
            case MEDIA, NOT_FOUND, LABEL -> ReturnCodes.NOT_ON_TAPE;
            // The bytes are not the recorded ones: retrying the same copy cannot help.
            case CHECKSUM -> ReturnCodes.DATA_MISMATCH;
            // A flush whose file changed or has the wrong size: dCache must not retry blindly.
            case SOURCE -> ReturnCodes.DATA_MISMATCH;
            // Transient: drives, robot, tape full, the target disk. dCache retries later.
            case DRIVE, ROBOT, TAPE_FULL, TARGET, CATALOG -> ReturnCodes.FAILED;
        };
    }

    /** Whether retrying the same request could succeed. */
    static boolean retriable(FaultKind kind) {
        return switch (kind) {
            case NOT_FOUND, SOURCE -> false;
            default -> true;
        };
    }
}
