package org.tapeq.mover;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import io.grpc.stub.ServerCallStreamObserver;
import org.tapeq.scheduler.tape.TapeFileSource;

/**
 * The bytes of one tape file as they arrive from the scheduler, handed to the mover's library as the file to
 * write. Inbound flow control: one message is asked of gRPC at a time, the next only when the library's writer
 * has taken the last, so a slow drive holds the scheduler's sender back. gRPC threads offer; the library's copy
 * thread takes.
 */
final class IncomingBytes implements TapeFileSource {

    private static final Object END = new Object();

    private final ServerCallStreamObserver<?> call;
    private final long length;
    private final long stallMillis;
    private final BlockingQueue<Object> arrived = new LinkedBlockingQueue<>();

    IncomingBytes(ServerCallStreamObserver<?> call, long length, long stallMillis) {
        this.call = call;
        this.length = length;
        this.stallMillis = stallMillis;
    }

    void offer(ByteString chunk) {
        arrived.add(chunk);
    }

    /** The scheduler half-closed its stream. */
    void end() {
        arrived.add(END);
    }

    /** The call failed or was cancelled. */
    void fail(Throwable why) {
        arrived.add(why);
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
        long written = 0;
        while (written < length) {
            call.request(1);
            Object next;
            try {
                next = arrived.poll(stallMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted after " + written + " of " + length + " bytes");
            }
            if (next == null) {
                throw new IOException("no bytes from the scheduler for " + stallMillis + " ms after " + written
                        + " of " + length);
            }
            if (next == END) {
                throw new IOException("the scheduler's stream ended after " + written + " of " + length + " bytes");
            }
            if (next instanceof Throwable t) {
                throw new IOException("the scheduler's stream failed after " + written + " of " + length + " bytes: "
                        + t, t);
            }
            ByteString chunk = (ByteString) next;
            if (written + chunk.size() > length) {
                throw new IOException("the scheduler sent more than the announced " + length + " bytes");
            }
            chunk.writeTo(out);
            written += chunk.size();
        }
    }
}
