package org.tapeq.daemon.bridge;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.time.Threads;

/**
 * The one thread that owns a bridge's state ({@code tapeq-<dir>-bridge}). Everything else posts work to it.
 *
 * <p>Its queue has no fixed capacity, but every source of work is bounded: a fixed number of timers, at most
 * one pending drain of watch events ({@link WatchEvents}), at most one pending batch of flush lookups
 * ({@link Admission}), one completion per intake batch in flight (a bounded
 * number, see {@link Intake}), one read retry per request file being read, at most one pending batch of outcomes
 * ({@link DirectoryBridge#completed}). A status does not post work: it reads the snapshot the thread publishes.
 */
final class BridgeThread {

    private static final Logger LOG = LoggerFactory.getLogger(BridgeThread.class);

    private final String name;
    private final ScheduledThreadPoolExecutor executor;

    BridgeThread(String name) {
        this.name = name;
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, Threads.named("tapeq-" + name + "-bridge"));
        t.setRemoveOnCancelPolicy(true);
        this.executor = t;
    }

    /** Runs {@code task} on the bridge thread; dropped if the bridge is stopping (its request stays on disk). */
    void run(Runnable task) {
        try {
            executor.execute(safe(task));
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: stopping; a task was dropped (its request stays in the directory)", name);
        }
    }

    /** Like {@link #run}, but says whether the task was taken. */
    boolean tryRun(Runnable task) {
        try {
            executor.execute(safe(task));
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    void later(Runnable task, long delayMillis) {
        try {
            executor.schedule(safe(task), delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: stopping; a timer was dropped", name);
        }
    }

    void every(Runnable task, long periodMillis) {
        executor.scheduleWithFixedDelay(safe(task), periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /** A task that logs what it throws: an executor would swallow it, and stop repeating. */
    private Runnable safe(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.error("{}: unexpected failure on the bridge thread", name, e);
            }
        };
    }

    void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
