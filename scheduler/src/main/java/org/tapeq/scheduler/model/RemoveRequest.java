package org.tapeq.scheduler.model;

import java.util.Objects;

/** Delete a file's tape copy: a logical delete in the catalog; its space becomes reclaimable. */
public record RemoveRequest(long id, String pnfsid, String group) implements TapeRequest {

    public RemoveRequest {
        Objects.requireNonNull(pnfsid, "pnfsid");
        Objects.requireNonNull(group, "group");
    }
}
