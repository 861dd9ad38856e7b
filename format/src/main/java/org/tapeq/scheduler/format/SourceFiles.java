package org.tapeq.scheduler.format;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.zip.Adler32;

/** Checks and reads the source files of aggregate members without following symbolic links. */
final class SourceFiles {
    static final int BUFFER_SIZE = 1 << 20;

    private SourceFiles() {
    }

    /** Why {@code member}'s source cannot be the source of a member of its size, or null if it can. */
    static String problem(AggregateMember member) {
        long size = member.size();
        BasicFileAttributes attributes;
        try {
            attributes = member.access().attributes(member.source());
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

    /** Opens {@code member}'s source for reading; fails if it is a symbolic link. */
    static InputStream open(AggregateMember member) throws IOException {
        return member.access().open(member.source());
    }

    /**
     * Adler-32 of a member's source, which must have exactly the member's size in bytes.
     *
     * @throws IOException with a reason that names no file, if it cannot be read or has another length
     */
    static long adler32(AggregateMember member) throws IOException {
        long size = member.size();
        Adler32 adler = new Adler32();
        byte[] buffer = new byte[(int) Math.min(BUFFER_SIZE, Math.max(size, 1))];
        try (InputStream in = open(member)) {
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
