package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

import org.tapeq.protocol.HeldDirectory;
import org.tapeq.protocol.ProtocolException;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;

/**
 * A request file as read by the intake pool: its request, or why it could not be read.
 *
 * @param pnfsid  the file's name
 * @param request the parsed request, or null
 * @param error   why it is refused (names the file), or null
 * @param retry   not readable as a request yet: empty, truncated or malformed (perhaps still being written
 *                in place), or a transient I/O error; read again shortly before it is refused
 * @param gone    the file disappeared before it could be read
 * @param version the file's identity when read (inode and modification time), to notice a rewrite; may be null
 */
record Parsed(String pnfsid, Request request, String error, boolean retry, boolean gone, String version) {

    /** Reads and parses {@code file}; never throws. */
    static Parsed read(HeldDirectory requests, String pnfsid, int maxBytes) {
        Path file = requests.resolve(pnfsid);
        String version = null;
        byte[] content;
        try {
            BasicFileAttributes attributes = requests.attributes(pnfsid);
            version = version(attributes);
            content = requests.readSmall(pnfsid, maxBytes, attributes);
        } catch (NoSuchFileException e) {
            return new Parsed(pnfsid, null, null, false, true, null);
        } catch (ProtocolException e) {
            // A symbolic link, not a regular file, too large: that does not change by waiting.
            return new Parsed(pnfsid, null, e.getMessage(), false, false, version);
        } catch (IOException | RuntimeException e) {
            return new Parsed(pnfsid, null, named(file, e), true, false, version);
        }
        try {
            if (content.length == 0) {
                return new Parsed(pnfsid, null, file + " is empty", true, false, version);
            }
            return new Parsed(pnfsid, RequestCodec.parse(file.toString(), content), null, false, false, version);
        } catch (IOException | RuntimeException e) {
            return new Parsed(pnfsid, null, named(file, e), true, false, version);
        }
    }

    private static String named(Path file, Exception e) {
        String message = e.getMessage() != null ? e.getMessage() : e.toString();
        return message.contains(file.getFileName().toString()) ? message : file + ": " + message;
    }

    /**
     * The identity of the file now named {@code pnfsid}: providers write request files under a temporary name and
     * rename them into place, so a rewritten request is a new inode. Null if there is none.
     */
    static String version(HeldDirectory requests, String pnfsid) throws IOException {
        try {
            return version(requests.attributes(pnfsid));
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static String version(BasicFileAttributes a) {
        return a.fileKey() + "@" + a.lastModifiedTime().toMillis();
    }
}
