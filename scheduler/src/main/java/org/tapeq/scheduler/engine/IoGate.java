package org.tapeq.scheduler.engine;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.tapeq.scheduler.time.EventLoop;

/**
 * An executor in front of a bounded I/O pool, for work the event loop hands out (checking flush sources,
 * the simulated library's copies): the loop never runs such work itself and never waits for room.
 *
 * <p>Design notes. At most {@code limit} tasks are in the pool at a time; more wait, in order, in a deque the
 * loop owns, and each task that ends hands the next one over (its end is posted to the loop). If the pool still
 * refuses a task (a limit above its room, or a pool shutting down), the task goes back to the head of the deque
 * and is offered again when another ends, or after {@link #RETRY_MILLIS} if none is running. A limit no larger
 * than the room in the pool's queue means the pool never refuses (a task counts until its end reaches the loop,
 * after it left the queue), so even a {@code CallerRunsPolicy} never fires for the loop; with
 * {@code AbortPolicy} nothing can run on the loop at all: a 10 GB checksum stays off it. Callable from any
 * thread: a call off the loop is posted to it.
 */
public final class IoGate implements Executor {

    /** Loop milliseconds before a refused task is offered again when no task is running. */
    static final long RETRY_MILLIS = 10;

    private final EventLoop loop;
    private final Executor pool;
    private final int limit;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private final AtomicInteger backlog = new AtomicInteger();
    private int inFlight;
    private EventLoop.Timer retry;

    /** {@code limit}: tasks in the pool at most at a time (at most the room in its queue). */
    public IoGate(EventLoop loop, Executor pool, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1: " + limit);
        }
        this.loop = Objects.requireNonNull(loop, "loop");
        this.pool = Objects.requireNonNull(pool, "pool");
        this.limit = limit;
    }

    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (!loop.inLoop()) {
            loop.execute(() -> execute(task));
            return;
        }
        waiting.add(task);
        backlog.incrementAndGet();
        drain();
    }

    /** Tasks waiting for room in the pool; any thread. */
    public int backlog() {
        return backlog.get();
    }

    private void drain() {
        while (!waiting.isEmpty() && inFlight < limit) {
            Runnable task = waiting.poll();
            inFlight++;
            backlog.decrementAndGet();
            try {
                pool.execute(() -> {
                    try {
                        task.run();
                    } finally {
                        loop.execute(this::ended);
                    }
                });
            } catch (RejectedExecutionException e) {
                inFlight--;
                backlog.incrementAndGet();
                waiting.addFirst(task);
                if (inFlight == 0 && retry == null) {
                    retry = loop.schedule(RETRY_MILLIS, () -> {
                        retry = null;
                        drain();
                    });
                }
                return;
            }
        }
    }

    private void ended() {
        inFlight--;
        drain();
    }
}
