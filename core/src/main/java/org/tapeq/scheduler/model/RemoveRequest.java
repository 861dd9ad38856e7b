package org.tapeq.scheduler.model;

import java.util.Objects;

/** Delete a file's tape copy: a logical delete in the catalog; its space becomes reclaimable. */
public record RemoveRequest(long id, String pnfsid, String group, RequestOrigin origin) implements TapeRequest {

    public RemoveRequest {
        Objects.requireNonNull(pnfsid, "pnfsid");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(origin, "origin");
    }

    /** A request with no particular origin. */
    public RemoveRequest(long id, String pnfsid, String group) {
        this(id, pnfsid, group, RequestOrigin.NONE);
    }
}
