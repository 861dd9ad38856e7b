package org.tapeq.provider;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.HeldRequestDirectory;
import org.tapeq.protocol.RequestDirectory;

/**
 * What the tasks of one provider instance share while it runs: the directory, the current settings, the
 * registry and the threads. The I/O pool's queue is unbounded in type but bounded in practice: a task is
 * queued at most once at a time (see {@link Task}), so it never holds more entries than requests in flight.
 */
final class ProviderRuntime {
    private static final Logger LOG = LoggerFactory.getLogger(ProviderRuntime.class);

    final String hsmType;
    final String hsmName;
    final RequestDirectory directory;
    /** The directory held open at start: every file access goes through it (never by the paths above). */
    final HeldRequestDirectory held;
    /** Why the directory is no longer served (a path there names something else now), or null. */
    private final AtomicReference<String> stopped = new AtomicReference<>();
    final RequestRegistry registry = new RequestRegistry();
    /** Stage tasks whose staged file is still being written; checked every {@link ProviderConfig#period()}. */
    final Set<Task> polled = ConcurrentHashMap.newKeySet();
    final ThreadPoolExecutor io;
    final ScheduledThreadPoolExecutor timer;
    final Clock clock;
    final long startMillis;
    final long pid = ProcessHandle.current().pid();
    private volatile ProviderConfig config;
    /** Request files written so far (admissions into the directory). */
    final LongAdder requestFilesWritten = new LongAdder();
    /** Incremented at the start of each rescan; see {@link Rescanner}. */
    volatile int generation;

    ProviderRuntime(String hsmType, String hsmName, ProviderConfig config, Clock clock) throws IOException {
        this.hsmType = hsmType;
        this.hsmName = hsmName;
        this.config = config;
        this.directory = RequestDirectory.at(config.directory());
        this.held = HeldRequestDirectory.open(directory);
        this.clock = clock;
        this.startMillis = clock.millis();
        this.io = new ThreadPoolExecutor(config.threads(), config.threads(), 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), threads("io"));
        this.timer = new ScheduledThreadPoolExecutor(1, threads("timer"));
        this.timer.setRemoveOnCancelPolicy(true);
    }

    ProviderConfig config() {
        return config;
    }

    /**
     * Null while every path of the directory still names what was opened at start; otherwise why it is no
     * longer served (logged once). Once stopped it stays stopped: the pool must be restarted with the directory
     * restored.
     */
    String checkDirectory() {
        if (stopped.get() == null) {
            String changed = held.changed();
            if (changed != null && stopped.compareAndSet(null, changed)) {
                LOG.error("tapeq provider {}: STOPPED serving request directory {}: {}. Every request fails from "
                        + "now on and nothing is read or written there. Restore the directory (a real directory, "
                        + "not a link) and restart the pool (docs/provider.md)", hsmName, directory, changed);
            }
        }
        return stopped.get();
    }

    /** Why the directory is no longer served, or null; no file access. */
    String stopped() {
        return stopped.get();
    }

    /** Applies new settings; the directory is never changed here (see TapeqNearlineStorage#configure). */
    void reconfigure(ProviderConfig newConfig) {
        if (newConfig.threads() > io.getMaximumPoolSize()) {
            io.setMaximumPoolSize(newConfig.threads());
            io.setCorePoolSize(newConfig.threads());
        } else {
            io.setCorePoolSize(newConfig.threads());
            io.setMaximumPoolSize(newConfig.threads());
        }
        this.config = newConfig;
    }

    /** The tape location of a flushed file: {@code <type>://<instance>?bfid=<pnfsid>}, as ENDIT returns it. */
    URI flushUri(String pnfsid) {
        try {
            return new URI(hsmType, hsmName, null, "bfid=" + pnfsid, null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("HSM type '" + hsmType + "' or instance '" + hsmName
                    + "' cannot form a URI: " + e.getMessage(), e);
        }
    }

    private ThreadFactory threads(String role) {
        AtomicInteger n = new AtomicInteger();
        String prefix = "tapeq-" + hsmName + "-" + role + "-";
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    void stop() {
        timer.shutdownNow();
        io.shutdownNow();
        try {
            held.close();
        } catch (IOException e) {
            LOG.debug("closing {}: {}", directory, e.toString());
        }
    }
}
