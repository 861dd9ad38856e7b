package org.tapeq.scheduler.model;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Write one file to tape.
 *
 * @param id            caller's id
 * @param pnfsid        the file
 * @param size          its size in bytes; the source must have exactly this size
 * @param storageClass  dCache storage class; selects the tape family
 * @param path          namespace path; recorded, and used by co-location path rules
 * @param colocationKey explicit dataset hint, or null to derive one from the path
 * @param group         experiment for fair share
 * @param priority      higher first, 0 normal
 * @param deadline      loop time by which it should be on tape, or 0 for none
 * @param checksum      expected checksum as {@code type:hex} (e.g. {@code adler32:0a1b2c3d}), or null
 * @param source        the file to read, or null in size-only mode (nothing is read or written)
 * @param origin        where the request came from, handed back with its outcome
 */
public record FlushRequest(long id, String pnfsid, long size, String storageClass, String path,
                           String colocationKey, String group, int priority, long deadline, String checksum,
                           Path source, RequestOrigin origin) implements TapeRequest {

    /** A request with no particular origin. */
    public FlushRequest(long id, String pnfsid, long size, String storageClass, String path, String colocationKey,
                        String group, int priority, long deadline, String checksum, Path source) {
        this(id, pnfsid, size, storageClass, path, colocationKey, group, priority, deadline, checksum, source,
                RequestOrigin.NONE);
    }

    public FlushRequest {
        Objects.requireNonNull(pnfsid, "pnfsid");
        Objects.requireNonNull(storageClass, "storageClass");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(origin, "origin");
        if (size < 0) {
            throw new IllegalArgumentException("negative size for " + pnfsid);
        }
    }
}
