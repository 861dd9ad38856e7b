package org.tapeq.scheduler.model;

import java.util.List;

/**
 * Grants room in the stage buffer (ENDIT's {@code in/}) before the scheduler reads files into it, so the
 * buffer never overflows. Called on the scheduler's event loop; must not block.
 *
 * <p>Before each read the scheduler asks for the files of that read that have a target (size-only stages,
 * target null, need no room). One read can deliver several files (members of one tape file read in one
 * pass), so a request is for all of them or none. A refused drive keeps its cartridge and waits; it asks
 * again after {@code Scheduler.spaceFreed()}. Releasing is the caller's business: it frees a file's room
 * when the file leaves the buffer, or when its request ends without it (the {@link RequestListener} sees
 * every outcome), and then calls {@code spaceFreed()}. To avoid waiting forever, an implementation must grant
 * whenever nothing is reserved, even a read larger than the whole buffer.
 */
@FunctionalInterface
public interface StageSpace {

    /** No limit: every read goes ahead (the default). */
    StageSpace UNLIMITED = claims -> true;

    /**
     * Reserves room for all of these files, or for none and returns false to make the drive wait.
     * Idempotent per request: a read that failed and is tried again asks again for the same requests, whose
     * room is already reserved and must not be counted twice. An exception is logged and counts as a refusal.
     */
    boolean tryReserve(List<Claim> claims);

    /**
     * One file about to be read.
     *
     * @param request the stage request
     * @param bytes   the room the file needs: its size from the catalog (the request's own size may be -1)
     */
    record Claim(StageRequest request, long bytes) {
    }
}
