package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

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
 * @param version the file's identity when read (inode and modification time), to notice a rewrite; may be null
 */
record Parsed(String pnfsid, Request request, String error, boolean empty, boolean gone, String version) {

    /** Reads and parses {@code file}; never throws. */
    static Parsed read(String pnfsid, Path file, int maxBytes) {
        String version = null;
        try {
            version = version(file);
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

    /**
     * The identity of the file now at {@code file}: providers write request files under a temporary name and
     * rename them into place, so a rewritten request is a new inode. Null if there is none.
     */
    static String version(Path file) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return a.fileKey() + "@" + a.lastModifiedTime().toMillis();
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
