package org.tapeq.scheduler.format;

import java.io.IOException;
import java.io.InputStream;

/**
 * Reads the manifest of an aggregate from the start of its tape file, for the catalog rebuild from tape.
 * Only the first tar member is read; the members' data is never touched.
 */
public final class ManifestReader {

    private ManifestReader() {
    }

    /**
     * Reads the manifest from a stream positioned at the first byte of an aggregate's tape file, reading at
     * most {@code maxBytes} bytes from it (a manifest takes about 220 bytes, plus about 220 bytes and the length
     * of the path per member; if it is larger than {@code maxBytes}, the error gives its size). The stream
     * is not closed; reading stops at the end of the manifest's data.
     *
     * @throws TapeFormatException if the tape file is not a tar archive, does not start with
     *                             {@value Manifest#MEMBER_NAME}, the manifest is longer than {@code maxBytes}, is
     *                             not valid JSON or is of another format
     * @throws IOException         if reading the stream fails
     */
    public static Manifest read(InputStream tapeFileStream, long maxBytes) throws IOException {
        if (maxBytes < TarFormat.RECORD) {
            throw new IllegalArgumentException("need at least one tar record (512 bytes), got " + maxBytes);
        }
        byte[] json = TarFormat.readFirstMember(tapeFileStream, maxBytes, Manifest.MEMBER_NAME, "tape file");
        return Manifest.fromJson(json);
    }
}
