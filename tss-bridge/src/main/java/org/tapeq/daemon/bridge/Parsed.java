package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

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
 */
record Parsed(String pnfsid, Request request, String error, boolean empty, boolean gone) {

    /** Reads and parses {@code file}; never throws. */
    static Parsed read(String pnfsid, Path file, int maxBytes) {
        try {
            byte[] content = ProtocolFiles.readSmallFile(file, maxBytes);
            if (content.length == 0) {
                return new Parsed(pnfsid, null, file + " is empty", true, false);
            }
            return new Parsed(pnfsid, RequestCodec.parse(file.toString(), content), null, false, false);
        } catch (NoSuchFileException e) {
            return new Parsed(pnfsid, null, null, false, true);
        } catch (IOException | RuntimeException e) {
            String message = e.getMessage() != null ? e.getMessage() : e.toString();
            return new Parsed(pnfsid, null, message.contains(file.getFileName().toString()) ? message
                    : file + ": " + message, false, false);
        }
    }
}
