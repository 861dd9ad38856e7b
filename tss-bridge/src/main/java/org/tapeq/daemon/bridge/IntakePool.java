package org.tapeq.daemon.bridge;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads that read request files for every directory ({@code tapeq-intake-N}), with a bounded queue.
 *
 * <p>Design notes. A full queue refuses new work instead of running it on the caller (the bridge's thread must
 * never read files). A refused caller leaves a callback; when the queue has drained to half its capacity, the
 * pool thread that finished a task runs every waiting callback (each only posts a task to its bridge's thread),
 * so a paused bridge resumes at once and not on a timer. A callback left just after the last task finished is
 * run by the caller itself after it registers, so no refusal is ever forgotten.
 */
public final class IntakePool implements ReadPool, AutoCloseable {

    private final int capacity;
    private final ArrayBlockingQueue<Runnable> queue;
    private final ThreadPoolExecutor executor;
    /** Callbacks of refused callers; guarded by this. */
    private final Set<Runnable> waiting = new LinkedHashSet<>();

    public IntakePool(int threads, int capacity, ThreadFactory threadFactory) {
        if (threads < 1 || capacity < 1) {
            throw new IllegalArgumentException("threads and capacity must be at least 1");
        }
        this.capacity = capacity;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.executor = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, queue, threadFactory,
                new ThreadPoolExecutor.AbortPolicy()) {
            @Override
            protected void afterExecute(Runnable r, Throwable t) {
                wakeIfRoom();
            }
        };
    }

    @Override
    public boolean offer(Runnable task, Runnable whenRoom) {
        try {
            executor.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            if (executor.isShutdown()) {
                return false;
            }
            synchronized (this) {
                waiting.add(whenRoom);
            }
            wakeIfRoom(); // the queue may have drained between the refusal and the registration
            return false;
        }
    }

    private void wakeIfRoom() {
        if (queue.size() > capacity / 2) {
            return;
        }
        List<Runnable> wake;
        synchronized (this) {
            if (waiting.isEmpty()) {
                return;
            }
            wake = new ArrayList<>(waiting);
            waiting.clear();
        }
        wake.forEach(Runnable::run);
    }

    /** Tasks queued and not yet started. */
    public int backlog() {
        return queue.size();
    }

    public int threads() {
        return executor.getMaximumPoolSize();
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
