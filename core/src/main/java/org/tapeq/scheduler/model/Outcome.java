package org.tapeq.scheduler.model;


/** How a request ended. Every accepted request ends exactly once. */
public sealed interface Outcome {

    /** The file was read and written to the target; its checksum matched the catalog. */
    record Staged(long bytes, String checksum) implements Outcome {
    }

    /** The file is on tape, verified, and recorded in the catalog at this location. */
    record Flushed(FileRecord location) implements Outcome {
    }

    /** The catalog entry was deleted ({@code existed}) or there was none. */
    record Removed(boolean existed) implements Outcome {
    }

    /**
     * The request failed for good.
     *
     * @param kind       what went wrong
     * @param returnCode the dCache return code to report ({@code org.tapeq.protocol.ReturnCodes})
     * @param message    for a human: names the file, the cartridge and the reason
     * @param attempts   how many times it was tried
     */
    record Failed(FaultKind kind, int returnCode, String message, int attempts) implements Outcome {
    }

    /** The request was cancelled; nothing was delivered and any partial target was left for the caller. */
    record Cancelled() implements Outcome {
    }
}
