package org.tapeq.daemon.metrics;

import java.util.function.Supplier;

/**
 * A value computed at most once per {@code maxAgeNanos}: one snapshot serves every gauge of a scrape, so a scrape
 * asks the event loop or a bridge once, not once per metric. Thread-safe; two callers racing may both compute.
 */
public final class Cached<T> implements Supplier<T> {

    private final Supplier<T> source;
    private final long maxAgeNanos;
    private volatile Entry<T> last;

    public Cached(Supplier<T> source, long maxAgeNanos) {
        this.source = source;
        this.maxAgeNanos = maxAgeNanos;
    }

    @Override
    public T get() {
        long now = System.nanoTime();
        Entry<T> e = last;
        if (e == null || now - e.nanos() > maxAgeNanos) {
            e = new Entry<>(now, source.get());
            last = e;
        }
        return e.value();
    }

    private record Entry<T>(long nanos, T value) {
    }
}
