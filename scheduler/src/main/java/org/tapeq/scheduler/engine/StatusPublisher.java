package org.tapeq.scheduler.engine;

import java.util.concurrent.atomic.AtomicBoolean;

import org.tapeq.scheduler.time.EventLoop;

/**
 * The scheduler's status and load as the loop last published them, read by any thread without asking the loop:
 * a status answers at once while the loop is busy (ten million requests being admitted), at most one refresh
 * period old.
 *
 * <p>Design note: only the loop builds a snapshot (it owns the engine's state) and publishes it whole, immutable,
 * through one volatile field; a reader cuts the page it wants from it ({@link SchedulerStatus#page}). The snapshot
 * holds every queue and cartridge but no request (the queues keep their own totals), so it costs the same with ten
 * million requests queued as with ten. Nothing is built until the first {@link #refresh}: a scheduler nobody
 * reads the status of (a test on a virtual loop) runs no extra task. From then on a refresh runs when asked (the
 * daemon asks every {@code refresh period}; at most one waits on the loop, so a busy loop does not pile them up)
 * and after every control call ({@link #afterControl}), so that its caller's next status shows what it did.
 */
final class StatusPublisher {

    /** A status with every queue and cartridge listed, and the load, taken together on the loop. */
    record Published(SchedulerStatus status, SchedulerLoad load) {
    }

    private final Engine engine;
    private final WorkHold hold;
    private final EventLoop loop;
    private final AtomicBoolean pending = new AtomicBoolean();
    private volatile boolean enabled;
    private volatile Published published;

    StatusPublisher(Engine engine, WorkHold hold, EventLoop loop) {
        this.engine = engine;
        this.hold = hold;
        this.loop = loop;
    }

    /** Asks the loop for a new snapshot (any thread); does nothing if one is asked for already. */
    void refresh() {
        enabled = true;
        if (pending.compareAndSet(false, true)) {
            loop.execute(() -> {
                pending.set(false);
                publish();
            });
        }
    }

    /** On the loop: a new snapshot now, and after every control call from now on. */
    void publishNow() {
        enabled = true;
        publish();
    }

    /** On the loop, after a control call changed the engine: a new snapshot, if snapshots are read at all. */
    void afterControl() {
        if (enabled) {
            publish();
        }
    }

    private void publish() {
        published = new Published(StatusBuilder.build(engine, hold, 0, Integer.MAX_VALUE), SchedulerLoad.of(engine));
    }

    /** The last snapshot, or null before the first {@link #refresh} ran; any thread. */
    Published published() {
        return published;
    }
}
