package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;

import org.tapeq.protocol.ProtocolFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;

/**
 * A request file as read by the intake pool: its request, or why it could not be read.
 *
 * @param pnfsid  the file's name
 * @param request the parsed request, or null
 * @param error   why it is refused (names the file), or null
 * @param empty   the file was empty: perhaps still being written, read again shortly
 * @param gone    the file disappeared before it could be read
 * @param version the file as found just before it was read, or null if it was gone
 */
record Parsed(String pnfsid, Request request, String error, boolean empty, boolean gone, Version version) {

    /**
     * Which file was read: its identity (inode), modification time and size. A rescan compares it with the file
     * it lists to notice a request file that was removed and written again, or rewritten in place, between two
     * rescans (no event tells when the pool writes from another host of a shared filesystem).
     */
    record Version(Object fileKey, FileTime modified, long size) {

        static Version of(BasicFileAttributes a) {
            return new Version(a.fileKey(), a.lastModifiedTime(), a.size());
        }

        /** The version of {@code file} now, or null if it cannot be read. */
        static Version of(Path file) {
            try {
                return of(Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
            } catch (IOException e) {
                return null;
            }
        }
    }

    /** Reads and parses {@code file}; never throws. */
    static Parsed read(String pnfsid, Path file, int maxBytes) {
        Version version = null;
        try {
            version = Version.of(Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
            byte[] content = ProtocolFiles.readSmallFile(file, maxBytes);
            if (content.length == 0) {
                return new Parsed(pnfsid, null, file + " is empty", true, false, version);
            }
            return new Parsed(pnfsid, RequestCodec.parse(file.toString(), content), null, false, false, version);
        } catch (NoSuchFileException e) {
            return new Parsed(pnfsid, null, null, false, true, null);
        } catch (IOException | RuntimeException e) {
            String message = e.getMessage() != null ? e.getMessage() : e.toString();
            return new Parsed(pnfsid, null, message.contains(file.getFileName().toString()) ? message
                    : file + ": " + message, false, false, version);
        }
    }
}
