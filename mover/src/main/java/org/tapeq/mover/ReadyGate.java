package org.tapeq.mover;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;

import io.grpc.stub.CallStreamObserver;

/**
 * Outbound flow control of one gRPC stream written from an I/O thread: {@link #await} blocks that thread until
 * the stream may take more (gRPC's {@code isReady}), so a slow reader holds a fast writer back instead of gRPC
 * buffering a whole tape file. Registered as the stream's on-ready handler; {@link #close} wakes a waiting writer
 * when the call ends early. Never used on an event loop.
 */
final class ReadyGate implements Runnable {

    private final CallStreamObserver<?> stream;
    private final long timeoutMillis;
    private boolean closed;
    /**
     * Why {@link #await} failed (a stall, or the call ended first), or null: the transport's failure, never the
     * source's.
     */
    private volatile String failure;

    ReadyGate(CallStreamObserver<?> stream, long timeoutMillis) {
        this.stream = stream;
        this.timeoutMillis = timeoutMillis;
    }

    /** gRPC's on-ready handler. */
    @Override
    public synchronized void run() {
        notifyAll();
    }

    /** The call ended (answered, cancelled or failed): a waiting writer gives up. */
    synchronized void close() {
        closed = true;
        notifyAll();
    }

    /** Waits until the stream takes more; fails if the call ended or nothing moved for the timeout. */
    synchronized void await() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!stream.isReady()) {
            if (closed) {
                throw failed("the transfer ended early");
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw failed("the other side took nothing for " + timeoutMillis + " ms");
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting to send");
            }
        }
        if (closed) {
            throw failed("the transfer ended early");
        }
    }

    private IOException failed(String why) {
        failure = why;
        return new IOException(why);
    }

    /** Why sending failed on this side of the stream (not the source's fault), or null. */
    String failure() {
        return failure;
    }
}
