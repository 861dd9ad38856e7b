package org.tapeq.scheduler.engine.drive;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.zip.Adler32;

import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.model.StageRequest;

/**
 * Splits one streaming read of a tape-file range into the requested members: bytes of member {@code i} go
 * to its target with a running Adler-32; bytes between members (tar headers, members nobody asked for) are
 * dropped. A target that cannot be written fails only its own member: its remaining bytes are dropped and
 * the read goes on for the others. From a size-only library no bytes arrive: {@link #assumeDelivered} then
 * creates each target as a sparse file of the member's length.
 */
final class MemberSink extends OutputStream {

    private final List<StageItem> items;
    private final long base;
    private final OutputStream[] outs;
    private final Adler32[] sums;
    private final long[] written;
    private final String[] errors;
    private long position;
    private int current;

    /** {@code base} is the tape-file offset of the first byte the read delivers. */
    MemberSink(List<StageItem> items, long base) {
        this.items = items;
        this.base = base;
        int n = items.size();
        outs = new OutputStream[n];
        sums = new Adler32[n];
        written = new long[n];
        errors = new String[n];
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        while (len > 0) {
            long abs = base + position;
            while (current < items.size() && end(current) <= abs) {
                finish(current++);
            }
            if (current == items.size()) {
                position += len;
                return;
            }
            StageItem it = items.get(current);
            if (abs < it.offset()) {
                int skip = (int) Math.min(len, it.offset() - abs);
                position += skip;
                off += skip;
                len -= skip;
                continue;
            }
            int n = (int) Math.min(len, end(current) - abs);
            // Two requests for one file share its bytes.
            for (int j = current; j < items.size() && items.get(j).offset() == it.offset()
                    && items.get(j).size() == it.size(); j++) {
                deliver(j, b, off, n);
            }
            position += n;
            off += n;
            len -= n;
        }
    }

    private java.nio.file.Path target(int i) {
        StageItem it = items.get(i);
        return it.request() == null ? null : it.request().target();
    }

    private long end(int i) {
        StageItem it = items.get(i);
        return it.offset() + it.size();
    }

    private void deliver(int i, byte[] b, int off, int n) {
        if (errors[i] != null) {
            return;
        }
        try {
            if (outs[i] == null && target(i) != null) {
                outs[i] = Channels.newOutputStream(open(i));
            }
            if (sums[i] == null) {
                sums[i] = new Adler32();
            }
            if (outs[i] != null) {
                outs[i].write(b, off, n);
            }
            sums[i].update(b, off, n);
            written[i] += n;
        } catch (IOException e) {
            errors[i] = "cannot write " + target(i) + ": " + e.getMessage();
            closeQuietly(i);
        }
    }

    private void finish(int i) {
        if (outs[i] != null) {
            try {
                outs[i].close();
            } catch (IOException e) {
                if (errors[i] == null) {
                    errors[i] = "cannot close " + target(i) + ": " + e.getMessage();
                }
            }
            outs[i] = null;
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

    @Override
    public void close() {
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i).size() == 0 && errors[i] == null) {
                deliver(i, new byte[0], 0, 0);
            }
            finish(i);
        }
    }

    /** Bytes this sink received. */
    long delivered() {
        return position;
    }

    /** Members with a target: bytes received. Size-only members count bytes too. */
    long written(int i) {
        return written[i];
    }

    /**
     * The Adler-32 of member {@code i} as {@code adler32:hex}, or null when the library delivered no bytes at
     * all (a size-only library).
     */
    String checksum(int i) {
        if (position == 0 && items.get(i).size() > 0) {
            return null;
        }
        long value = sums[i] == null ? 1L : sums[i].getValue();
        return Checksums.format(value);
    }

    /** Why member {@code i}'s target could not be written, or null. */
    String error(int i) {
        return errors[i];
    }

    /**
     * Accounts bytes the backend did not deliver (size-only mode): everything up to {@code total}. A member with
     * a target gets a sparse file of its length (zeros), so whoever moves staged files on finds one of the right
     * size. Runs where the read completes (the loop): one create and truncate per file, no data written.
     */
    void assumeDelivered(long total) {
        for (int i = 0; i < items.size(); i++) {
            StageItem it = items.get(i);
            long end = it.offset() + it.size();
            if (end <= base + total) {
                written[i] = it.size();
                if (target(i) != null && it.size() > 0 && errors[i] == null) {
                    createSparse(i, it.size());
                }
            }
        }
    }

    /** The target of member {@code i}, opened by its request's origin (which may hold the directory open). */
    private SeekableByteChannel open(int i) throws IOException {
        StageRequest r = items.get(i).request();
        return r.origin().openTarget(r);
    }

    private void createSparse(int i, long size) {
        try (SeekableByteChannel c = open(i)) {
            c.position(size - 1); // opened truncated: one zero byte at the end leaves a hole before it
            c.write(ByteBuffer.allocate(1));
        } catch (IOException e) {
            errors[i] = "cannot write " + target(i) + ": " + e.getMessage();
        }
    }
}
