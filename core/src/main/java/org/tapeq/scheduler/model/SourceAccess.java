package org.tapeq.scheduler.model;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * How the scheduler looks at and reads a flush's source file: by its path ({@link #BY_PATH}), or, for the
 * daemon's request directories, relative to the {@code out/} directory they hold open (see
 * {@link RequestOrigin#sources}). Neither ever follows a symbolic link named by the source itself.
 */
public interface SourceAccess {

    /** The source's attributes, the entry itself (a symbolic link is not followed). */
    BasicFileAttributes attributes(Path source) throws IOException;

    /** Opens the source for reading, never through a symbolic link. */
    InputStream open(Path source) throws IOException;

    /**
     * Whether the sources are files in a pool's {@code out/} on the pool filesystem, which a data mover with
     * {@code pools.shared} may read itself by the same paths; false (the default) for files only this host has.
     */
    default boolean pooled() {
        return false;
    }

    /** By the source's path. */
    SourceAccess BY_PATH = new SourceAccess() {
        @Override
        public BasicFileAttributes attributes(Path source) throws IOException {
            return Files.readAttributes(source, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }

        @Override
        public InputStream open(Path source) throws IOException {
            return Channels.newInputStream(FileChannel.open(source, StandardOpenOption.READ,
                    LinkOption.NOFOLLOW_LINKS));
        }
    };
}
