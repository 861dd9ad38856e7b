package org.tapeq.scheduler.policy;

import org.tapeq.scheduler.model.MediaType;

/** What a mount policy may see of one queue (a cartridge's reads and bound writes, or a family's writes). */
public interface QueueView {

    /** Files waiting (reads and writes). */
    long files();

    /** Bytes waiting. */
    long bytes();

    /** Arrival time of the oldest waiting request, or Long.MAX_VALUE if none. */
    long oldestArrival();

    /** Arrival time of the newest request. */
    long lastArrival();

    /** Highest priority among waiting requests. */
    int maxPriority();

    /** Earliest deadline among waiting requests, or Long.MAX_VALUE if none. */
    long earliestDeadline();

    /** When the cartridge was last unmounted, or Long.MIN_VALUE if never (or not a cartridge queue). */
    long lastUnmount();

    /** Earliest time a retry may run (backoff after an error), or Long.MIN_VALUE. */
    long retryNotBefore();

    /** Whether the queue holds writes only (no reads). */
    boolean writeOnly();

    /** Media of the cartridge, or of the family's cartridges for a family write queue. */
    MediaType media();

    /**
     * Runs of the waiting reads: groups of requested tape files with no unrequested tape file between them, each
     * entered with one locate (plus one for the queue's writes, appended at the end of data, however many they
     * are). Default: one run per file, for a queue that does not know its positions.
     */
    default long runs() {
        return files();
    }

    /** Bytes of tape files written on the cartridge (live and dead), or -1 if unknown or a family queue. */
    default long cartridgeUsedBytes() {
        return -1;
    }
}
