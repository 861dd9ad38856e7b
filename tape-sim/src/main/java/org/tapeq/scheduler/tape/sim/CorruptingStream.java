package org.tapeq.scheduler.tape.sim;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Set;

/** Passes a read's bytes on, inverting those at the tape-file offsets {@link SimFaults#corruptByte} named. */
final class CorruptingStream extends FilterOutputStream {

    private final Set<Long> offsets;
    private long position;

    private CorruptingStream(OutputStream out, long start, Set<Long> offsets) {
        super(out);
        this.position = start;
        this.offsets = offsets;
    }

    /** {@code out} itself when nothing is to be corrupted; {@code start}: tape-file offset of the first byte. */
    static OutputStream wrap(OutputStream out, long start, Set<Long> offsets) {
        return offsets.isEmpty() ? out : new CorruptingStream(out, start, offsets);
    }

    @Override
    public void write(int b) throws IOException {
        out.write(offsets.contains(position++) ? ~b : b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        byte[] copy = null;
        for (long o : offsets) {
            if (o >= position && o < position + len) {
                if (copy == null) {
                    copy = java.util.Arrays.copyOfRange(b, off, off + len);
                }
                int i = (int) (o - position);
                copy[i] = (byte) ~copy[i];
            }
        }
        if (copy == null) {
            out.write(b, off, len);
        } else {
            out.write(copy, 0, len);
        }
        position += len;
    }
}
