package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.daemon.config.DirectoryConfig;
import org.tapeq.daemon.metrics.DaemonMetrics;
import org.tapeq.protocol.HeldDirectory;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.model.RequestOrigin;
import org.tapeq.scheduler.time.EventLoop;

/** What the parts of one bridge share; immutable (the buffer guards its own state). */
final class BridgeContext {

    static final String KIND_STAGE = "stage";
    static final String KIND_FLUSH = "flush";
    static final String KIND_REMOVE = "remove";

    private static final Logger LOG = LoggerFactory.getLogger(BridgeContext.class);

    final BridgeSettings settings;
    final RequestDirectory dir;
    /** The directory held open: every file access of the bridge goes through it. */
    final DirectoryGuard guard;
    final Scheduler scheduler;
    final Catalog catalog;
    final EventLoop loop;
    final double speed;
    final DaemonMetrics metrics;
    final LongSupplier wallClock;
    final StageBuffer buffer;
    final BridgeThread thread;
    /** Set on every request this bridge hands to the scheduler: its outcome comes back here. */
    final RequestOrigin origin;

    BridgeContext(BridgeSettings settings, DirectoryGuard guard, BridgeServices services, StageBuffer buffer,
                  BridgeThread thread, RequestOrigin origin) {
        this.settings = settings;
        this.guard = guard;
        this.dir = guard.held.layout();
        this.scheduler = services.scheduler();
        this.catalog = services.catalog();
        this.loop = services.loop();
        this.speed = services.speed();
        this.metrics = services.metrics();
        this.wallClock = services.wallClock();
        this.buffer = buffer;
        this.thread = thread;
        this.origin = origin;
    }

    String name() {
        return settings.name();
    }

    double seconds(Tracked t) {
        return (wallClock.getAsLong() - t.seenMillis) / 1000.0;
    }

    /** Gives a request's buffer space back and lets waiting drives try again. */
    void freeSpace(long id) {
        if (buffer.release(id)) {
            scheduler.spaceFreed();
        }
    }

    /** One copy per group name, shared by every request of the group (a million queued requests, a few groups). */
    String groupOf(Request r) {
        return DirectoryConfig.groupOf(settings.group(), r.storageClass()).intern();
    }

    static String checksumOf(Request r) {
        if (r.checksumType() == null || r.checksumValue() == null) {
            return null;
        }
        return r.checksumType().toLowerCase(Locale.ROOT) + ':' + r.checksumValue().toLowerCase(Locale.ROOT);
    }

    HeldDirectory in() {
        return guard.held.in();
    }

    HeldDirectory out() {
        return guard.held.out();
    }

    HeldDirectory requests() {
        return guard.held.request();
    }

    HeldDirectory trash() {
        return guard.held.trash();
    }

    /** Whether the request file of {@code pnfsid} is still there (itself, not followed if it is a link). */
    boolean requestFilePresent(String pnfsid) {
        return requests().exists(pnfsid);
    }

    /** Removes {@code name} from {@code dir}, logging a failure. */
    static void deleteQuietly(HeldDirectory dir, String name) {
        try {
            dir.delete(name);
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", dir.resolve(name), e.toString());
        }
    }

    /** Removes a stage's temporary file from in/, if it has one. */
    void deleteTemporary(Tracked t) {
        Path temporary = t.temporary();
        if (temporary != null) {
            deleteQuietly(in(), temporary.getFileName().toString());
        }
    }
}
