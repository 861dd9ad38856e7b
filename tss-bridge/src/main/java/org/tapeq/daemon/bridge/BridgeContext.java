package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.daemon.config.DirectoryConfig;
import org.tapeq.daemon.metrics.DaemonMetrics;
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

    BridgeContext(BridgeSettings settings, RequestDirectory dir, BridgeServices services, StageBuffer buffer,
                  BridgeThread thread, RequestOrigin origin) {
        this.settings = settings;
        this.dir = dir;
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

    String groupOf(Request r) {
        return DirectoryConfig.groupOf(settings.group(), r.storageClass());
    }

    static String checksumOf(Request r) {
        if (r.checksumType() == null || r.checksumValue() == null) {
            return null;
        }
        return r.checksumType().toLowerCase(Locale.ROOT) + ':' + r.checksumValue().toLowerCase(Locale.ROOT);
    }

    /**
     * Whether a file is at {@code p}, following a symbolic link (a dangling one counts as nothing, as it does for
     * the provider reading it). For probes whose usual answer is no: unlike {@code Files.exists(p,
     * NOFOLLOW_LINKS)}, which builds and catches a NoSuchFileException, this costs one stat and no exception.
     * At a million requests those exceptions took a third of the bridge's thread at restart.
     */
    static boolean present(Path p) {
        return Files.exists(p);
    }

    /** Whether the request file of {@code pnfsid} is still there (itself, not followed if it is a link). */
    boolean requestFilePresent(String pnfsid) {
        return Files.exists(dir.requestFile(pnfsid), LinkOption.NOFOLLOW_LINKS);
    }

    static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", p, e.toString());
        }
    }
}
