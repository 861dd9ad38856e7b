package org.tapeq.scheduler.time;

import java.util.concurrent.Executor;

/**
 * The single thread on which the scheduler, and every backend completion, runs. Scheduling logic reads the
 * time only from {@link #now()} and waits only through {@link #schedule}, so the same code runs in real time
 * in the daemon ({@link RealTimeEventLoop}) and in virtual time in tests and the simulator
 * ({@link VirtualEventLoop}).
 */
public interface EventLoop extends Executor {

    /** Current time in milliseconds since the epoch (virtual or real). */
    long now();

    /** Runs the task on the loop after the given delay in loop milliseconds; the handle cancels it. */
    Timer schedule(long delayMillis, Runnable task);

    /** Runs the task on the loop as soon as possible, after the tasks already due. Callable from any thread. */
    @Override
    void execute(Runnable task);

    /** Whether the calling thread is the loop's thread. */
    boolean inLoop();

    /** A scheduled task that can still be cancelled. */
    interface Timer {
        /** Prevents the task from running if it has not started; returns whether it was prevented. */
        boolean cancel();
    }
}
