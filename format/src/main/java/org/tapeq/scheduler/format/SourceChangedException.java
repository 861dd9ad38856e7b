package org.tapeq.scheduler.format;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A member's source file no longer matches what {@link AggregatePlan#prepare} saw (gone, replaced, other
 * size or checksum) while the aggregate was being written. The write must be aborted; the problem is the
 * file's, not the tape's.
 */
public class SourceChangedException extends IOException {
    private final String pnfsid;
    private final transient Path source;

    public SourceChangedException(String pnfsid, Path source, String reason) {
        super(source + " (" + pnfsid + ") changed since the aggregate was prepared: " + reason);
        this.pnfsid = pnfsid;
        this.source = source;
    }

    public SourceChangedException(String pnfsid, Path source, String reason, Throwable cause) {
        this(pnfsid, source, reason);
        initCause(cause);
    }

    public String pnfsid() {
        return pnfsid;
    }

    public Path source() {
        return source;
    }
}
