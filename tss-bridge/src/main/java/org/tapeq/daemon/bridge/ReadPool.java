package org.tapeq.daemon.bridge;

/** Where a bridge has its request files read: a bounded pool that refuses work when full ({@link IntakePool}). */
@FunctionalInterface
public interface ReadPool {

    /**
     * Queues {@code task}, or refuses it when the pool is full. A refused caller is called back through
     * {@code whenRoom}, once, on whatever thread made room; the task is never run on the caller's thread.
     *
     * @return whether the task was queued
     */
    boolean offer(Runnable task, Runnable whenRoom);
}
