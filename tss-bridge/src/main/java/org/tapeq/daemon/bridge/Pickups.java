package org.tapeq.daemon.bridge;

import static org.tapeq.daemon.bridge.BridgeContext.deleteQuietly;

import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.RequestDirectory;

/**
 * Delivered files and the space they hold, on the bridge's thread: a file the pool took frees its room in the
 * stage buffer; one left behind by a withdrawn request is removed after the orphan timeout. Also the
 * once-a-second measurement of in/'s free space.
 */
final class Pickups {

    private static final Logger LOG = LoggerFactory.getLogger(Pickups.class);

    private final BridgeContext cx;
    private final RequestTable table;
    /** Reads a request file again (a delivered file vanished while its request is still there). */
    private final Consumer<String> reread;
    /** Whether removal events from in/ arrive; set before the bridge's thread starts working. */
    private boolean watched;
    private long refusalsSeen;

    Pickups(BridgeContext cx, RequestTable table, Consumer<String> reread) {
        this.cx = cx;
        this.table = table;
        this.reread = reread;
    }

    void watched(boolean w) {
        watched = w;
    }

    /**
     * Once a second: free space is measured (the scheduler's loop must not wait for a filesystem), drives that
     * were refused space ask again (the pool's disk may have room now even though nothing was released), and
     * without a watcher taken files release their space (with one, removal events and rescans say it).
     */
    void tick() {
        cx.buffer.measure();
        long refusals = cx.buffer.refusals();
        if (refusals != refusalsSeen) {
            refusalsSeen = refusals;
            cx.scheduler.spaceFreed();
        }
        if (!watched) {
            checkAll(); // one stat per delivered file: only when no removal events say it
        }
    }

    /** After a rescan: with a watcher, removal events say when files are taken; this catches lost ones. */
    void rescanned() {
        if (watched) {
            checkAll();
        }
    }

    private void checkAll() {
        for (Tracked t : table.inState(Tracked.State.DELIVERED)) {
            check(t);
        }
    }

    /** A delivered file the pool took frees its space; one left behind by a cancelled request is an orphan. */
    void check(Tracked t) {
        if (!cx.in().exists(t.pnfsid)) {
            finish(t);
            return;
        }
        long now = cx.wallClock.getAsLong();
        if (t.requestGoneMillis() != 0 && now - t.requestGoneMillis() > cx.settings.orphanMillis()) {
            LOG.info("{}: removing {}: delivered, but its request went away {} ms ago and the pool never took it",
                    cx.name(), cx.in().resolve(t.pnfsid), now - t.requestGoneMillis());
            deleteQuietly(cx.in(), t.pnfsid);
            deleteQuietly(cx.in(), RequestDirectory.checksumFileName(t.pnfsid));
            finish(t);
        }
    }

    private void finish(Tracked t) {
        table.remove(t);
        cx.freeSpace(t.id);
        t.acknowledged();
        if (t.requestGoneMillis() == 0 && cx.requestFilePresent(t.pnfsid)) {
            // Both providers remove the request before they take the file; someone else removed it.
            LOG.warn("{}: {} disappeared from in/ but its request is still there; staging it again",
                    cx.name(), t.pnfsid);
            reread.accept(t.pnfsid);
        }
    }
}
