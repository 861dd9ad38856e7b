package org.tapeq.scheduler.model;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.LinkOption;
import java.nio.file.StandardOpenOption;

/**
 * Where a request came from (in the daemon: the request directory that sent it). Chosen by the caller and
 * only handed back with the request's outcome, so the caller can route the outcome without encoding anything
 * in the request id. The scheduler never looks inside it; it asks it to open a stage's target, so an origin that
 * holds its directory open decides where the bytes go ({@link #openTarget}) and come from ({@link #sources}).
 */
public interface RequestOrigin {

    /** No particular origin: requests built by tools and tests that route nothing. */
    RequestOrigin NONE = () -> "none";

    /** A short name for logs. */
    String name();

    /**
     * Opens {@code request}'s target for writing, created or truncated, never through a symbolic link. By default
     * by its path; the daemon's request directories open it relative to the directory they hold open.
     */
    default SeekableByteChannel openTarget(StageRequest request) throws IOException {
        return FileChannel.open(request.target(), StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * How the sources of this origin's flushes are looked at and read. By default by their paths; the daemon's
     * request directories read them relative to the {@code out/} directory they hold open.
     */
    default SourceAccess sources() {
        return SourceAccess.BY_PATH;
    }
}
