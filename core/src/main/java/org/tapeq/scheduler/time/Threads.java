package org.tapeq.scheduler.time;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Named daemon threads for executors, so a thread dump says what each thread is for. */
public final class Threads {

    private Threads() {
    }

    /** Threads all called {@code name} (for single-thread executors). */
    public static ThreadFactory named(String name) {
        return r -> daemon(new Thread(r, name));
    }

    /** Threads called {@code prefix-1}, {@code prefix-2}, ... */
    public static ThreadFactory numbered(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> daemon(new Thread(r, prefix + "-" + n.incrementAndGet()));
    }

    private static Thread daemon(Thread t) {
        t.setDaemon(true);
        return t;
    }
}
