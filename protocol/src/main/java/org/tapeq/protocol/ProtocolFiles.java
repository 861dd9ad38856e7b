package org.tapeq.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Reads small protocol files (requests, error files, checksum files) defensively: never through a symbolic
 * link, only regular files, and never more than a bound, so a hostile or broken file costs little and is
 * refused with a {@link ProtocolException} that names it.
 */
public final class ProtocolFiles {
    /** Request, error and checksum files are far smaller than this; anything larger is refused. */
    public static final int MAX_PROTOCOL_FILE_SIZE = 64 * 1024;

    private ProtocolFiles() {
    }

    /**
     * The content of {@code file}; throws {@link NoSuchFileException} if it does not exist and
     * {@link ProtocolException} if it is a link, not a regular file, or larger than {@code maxSize}.
     */
    public static byte[] readSmallFile(Path file, int maxSize) throws IOException {
        return readSmallFile(file, maxSize, Files.readAttributes(file, BasicFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * As {@link #readSmallFile(Path, int)}, with {@code attributes} just read from {@code file} without following
     * links (for callers that need them too: one stat instead of two).
     */
    public static byte[] readSmallFile(Path file, int maxSize, BasicFileAttributes attributes) throws IOException {
        check(file, maxSize, attributes);
        try (InputStream in = Channels.newInputStream(Files.newByteChannel(file, StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS))) {
            return readBounded(file, in, maxSize);
        } catch (FileSystemLoopException e) {
            throw new ProtocolException(file, "became a symbolic link while being read, refused", e);
        }
    }

    /** Refuses {@code file} if its {@code attributes} say a link, not a regular file, or more than {@code maxSize}. */
    static void check(Path file, int maxSize, BasicFileAttributes attributes) throws ProtocolException {
        if (attributes.isSymbolicLink()) {
            throw new ProtocolException(file, "is a symbolic link, refused", null);
        }
        if (!attributes.isRegularFile()) {
            throw new ProtocolException(file, "is not a regular file", null);
        }
        if (attributes.size() > maxSize) {
            throw new ProtocolException(file, "has " + attributes.size() + " bytes, more than the "
                    + maxSize + " allowed", null);
        }
    }

    /** Reads {@code in} to its end, refusing more than {@code maxSize} bytes. */
    static byte[] readBounded(Path file, InputStream in, int maxSize) throws IOException {
        byte[] data = in.readNBytes(maxSize + 1);
        if (data.length > maxSize) {
            throw grewBeyond(file, maxSize);
        }
        return data;
    }

    /** {@code file} had more than {@code maxSize} bytes when read, though not before. */
    static ProtocolException grewBeyond(Path file, int maxSize) {
        return new ProtocolException(file, "grew beyond the " + maxSize + " bytes allowed", null);
    }
}
