package org.tapeq.daemon.bridge;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.DirectoryWatcher;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.RequestDirectory;

/**
 * Carries watch events from the watcher's thread to the bridge's: a bounded queue, drained by one task at a
 * time on the bridge's thread. A full queue is handled like the kernel's own overflow: the event is dropped,
 * counted as a lost-events overflow, and a rescan is asked for, which finds what it said. Only pnfsid names
 * are passed on as requests (temporary files and error files are not requests); an error file created in
 * request/ is passed on as such ({@link Intake#errorFileCreated}).
 */
final class WatchEvents implements DirectoryWatcher.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(WatchEvents.class);

    static final int CAPACITY = 16_384;

    /** {@code errorFile}: {@code pnfsid}'s error file was created in request/. */
    private record Event(String subdirectory, String pnfsid, boolean created, boolean errorFile) {
    }

    private final BridgeContext cx;
    private final Intake intake;
    private final ArrayBlockingQueue<Event> queue = new ArrayBlockingQueue<>(CAPACITY);
    /** A drain task is queued on the bridge's thread (set by the watcher, cleared by the drain). */
    private final AtomicBoolean drainPosted = new AtomicBoolean();

    WatchEvents(BridgeContext cx, Intake intake) {
        this.cx = cx;
        this.intake = intake;
    }

    @Override
    public void changed(String subdirectory, String name, DirectoryWatcher.Change change) {
        boolean created = change != DirectoryWatcher.Change.REMOVED;
        Event event;
        if (PnfsIds.isPnfsId(name)) {
            event = new Event(subdirectory, name, created, false);
        } else {
            String answered = RequestDirectory.pnfsIdOfErrorFile(name);
            if (answered == null || !created || !RequestDirectory.REQUEST.equals(subdirectory)) {
                return;
            }
            event = new Event(subdirectory, answered, true, true);
        }
        if (!queue.offer(event)) {
            lost(DirectoryWatcher.Loss.OVERFLOW, "the bridge's event queue (" + CAPACITY + ")");
            return;
        }
        if (drainPosted.compareAndSet(false, true)) {
            cx.thread.run(this::drain);
        }
    }

    @Override
    public void lost(DirectoryWatcher.Loss loss, String detail) {
        if (loss == DirectoryWatcher.Loss.OVERFLOW) {
            LOG.debug("{}: watch events were lost ({}); rescanning", cx.name(), detail);
            cx.metrics.watchOverflow(cx.name());
        } else {
            LOG.error("{}: {} can no longer be watched ({}); relying on rescans", cx.name(), detail, loss);
        }
        cx.thread.run(intake::requestRescan);
    }

    /** On the bridge's thread: everything queued so far, then the request files named are read together. */
    private void drain() {
        drainPosted.set(false); // an event queued from now on posts another drain
        Event e;
        while ((e = queue.poll()) != null) {
            try {
                if (e.errorFile()) {
                    intake.errorFileCreated(e.pnfsid());
                } else {
                    intake.onEvent(e.subdirectory(), e.pnfsid(), e.created());
                }
            } catch (RuntimeException x) {
                LOG.error("{}: handling the event {} failed; the next rescan sees the file", cx.name(), e, x);
            }
        }
        intake.eventsDone();
    }
}
