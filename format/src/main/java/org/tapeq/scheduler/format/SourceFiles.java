package org.tapeq.scheduler.format;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.zip.Adler32;

/** Checks and reads the source files of aggregate members without following symbolic links. */
final class SourceFiles {
    static final int BUFFER_SIZE = 1 << 20;

    private SourceFiles() {
    }

    /** Why {@code file} cannot be the source of a member of {@code size} bytes, or null if it can. */
    static String problem(Path file, long size) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return describe(e);
        }
        if (attributes.isSymbolicLink()) {
            return "is a symbolic link (links are not followed)";
        }
        if (!attributes.isRegularFile()) {
            return attributes.isDirectory() ? "is a directory, not a regular file" : "is not a regular file";
        }
        if (attributes.size() != size) {
            return "has " + attributes.size() + " bytes, but " + size + " were announced";
        }
        return null;
    }

    /** Opens {@code file} for reading; fails if it is a symbolic link. */
    static InputStream open(Path file) throws IOException {
        return Channels.newInputStream(FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * Adler-32 of a file that must have exactly {@code size} bytes.
     *
     * @throws IOException with a reason that names no file, if it cannot be read or has another length
     */
    static long adler32(Path file, long size) throws IOException {
        Adler32 adler = new Adler32();
        byte[] buffer = new byte[(int) Math.min(BUFFER_SIZE, Math.max(size, 1))];
        try (InputStream in = open(file)) {
            long remaining = size;
            while (remaining > 0) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, remaining));
                if (n < 0) {
                    throw new IOException("ends after " + (size - remaining) + " of " + size + " bytes");
                }
                adler.update(buffer, 0, n);
                remaining -= n;
            }
            if (in.read() >= 0) {
                throw new IOException("is longer than the " + size + " bytes announced");
            }
        }
        return adler.getValue();
    }

    /** A short reason for an I/O failure on a source file, without the file name. */
    static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "does not exist";
        }
        if (e instanceof AccessDeniedException) {
            return "cannot be read: permission denied";
        }
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            return "cannot be read: " + fse.getReason();
        }
        return "cannot be read: " + e.getMessage();
    }
}
