package org.tapeq.scheduler.format;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * The tar conventions of tapeq's tape files, in one place: how the writer is configured, what every member
 * header contains, how many bytes a header takes, and how the first member is read back.
 */
final class TarFormat {
    /** A tar record; every header and every member's padded data is a multiple of it. */
    static final int RECORD = 512;
    /** The end-of-archive marker: two zero records. */
    static final int END_OF_ARCHIVE = 2 * RECORD;

    private static final long FILE_MODE = 0100444;
    /** ustar's name field. */
    private static final int USTAR_NAME_BYTES = 100;
    /** The largest number in ustar's 12-byte numeric fields (11 octal digits). */
    private static final long USTAR_MAX_OCTAL = 077777777777L;
    private static final String OWNER = "tapeq";

    private TarFormat() {
    }

    /**
     * A tar writer as tapeq uses it: pax headers for long names and for numbers beyond ustar's fields (a
     * member of 8 GiB or more gets a pax {@code size} record), and a blocking of one record, so that the
     * archive ends right after its end-of-archive marker. Closing it would close {@code out}; callers call
     * {@code finish()} instead.
     */
    static TarArchiveOutputStream newWriter(OutputStream out) {
        TarArchiveOutputStream tar = new TarArchiveOutputStream(out, RECORD, StandardCharsets.UTF_8.name());
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        tar.setAddPaxHeadersForNonAsciiNames(true);
        return tar;
    }

    /**
     * The header of a regular-file member. Everything in it is fixed by the arguments (owner tapeq, uid and
     * gid 0, read-only mode, mtime in whole seconds), so the same member always gets the same header bytes.
     */
    static TarArchiveEntry fileEntry(String name, long size, long mtimeMillis) {
        TarArchiveEntry entry = new TarArchiveEntry(name, true);
        entry.setSize(size);
        entry.setMode((int) FILE_MODE);
        entry.setLastModifiedTime(FileTime.from(Instant.ofEpochSecond(Math.floorDiv(mtimeMillis, 1000L))));
        entry.setUserId(0L);
        entry.setGroupId(0L);
        entry.setUserName(OWNER);
        entry.setGroupName(OWNER);
        return entry;
    }

    /**
     * Bytes the writer emits for {@code entry}'s header, including any pax extended header in front of it.
     * A header that plainly fits ustar's fields (see {@link #fitsUstar}) is one record; any other is measured by
     * letting a writer configured like {@link #newWriter} emit it into a counter, rather than by re-deriving
     * commons-compress's rules for pax headers. The aggregate writer checks the prediction anyway.
     */
    static long headerLength(TarArchiveEntry entry) {
        return fitsUstar(entry) ? RECORD : measuredHeaderLength(entry);
    }

    /**
     * Whether a header needs nothing beyond ustar's fields: an ASCII name shorter than its 100 bytes, and a size
     * and mtime within its 11 octal digits (under 8 GiB; before the year 2242). {@link #newWriter} adds pax
     * records only beyond these.
     */
    static boolean fitsUstar(TarArchiveEntry entry) {
        String name = entry.getName();
        if (name.length() >= USTAR_NAME_BYTES) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) > 0x7e || name.charAt(i) < 0x20) {
                return false;
            }
        }
        long mtime = entry.getLastModifiedTime().toMillis() / 1000;
        return entry.getSize() >= 0 && entry.getSize() <= USTAR_MAX_OCTAL && mtime >= 0 && mtime <= USTAR_MAX_OCTAL;
    }

    /** The header length as the writer really emits it. */
    static long measuredHeaderLength(TarArchiveEntry entry) {
        CountingOutputStream counter = new CountingOutputStream(OutputStream.nullOutputStream());
        try {
            TarArchiveOutputStream probe = newWriter(counter);
            probe.putArchiveEntry(entry);
            probe.flush();
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode a tar header for " + entry.getName(), e);
        }
        return counter.count();
    }

    /** {@code n} rounded up to a whole number of tar records. */
    static long padded(long n) {
        return Math.addExact(n, RECORD - 1) / RECORD * RECORD;
    }

    /**
     * Reads the first member of a tar archive, which must be called {@code name}, from at most
     * {@code maxBytes} bytes of {@code in}. Does not close {@code in}.
     *
     * @param what how messages call the archive, e.g. "tape file 0"
     * @throws TapeFormatException if the bytes are not a tar archive, the first member has another name, or
     *                             it does not fit in {@code maxBytes}
     */
    static byte[] readFirstMember(InputStream in, long maxBytes, String name, String what) throws IOException {
        BoundedInputStream bounded = new BoundedInputStream(in, maxBytes);
        TarArchiveInputStream tar = new TarArchiveInputStream(bounded, StandardCharsets.UTF_8.name());
        TarArchiveEntry entry;
        try {
            entry = tar.getNextEntry();
        } catch (IOException | IllegalArgumentException e) {
            bounded.rethrowIfReadFailed(e);
            if (bounded.exhausted()) {
                throw new TapeFormatException(what + " ends within its first tar header (" + bounded.count()
                        + " bytes read)", e);
            }
            throw new TapeFormatException(what + " is not a tar archive: " + e.getMessage(), e);
        }
        if (entry == null) {
            if (bounded.count() == 0) {
                throw new TapeFormatException(what + " is empty");
            }
            if (bounded.count() < RECORD) {
                throw new TapeFormatException(what + " ends within its first tar header (" + bounded.count()
                        + " bytes read)");
            }
            throw new TapeFormatException(what + " is an empty tar archive (it starts with an end-of-archive "
                    + "marker)");
        }
        if (!name.equals(entry.getName())) {
            throw new TapeFormatException(what + " is a tar archive whose first member is '"
                    + printable(entry.getName()) + "', not " + name);
        }
        if (!entry.isFile()) {
            throw new TapeFormatException(what + ": tar member " + name + " is not a regular file");
        }
        long size = entry.getSize();
        if (size > Integer.MAX_VALUE - 8 || size > maxBytes) {
            throw new TapeFormatException(what + ": tar member " + name + " has " + size
                    + " bytes, more than the " + maxBytes + " bytes read");
        }
        // Grown as the data arrives: a header's claim of 64 MiB must not allocate 64 MiB by itself.
        ByteArrayOutputStream content = new ByteArrayOutputStream((int) Math.min(size, 8192));
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = tar.read(buffer)) > 0; ) {
                content.write(buffer, 0, n);
            }
        } catch (IOException e) {
            bounded.rethrowIfReadFailed(e);
            // commons-compress reports a short member as "Truncated TAR archive"
        }
        if (content.size() != size) {
            throw new TapeFormatException(what + ": tar member " + name + " is truncated: " + content.size()
                    + " of " + size + " bytes within the " + maxBytes + " bytes read");
        }
        return content.toByteArray();
    }

    /** A name from tape, safe to put in a message. */
    static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < 100; i++) {
            char c = s.charAt(i);
            sb.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return s.length() > 100 ? sb + "..." : sb.toString();
    }

    /**
     * Stops after a number of bytes and never closes the stream it reads from. Remembers a failure of that
     * stream, so that a read error is not mistaken for a format error.
     */
    private static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private final long limit;
        private long count;
        private IOException readFailure;

        BoundedInputStream(InputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            if (count >= limit) {
                return -1;
            }
            int b;
            try {
                b = in.read();
            } catch (IOException e) {
                readFailure = e;
                throw e;
            }
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (count >= limit) {
                return -1;
            }
            int n;
            try {
                n = in.read(b, off, (int) Math.min(len, limit - count));
            } catch (IOException e) {
                readFailure = e;
                throw e;
            }
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public void close() {
            // the caller owns the stream
        }

        long count() {
            return count;
        }

        boolean exhausted() {
            return count >= limit;
        }

        /** Rethrows the failure of the underlying stream if {@code e} is or wraps it. */
        void rethrowIfReadFailed(Exception e) throws IOException {
            for (Throwable t = e; t != null && readFailure != null; t = t.getCause()) {
                if (t == readFailure) {
                    throw readFailure;
                }
            }
        }
    }
}
