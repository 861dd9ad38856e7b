package org.tapeq.loadtest.run;

/**
 * The chain at one moment of the measured phase (wall milliseconds since its start): bytes of completed flushes and
 * stages so far, requests outstanding (issued, not answered), the daemon's queue depth (requests it holds; for a
 * daemon known only by its directory, the request files in request/) and mounts so far (-1 if unknown).
 */
public record Sample(long wallMillis, long bytesFlushed, long bytesStaged, long outstanding, long queued,
                     long mounts) {
}
