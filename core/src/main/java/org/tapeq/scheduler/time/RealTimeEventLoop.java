package org.tapeq.scheduler.time;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An event loop on one named thread in real time, optionally sped up: with {@code speed} 60 a tape operation
 * modelled to take one minute completes after one real second and {@link #now()} advances 60 ms per real
 * millisecond. Speed 1 is the daemon's normal mode.
 */
public final class RealTimeEventLoop implements EventLoop, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RealTimeEventLoop.class);

    private final ScheduledThreadPoolExecutor executor;
    private final double speed;
    private final long startMillis;
    private final long startNanos;
    private volatile Thread thread;

    public RealTimeEventLoop(String name, double speed) {
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("speed must be positive and finite: " + speed);
        }
        this.speed = speed;
        this.startMillis = System.currentTimeMillis();
        this.startNanos = System.nanoTime();
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = Threads.named(name).newThread(r);
            thread = t;
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    public double speed() {
        return speed;
    }

    @Override
    public long now() {
        long elapsedNanos = System.nanoTime() - startNanos;
        return startMillis + (long) (elapsedNanos * speed / 1_000_000d);
    }

    @Override
    public Timer schedule(long delayMillis, Runnable task) {
        long realNanos = (long) (Math.max(0, delayMillis) * 1_000_000d / speed);
        try {
            ScheduledFuture<?> future = executor.schedule(guarded(task), realNanos, TimeUnit.NANOSECONDS);
            return () -> future.cancel(false);
        } catch (RejectedExecutionException e) {
            LOG.debug("Event loop closed: a timer was dropped");
            return () -> false;
        }
    }

    /** Runs {@code task} on the loop; once the loop is closed, work handed to it is dropped (logged at debug). */
    @Override
    public void execute(Runnable task) {
        try {
            executor.execute(guarded(task));
        } catch (RejectedExecutionException e) {
            LOG.debug("Event loop closed: a task was dropped");
        }
    }

    /** A task that throws is logged; it must not silently kill later work (futures swallow exceptions). */
    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.error("Event loop task failed: {}", e.toString(), e);
            }
        };
    }

    @Override
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    /** Stops accepting tasks and waits for the running one to finish. */
    public boolean shutdown(long timeout, TimeUnit unit) throws InterruptedException {
        executor.shutdown();
        return executor.awaitTermination(timeout, unit);
    }
}
