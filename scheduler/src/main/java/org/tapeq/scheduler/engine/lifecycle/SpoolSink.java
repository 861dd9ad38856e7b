package org.tapeq.scheduler.engine.lifecycle;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.Adler32;

import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.model.FileRecord;

/**
 * Splits one streaming read of a tape-file range into the repack spool: member {@code i}'s bytes go to
 * {@code <pnfsid>.part} with a running Adler-32; once its last byte arrived the file is forced to disk, its
 * checksum compared with the catalog's, and only then renamed to {@code <pnfsid>} (a copy that differs is
 * deleted). So a complete name in the spool is always a whole, checked, durable copy. Bytes between members
 * (tar headers, dead members) are dropped. Written by the backend's copy thread; {@link #close()} (blocking:
 * removes what did not complete, forces the directory) runs off the loop, and the results are read after it.
 */
final class SpoolSink extends OutputStream {

    private final List<FileRecord> members;
    private final long base;
    private final RepackSpool spool;
    private final String source;
    private final FileChannel[] outs;
    private final Adler32[] sums;
    private final long[] written;
    private final String[] problems;
    private final boolean[] done;
    /** Whether member {@code i} failed on the spool's side (disk), not the tape's. */
    private final boolean[] local;
    private long position;
    private int current;
    private boolean closed;
    private boolean withoutBytes;

    /** {@code members} in tape-file order; {@code base} is the tape-file offset of the first byte the read gives. */
    SpoolSink(List<FileRecord> members, long base, RepackSpool spool, String source) {
        this.members = List.copyOf(members);
        this.base = base;
        this.spool = spool;
        this.source = source;
        int n = members.size();
        outs = new FileChannel[n];
        sums = new Adler32[n];
        written = new long[n];
        problems = new String[n];
        done = new boolean[n];
        local = new boolean[n];
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        while (len > 0) {
            long abs = base + position;
            while (current < members.size() && end(current) <= abs) {
                complete(current++);
            }
            if (current == members.size()) {
                position += len;
                return;
            }
            FileRecord m = members.get(current);
            if (abs < m.offset()) {
                int skip = (int) Math.min(len, m.offset() - abs);
                position += skip;
                off += skip;
                len -= skip;
                continue;
            }
            int n = (int) Math.min(len, end(current) - abs);
            deliver(current, b, off, n);
            position += n;
            off += n;
            len -= n;
            if (end(current) == base + position) {
                complete(current++);
            }
        }
    }

    private long end(int i) {
        return members.get(i).offset() + members.get(i).size();
    }

    private void deliver(int i, byte[] b, int off, int n) {
        if (problems[i] != null) {
            return;
        }
        try {
            open(i);
            outs[i].write(ByteBuffer.wrap(b, off, n));
            sums[i].update(b, off, n);
            written[i] += n;
        } catch (IOException e) {
            local[i] = true;
            fail(i, "cannot write the spool copy " + spool.part(source, members.get(i).pnfsid()) + ": " + e);
        }
    }

    private void open(int i) throws IOException {
        if (outs[i] == null) {
            outs[i] = FileChannel.open(spool.part(source, members.get(i).pnfsid()), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
            sums[i] = new Adler32();
        }
    }

    /** Every byte of member {@code i} arrived: force, compare, rename. */
    private void complete(int i) {
        if (done[i] || problems[i] != null) {
            return;
        }
        FileRecord m = members.get(i);
        try {
            open(i); // an empty member
            outs[i].force(true);
            outs[i].close();
            outs[i] = null;
            String sum = Checksums.format(sums[i].getValue());
            if (Checksums.contradicts(m.checksum(), sum)) {
                Files.deleteIfExists(spool.part(source, m.pnfsid()));
                problems[i] = "read " + sum + ", the catalog has " + m.checksum();
                return;
            }
            Files.move(spool.part(source, m.pnfsid()), spool.file(source, m.pnfsid()),
                    StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            done[i] = true;
        } catch (IOException e) {
            local[i] = true;
            fail(i, "cannot keep the spool copy of " + m.pnfsid() + ": " + e);
        }
    }

    private void fail(int i, String why) {
        problems[i] = why;
        try {
            if (outs[i] != null) {
                outs[i].close();
            }
            Files.deleteIfExists(spool.part(source, members.get(i).pnfsid()));
        } catch (IOException ignored) {
            // the member failed already; a left-over .part is removed when the spool is opened again
        }
        outs[i] = null;
    }

    /**
     * The library reported {@code reported} bytes read but handed none to the sink (a size-only library, as the
     * simulator's): every member within them counts as spooled, with no copy (no bytes to keep or check; such a
     * library reads no source when it writes either). Nothing happens if bytes arrived. Before {@link #close()}.
     */
    void assumeDelivered(long reported) {
        if (position > 0 || reported <= 0) {
            return;
        }
        withoutBytes = true;
        for (int i = 0; i < members.size(); i++) {
            done[i] = end(i) <= base + reported;
        }
        current = members.size();
    }

    /** Whether the members counted as spooled have no copy ({@link #assumeDelivered}). */
    boolean withoutBytes() {
        return withoutBytes;
    }

    /** Blocking: ends the members that did not complete (their partial copies removed) and forces the directory. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        while (current < members.size() && end(current) <= base + position) {
            complete(current++);
        }
        for (int i = 0; i < members.size(); i++) {
            if (!done[i] && problems[i] == null) {
                fail(i, "the read ended after " + written[i] + " of its " + members.get(i).size() + " bytes");
            }
        }
        try {
            RepackSpool.force(spool.dir(source));
        } catch (IOException e) {
            for (int i = 0; i < members.size(); i++) {
                if (done[i]) {
                    done[i] = false;
                    local[i] = true;
                    problems[i] = "cannot force the spool directory: " + e;
                }
            }
        }
    }

    /** Whether member {@code i} is in the spool, whole and checked. After {@link #close()}. */
    boolean spooled(int i) {
        return done[i];
    }

    /** Why member {@code i} is not in the spool, or null. After {@link #close()}. */
    String problem(int i) {
        return problems[i];
    }

    /** Whether member {@code i} is not in the spool because of the spool's disk (full, unwritable), not the tape. */
    boolean spoolProblem(int i) {
        return local[i];
    }
}
