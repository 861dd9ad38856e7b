package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.ByteBuffer;
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
 *                in place), changed while being read, or a transient I/O error; read again shortly before it is
 *                refused
 * @param gone    the file disappeared before it could be read
 * @param version the file's identity when read (inode and modification time), to notice a rewrite; may be null
 */
record Parsed(String pnfsid, Request request, String error, boolean retry, boolean gone, FileVersion version) {

    private static final ThreadLocal<ByteBuffer> SCRATCH = new ThreadLocal<>();

    /** Reads and parses {@code file}; never throws. */
    static Parsed read(HeldDirectory requests, String pnfsid, int maxBytes) {
        BasicFileAttributes attributes;
        try {
            attributes = requests.attributes(pnfsid);
        } catch (NoSuchFileException e) {
            return new Parsed(pnfsid, null, null, false, true, null);
        } catch (IOException | RuntimeException e) {
            return new Parsed(pnfsid, null, named(requests.resolve(pnfsid), e), true, false, null);
        }
        return read(requests, pnfsid, maxBytes, attributes);
    }

    /**
     * As {@link #read(HeldDirectory, String, int)} with the file's {@code attributes} taken just before. A file
     * these attributes let through that is refused while being read (it grew past the limit, it became a link)
     * changed under the reader, as one written in place does: it is read again shortly rather than refused at
     * once for what it looked like halfway through, and refused again with another reason once finished.
     */
    static Parsed read(HeldDirectory requests, String pnfsid, int maxBytes, BasicFileAttributes attributes) {
        Path file = requests.resolve(pnfsid);
        FileVersion version = FileVersion.of(attributes);
        boolean acceptable = !attributes.isSymbolicLink() && attributes.isRegularFile()
                && attributes.size() <= maxBytes;
        byte[] content;
        try {
            content = requests.readSmall(pnfsid, maxBytes, attributes, scratch(maxBytes));
        } catch (NoSuchFileException e) {
            return new Parsed(pnfsid, null, null, false, true, null);
        } catch (ProtocolException e) {
            // A symbolic link, not a regular file, too large: that does not change by waiting, unless the file
            // changed while it was read.
            return new Parsed(pnfsid, null, e.getMessage(), acceptable, false, version);
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

    /**
     * The calling thread's read buffer, direct and one byte larger than the largest request file allowed: the
     * intake pool's few threads read millions of request files at a restart, each without a stream or a temporary
     * buffer.
     */
    private static ByteBuffer scratch(int maxBytes) {
        ByteBuffer b = SCRATCH.get();
        if (b == null || b.capacity() <= maxBytes) {
            b = ByteBuffer.allocateDirect(maxBytes + 1);
            SCRATCH.set(b);
        }
        return b;
    }

    private static String named(Path file, Exception e) {
        String message = e.getMessage() != null ? e.getMessage() : e.toString();
        return message.contains(file.getFileName().toString()) ? message : file + ": " + message;
    }

    /**
     * The identity of the file now named {@code pnfsid}: providers write request files under a temporary name and
     * rename them into place, so a rewritten request is a new inode. Null if there is none.
     */
    static FileVersion version(HeldDirectory requests, String pnfsid) throws IOException {
        try {
            return FileVersion.of(requests.attributes(pnfsid));
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
