package org.tapeq.scheduler.time;

import java.util.PriorityQueue;

/**
 * An event loop in virtual time: the clock jumps to the next due task, so hours of tape operations run in
 * milliseconds. Single-threaded: the thread that calls {@link #runUntilIdle()} or {@link #runUntil(long)} is
 * the loop thread; tasks must not be added from other threads.
 */
public final class VirtualEventLoop implements EventLoop {

    private final PriorityQueue<Entry> queue = new PriorityQueue<>();
    private long now;
    private long sequence;
    private long executed;
    private Thread runner;

    public VirtualEventLoop(long startMillis) {
        this.now = startMillis;
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public Timer schedule(long delayMillis, Runnable task) {
        Entry entry = new Entry(now + Math.max(0, delayMillis), sequence++, task);
        queue.add(entry);
        return entry;
    }

    @Override
    public void execute(Runnable task) {
        schedule(0, task);
    }

    @Override
    public boolean inLoop() {
        return runner == null || runner == Thread.currentThread();
    }

    /** Runs tasks until none is left; returns the number run. */
    public long runUntilIdle() {
        return runUntil(Long.MAX_VALUE);
    }

    /** Runs every task due at or before {@code deadline}, then sets the clock to the deadline if it is finite. */
    public long runUntil(long deadline) {
        long before = executed;
        Thread previous = runner;
        runner = Thread.currentThread();
        try {
            Entry next;
            while ((next = queue.peek()) != null && next.at <= deadline) {
                queue.poll();
                if (next.cancelled) {
                    continue;
                }
                now = Math.max(now, next.at);
                next.done = true;
                executed++;
                next.task.run();
            }
            if (deadline != Long.MAX_VALUE && deadline > now) {
                now = deadline;
            }
        } finally {
            runner = previous;
        }
        return executed - before;
    }

    /** Runs for the given span of virtual time. */
    public long runFor(long millis) {
        return runUntil(now + millis);
    }

    /** Number of tasks waiting, including cancelled ones not yet discarded. */
    public int pending() {
        return queue.size();
    }

    private static final class Entry implements Comparable<Entry>, Timer {
        final long at;
        final long seq;
        final Runnable task;
        boolean cancelled;
        boolean done;

        Entry(long at, long seq, Runnable task) {
            this.at = at;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public boolean cancel() {
            if (done || cancelled) {
                return false;
            }
            cancelled = true;
            return true;
        }

        @Override
        public int compareTo(Entry o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }
}
