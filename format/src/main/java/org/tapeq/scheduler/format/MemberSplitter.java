package org.tapeq.scheduler.format;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.zip.Adler32;

import org.tapeq.scheduler.tape.StageFiles;

/**
 * Splits one streaming read of a tape-file range into files ({@link StageFiles.Member}): bytes of member {@code i}
 * go to its file with a running Adler-32; bytes between members (tar headers, members nobody asked for) are
 * dropped. A file that cannot be written fails only its own member: its remaining bytes are dropped and the read
 * goes on for the others. Used where the read arrives: the scheduler (bytes streamed to it) and a data mover
 * writing the pool files itself (its files forced to stable storage as each is closed, {@code durable}).
 *
 * <p>Design notes. Written by one thread (the backend's copy thread), read once the read completed. From a
 * size-only library no bytes arrive: {@link #assumeDelivered} then creates each file as a sparse file of the
 * member's length. When a library wrote the files itself, {@link #report} takes its results instead of bytes, and
 * the getters answer from them, so the caller's checks are the same either way. An optional listener hears of each
 * member whose file is complete (all its bytes written, closed, no error) on the writing thread as the read passes
 * its end, so a caller can answer it before the whole range is read; its getters for that member are final then.
 */
public final class MemberSplitter extends OutputStream {

    /** Opens member {@code i}'s file for writing, created or truncated, never through a symbolic link. */
    @FunctionalInterface
    public interface Targets {
        SeekableByteChannel open(int member) throws IOException;
    }

    private final List<StageFiles.Member> members;
    private final Targets targets;
    private final boolean durable;
    private final IntConsumer complete;
    private final SeekableByteChannel[] outs;
    private final Adler32[] sums;
    private final long[] written;
    private final String[] errors;
    /** Members the listener was told of. */
    private final boolean[] told;
    private long position;
    /** Whether {@link #assumeDelivered} ran. */
    private boolean assumed;
    private int current;
    private boolean closed;
    private List<StageFiles.Result> reported;

    /** {@code members} in offset order; with {@code durable} each file is forced to disk before it is closed. */
    public MemberSplitter(List<StageFiles.Member> members, Targets targets, boolean durable) {
        this(members, targets, durable, null);
    }

    /**
     * As above; {@code complete} (may be null) is told, on the writing thread, the index of each member of non-zero
     * length whose bytes all arrived and whose file was closed without error, once, as soon as it is.
     */
    public MemberSplitter(List<StageFiles.Member> members, Targets targets, boolean durable, IntConsumer complete) {
        this.members = List.copyOf(members);
        this.targets = targets;
        this.durable = durable;
        this.complete = complete;
        int n = members.size();
        outs = new SeekableByteChannel[n];
        sums = new Adler32[n];
        written = new long[n];
        errors = new String[n];
        told = new boolean[n];
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        while (len > 0) {
            while (current < members.size() && end(current) <= position) {
                finish(current++);
            }
            if (current == members.size()) {
                position += len;
                return;
            }
            StageFiles.Member m = members.get(current);
            if (position < m.offset()) {
                int skip = (int) Math.min(len, m.offset() - position);
                position += skip;
                off += skip;
                len -= skip;
                continue;
            }
            int n = (int) Math.min(len, end(current) - position);
            // Two requests for one file share its bytes.
            for (int j = current; j < members.size() && members.get(j).offset() == m.offset()
                    && members.get(j).size() == m.size(); j++) {
                deliver(j, b, off, n);
            }
            position += n;
            off += n;
            len -= n;
        }
    }

    private long end(int i) {
        StageFiles.Member m = members.get(i);
        return m.offset() + m.size();
    }

    private void deliver(int i, byte[] b, int off, int n) {
        if (errors[i] != null) {
            return;
        }
        try {
            if (outs[i] == null && members.get(i).target() != null) {
                outs[i] = targets.open(i);
            }
            if (sums[i] == null) {
                sums[i] = new Adler32();
            }
            if (outs[i] != null) {
                ByteBuffer buffer = ByteBuffer.wrap(b, off, n);
                while (buffer.hasRemaining()) {
                    outs[i].write(buffer);
                }
            }
            sums[i].update(b, off, n);
            written[i] += n;
        } catch (IOException | RuntimeException e) {
            errors[i] = "cannot write " + members.get(i).target() + ": " + e.getMessage();
            closeQuietly(i);
        }
    }

    private void finish(int i) {
        if (outs[i] != null) {
            try {
                if (durable && outs[i] instanceof FileChannel f && errors[i] == null) {
                    f.force(true);
                }
                outs[i].close();
            } catch (IOException e) {
                if (errors[i] == null) {
                    errors[i] = "cannot close " + members.get(i).target() + ": " + e.getMessage();
                }
            }
            outs[i] = null;
        }
        completed(i);
    }

    /** Tells the listener, once, if member {@code i} is whole and without error. */
    private void completed(int i) {
        long size = members.get(i).size();
        if (complete != null && !told[i] && errors[i] == null && size > 0 && written[i] == size) {
            told[i] = true;
            complete.accept(i);
        }
    }

    private void closeQuietly(int i) {
        try {
            if (outs[i] != null) {
                outs[i].close();
            }
        } catch (IOException ignored) {
            // the member already failed
        }
        outs[i] = null;
    }

    /** Ends every file (an empty member's file is created); a second call does nothing. */
    @Override
    public void close() {
        if (closed || reported != null) {
            return;
        }
        closed = true;
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).size() == 0 && errors[i] == null) {
                deliver(i, new byte[0], 0, 0);
            }
            finish(i);
        }
    }

    /** Takes what a library that wrote the files itself reports, instead of bytes ({@link StageFiles#reported}). */
    public void report(long delivered, List<StageFiles.Result> results) {
        if (results.size() != members.size()) {
            throw new IllegalArgumentException(results.size() + " results for " + members.size() + " files");
        }
        position = delivered;
        reported = List.copyOf(results);
    }

    /** Bytes this splitter received (or the library reported read). */
    public long delivered() {
        return position;
    }

    /** Bytes of member {@code i} received (or written by the library). */
    public long written(int i) {
        return reported != null ? reported.get(i).bytes() : written[i];
    }

    /**
     * The Adler-32 of member {@code i} as {@code adler32:hex}, or null when the library delivered no bytes at all
     * (a size-only library).
     */
    public String checksum(int i) {
        if (reported != null) {
            return reported.get(i).checksum();
        }
        if (position == 0 && members.get(i).size() > 0) {
            return null;
        }
        long value = sums[i] == null ? 1L : sums[i].getValue();
        return Checksums.format(value);
    }

    /** Why member {@code i}'s file could not be written, or null. */
    public String error(int i) {
        return reported != null ? reported.get(i).error() : errors[i];
    }

    /** Every member's outcome, in order (after {@link #close}). */
    public List<StageFiles.Result> results() {
        List<StageFiles.Result> r = new ArrayList<>(members.size());
        for (int i = 0; i < members.size(); i++) {
            r.add(new StageFiles.Result(written(i), checksum(i), error(i)));
        }
        return r;
    }

    /**
     * Accounts bytes the backend did not deliver (size-only mode): everything up to {@code total}. A member with a
     * file gets a sparse file of its length (zeros), so whoever moves staged files on finds one of the right size.
     * One create and truncate per file, no data written. Only the first call counts: a size-only library makes the
     * files on its copy thread, and the pass's own call after the read then changes nothing.
     */
    public void assumeDelivered(long total) {
        if (assumed) {
            return;
        }
        assumed = true;
        for (int i = 0; i < members.size(); i++) {
            StageFiles.Member m = members.get(i);
            if (end(i) <= total) {
                written[i] = m.size();
                if (m.target() != null && m.size() > 0 && errors[i] == null) {
                    createSparse(i, m.size());
                }
                completed(i);
            }
        }
    }

    private void createSparse(int i, long size) {
        try (SeekableByteChannel c = targets.open(i)) {
            c.position(size - 1); // opened truncated: one zero byte at the end leaves a hole before it
            c.write(ByteBuffer.allocate(1));
        } catch (IOException e) {
            errors[i] = "cannot write " + members.get(i).target() + ": " + e.getMessage();
        }
    }
}
