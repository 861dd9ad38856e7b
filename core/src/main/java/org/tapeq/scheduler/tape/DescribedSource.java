package org.tapeq.scheduler.tape;

import java.nio.file.Path;
import java.util.List;

/**
 * The described form of a {@link TapeFileSource}: what a library whose drives sit on a host that reaches the same
 * files (a data mover on the shared pool filesystem) needs to produce the tape file's bytes itself instead of being
 * handed them: the tape format's description of the file ({@code format} names it; for an aggregate its manifest,
 * which gives every member, its size, offset and checksum) and each member's source file, in the description's
 * order.
 */
public record DescribedSource(String format, byte[] description, List<Path> sources) {

    public DescribedSource {
        sources = List.copyOf(sources);
    }
}
