package org.tapeq.scheduler.model;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Read one file back from tape.
 *
 * @param id          caller's id
 * @param pnfsid      the file
 * @param size        expected size, or -1 if unknown (the catalog's size is used and checked)
 * @param storageClass dCache storage class, informational
 * @param path        namespace path, informational
 * @param group       experiment for fair share
 * @param activity    activity label (e.g. {@code Express}), informational, may be null
 * @param priority    higher first, 0 normal
 * @param deadline    loop time by which the file should be staged, or 0 for none
 * @param target      where the bytes go (created or truncated), or null to discard them (size-only mode)
 * @param origin      where the request came from, handed back with its outcome
 */
public record StageRequest(long id, String pnfsid, long size, String storageClass, String path, String group,
                           String activity, int priority, long deadline, Path target, RequestOrigin origin)
        implements TapeRequest {

    public StageRequest {
        Objects.requireNonNull(pnfsid, "pnfsid");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(origin, "origin");
    }

    /** A request with no particular origin. */
    public StageRequest(long id, String pnfsid, long size, String storageClass, String path, String group,
                        String activity, int priority, long deadline, Path target) {
        this(id, pnfsid, size, storageClass, path, group, activity, priority, deadline, target, RequestOrigin.NONE);
    }
}
