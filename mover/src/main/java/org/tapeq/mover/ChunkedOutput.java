package org.tapeq.mover;

import java.io.IOException;
import java.io.OutputStream;

import com.google.protobuf.ByteString;

/**
 * Bytes written by a tape transfer, sent as gRPC messages of at most {@link #CHUNK} bytes each, every one after
 * the stream's {@link ReadyGate} lets it through. Used on both sides: the mover sends what it reads from tape,
 * the scheduler what a flush writes. Closing sends the last partial chunk; it does not end the call.
 */
final class ChunkedOutput extends OutputStream {

    /** Bytes per message: well under gRPC's default 4 MiB message limit. */
    static final int CHUNK = 1 << 20;

    /** Sends one chunk (already allowed by the gate). */
    @FunctionalInterface
    interface Sender {
        void send(ByteString chunk);
    }

    private final ReadyGate gate;
    private final Sender sender;
    private final byte[] buffer = new byte[CHUNK];
    private int filled;
    private long sent;

    ChunkedOutput(ReadyGate gate, Sender sender) {
        this.gate = gate;
        this.sender = sender;
    }

    /** Bytes sent so far (flushed chunks). */
    long sent() {
        return sent;
    }

    @Override
    public void write(int b) throws IOException {
        if (filled == CHUNK) {
            flushChunk();
        }
        buffer[filled++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (filled == CHUNK) {
                flushChunk();
            }
            int n = Math.min(len, CHUNK - filled);
            System.arraycopy(b, off, buffer, filled, n);
            filled += n;
            off += n;
            len -= n;
        }
    }

    @Override
    public void close() throws IOException {
        if (filled > 0) {
            flushChunk();
        }
    }

    private void flushChunk() throws IOException {
        gate.await();
        sender.send(ByteString.copyFrom(buffer, 0, filled));
        sent += filled;
        filled = 0;
    }
}
