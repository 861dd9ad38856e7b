package org.tapeq.bench;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures how long work posted to an event loop waits before it runs. A thread of its own posts a probe task
 * every period; the probe records (time it ran - time it was posted). A loop that is blocked for two seconds
 * thus shows two thousand late probes at a 1 ms period, from two seconds down to nothing, as any request or
 * status call arriving in that time would have waited; a probe is never skipped because the loop is busy.
 *
 * <p>Design notes. The probe thread only posts; the samples are written on the loop. A probe belongs to the
 * phase in which it was posted, even if it runs after the phase ended. {@link #end} stops posting for the phase
 * and then posts a marker behind every probe of it (posting and the switch share one lock, so no probe of the
 * phase can be posted after the marker), and waits for the marker: the loop is FIFO for due work, so once the
 * marker ran, every probe of the phase has been recorded and the sample can be read. If the probe thread itself
 * is held up (a busy machine), it posts one probe when it runs again and continues from then; its own delay is
 * not counted as the loop's.
 */
final class LoopProbe implements AutoCloseable {

    private final Executor loop;
    private final long periodNanos;
    private final Thread thread;
    private final Object lock = new Object();
    private LatencySample current; // guarded by lock
    private volatile boolean closed;

    LoopProbe(Executor loop, long periodNanos) {
        this.loop = loop;
        this.periodNanos = periodNanos;
        this.thread = new Thread(this::run, "loop-probe");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Starts recording a phase into a new sample. */
    LatencySample begin() {
        LatencySample s = new LatencySample();
        synchronized (lock) {
            current = s;
        }
        return s;
    }

    /** Stops recording the current phase and waits until every probe posted in it has run. */
    void end(long timeout, TimeUnit unit) throws Exception {
        CompletableFuture<Void> drained = new CompletableFuture<>();
        synchronized (lock) {
            current = null;
            loop.execute(() -> drained.complete(null));
        }
        drained.get(timeout, unit);
    }

    private void run() {
        long next = System.nanoTime() + periodNanos;
        while (!closed) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            synchronized (lock) {
                LatencySample s = current;
                if (s != null) {
                    long posted = System.nanoTime();
                    loop.execute(() -> s.add(System.nanoTime() - posted));
                }
            }
            next += periodNanos;
            long now = System.nanoTime();
            if (next < now) {
                next = now + periodNanos; // held up: go on from now, without a catch-up burst
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
