package org.tapeq.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.DaemonStatus;
import org.tapeq.daemon.control.StatusPage;

/**
 * Times the daemon's status as {@code tapeq status} and {@code GET /status} get it: {@link Daemon#status()} and its
 * JSON, one call after another with a pause between them, on a thread of its own while a phase runs, or a few
 * times in a row when the daemon is quiet. A status part that does not answer in time is left out of the answer
 * (and logged by the daemon), so a call that took the daemon's whole timeout shows up here as its length.
 */
final class StatusProbe {

    private static final long PAUSE_MILLIS = 200;

    private final Daemon daemon;
    private long[] millis = new long[64];
    private int count;
    private int bytes;
    private volatile boolean stop;
    private Thread thread;

    StatusProbe(Daemon daemon) {
        this.daemon = daemon;
    }

    /** Calls the status in a loop on its own thread until {@link #stop()}. */
    StatusProbe start() {
        thread = new Thread(() -> {
            while (!stop) {
                once();
                try {
                    Thread.sleep(PAUSE_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "bench-status-probe");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /** Calls the status {@code times} times on this thread. */
    StatusProbe run(int times) {
        for (int i = 0; i < times; i++) {
            once();
        }
        return this;
    }

    StatusProbe stop() throws InterruptedException {
        stop = true;
        if (thread != null) {
            thread.join();
        }
        return this;
    }

    private void once() {
        long t0 = System.nanoTime();
        byte[] json = DaemonStatus.toJson(daemon.statusTree(StatusPage.FIRST));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        synchronized (this) {
            if (count == millis.length) {
                millis = Arrays.copyOf(millis, count * 2);
            }
            millis[count++] = took;
            bytes = json.length;
        }
    }

    synchronized long median() {
        long[] s = Arrays.copyOf(millis, count);
        Arrays.sort(s);
        return count == 0 ? 0 : s[(count - 1) / 2];
    }

    synchronized long max() {
        return Arrays.stream(millis, 0, count).max().orElse(0);
    }

    /** "12 calls, median 3 ms, max 40 ms, 5 432 bytes of JSON". */
    synchronized String describe() {
        return String.format(Locale.ROOT, "%d calls, median %d ms, max %d ms, %,d bytes of JSON", count, median(), max(),
                bytes);
    }
}
