package org.tapeq.provider;

import diskCacheV111.util.PnfsId;
import java.io.IOException;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.dcache.pool.nearline.spi.FlushRequest;
import org.dcache.pool.nearline.spi.NearlineRequest;
import org.dcache.pool.nearline.spi.NearlineStorage;
import org.dcache.pool.nearline.spi.RemoveRequest;
import org.dcache.pool.nearline.spi.StageRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.DirectoryWatcher;

/**
 * One HSM instance of the tapeq provider ({@code hsm create <type> <name> tapeq -directory=...}).
 *
 * <p>{@link #configure} only validates and records settings (dCache's config test calls nothing else);
 * {@link #start} starts the threads: an I/O pool, a timer and a directory watcher. Requests are handed
 * to {@link FlushTask}s and {@link StageTask}s; submitting and cancelling never block. A reconfiguration
 * while running applies at once, except a new directory, which is refused while requests are in flight.
 */
public final class TapeqNearlineStorage implements NearlineStorage {
    private static final Logger LOG = LoggerFactory.getLogger(TapeqNearlineStorage.class);

    private final String type;
    private final String name;
    private final Clock clock;
    private ProviderConfig config;
    private volatile ProviderRuntime runtime;
    private Rescanner rescanner;
    private EventSignals watcher;

    public TapeqNearlineStorage(String type, String name) {
        this(type, name, Clock.systemUTC());
    }

    TapeqNearlineStorage(String type, String name, Clock clock) {
        this.type = type;
        this.name = name;
        this.clock = clock;
    }

    @Override
    public void flush(Iterable<FlushRequest> requests) {
        for (FlushRequest request : requests) {
            admit(request, (rt, id) -> new FlushTask(rt, request, id));
        }
    }

    @Override
    public void stage(Iterable<StageRequest> requests) {
        for (StageRequest request : requests) {
            admit(request, (rt, id) -> new StageTask(rt, request, id));
        }
    }

    private void admit(NearlineRequest<?> request, BiFunction<ProviderRuntime, PnfsId, Task> factory) {
        ProviderRuntime rt = runtime;
        if (rt == null) {
            request.failed(new IllegalStateException("tapeq provider " + name + " is not started"));
            return;
        }
        Task task;
        try {
            PnfsId pnfsId = request instanceof FlushRequest
                    ? ((FlushRequest) request).getFileAttributes().getPnfsId()
                    : ((StageRequest) request).getFileAttributes().getPnfsId();
            task = factory.apply(rt, pnfsId);
            if (!rt.registry.admit(task)) {
                LOG.info("{} {} waits for the previous request for this file to finish", task.name(), task.kind());
                return;
            }
        } catch (RuntimeException e) {
            LOG.warn("request {} refused: {}", request.getId(), e.toString());
            request.failed(e);
            return;
        }
        task.start();
    }

    @Override
    public void remove(Iterable<RemoveRequest> requests) {
        ProviderRuntime rt = runtime;
        for (RemoveRequest request : requests) {
            if (rt == null) {
                request.failed(new IllegalStateException("tapeq provider " + name + " is not started"));
            } else {
                Removals.submit(rt, request);
            }
        }
    }

    @Override
    public void cancel(UUID uuid) {
        ProviderRuntime rt = runtime;
        Task task = rt == null ? null : rt.registry.byId(uuid);
        if (task != null) {
            task.requestCancel();
        }
    }

    @Override
    public synchronized void configure(Map<String, String> properties) throws IllegalArgumentException {
        ProviderConfig next = ProviderConfig.parse(properties);
        ProviderRuntime rt = runtime;
        if (rt != null) {
            if (!next.directory().equals(rt.config().directory())) {
                int inFlight = rt.registry.size();
                if (inFlight > 0) {
                    throw new IllegalStateException(ProviderConfig.DIRECTORY + ": cannot change from "
                            + rt.config().directory() + " to " + next.directory() + " while " + inFlight
                            + " requests are in flight");
                }
                stopRuntime();
                config = next;
                try {
                    startRuntime();
                } catch (IOException e) {
                    throw new IllegalArgumentException(ProviderConfig.DIRECTORY + ": " + e.getMessage(), e);
                }
            } else {
                rt.reconfigure(next);
            }
        }
        config = next;
        LOG.info("tapeq provider {} ({}) configured: {}", name, type, next);
    }

    @Override
    public synchronized void start() throws IOException {
        if (config == null) {
            throw new IllegalStateException("tapeq provider " + name + " started before it was configured");
        }
        if (runtime == null) {
            startRuntime();
        }
    }

    private void startRuntime() throws IOException {
        ProviderRuntime rt = new ProviderRuntime(type, name, config, clock);
        Rescanner newRescanner = new Rescanner(rt);
        EventSignals newWatcher;
        try {
            newWatcher = new EventSignals(rt, newRescanner);
        } catch (IOException e) {
            rt.stop();
            throw new IOException(config.directory() + ": cannot watch the request directory: " + e.getMessage(), e);
        }
        newWatcher.start();
        newRescanner.start();
        rescanner = newRescanner;
        watcher = newWatcher;
        runtime = rt;
        LOG.info("tapeq provider {} serving {}", name, rt.directory);
    }

    @Override
    public synchronized void shutdown() {
        stopRuntime();
    }

    private void stopRuntime() {
        ProviderRuntime rt = runtime;
        if (rt == null) {
            return;
        }
        runtime = null;
        watcher.stop();
        rt.stop();
        try {
            rt.io.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int ended = 0;
        while (rt.registry.size() > 0) {
            for (Task task : rt.registry.tasks()) {
                if (task.claim()) {
                    task.settle(Ending.failed(new CancellationException("tapeq provider " + name + " shut down")));
                    ended++;
                } else {
                    rt.registry.retire(task);
                }
            }
        }
        LOG.info("tapeq provider {} stopped; {} requests in flight were ended (their files stay for a restart)",
                name, ended);
    }

    /** Requests in flight (flushes and stages; removes complete at once). */
    public int inFlight() {
        ProviderRuntime rt = runtime;
        return rt == null ? 0 : rt.registry.size();
    }

    /** Request files written since start, i.e. requests handed to the daemon. */
    public long requestFilesWritten() {
        ProviderRuntime rt = runtime;
        return rt == null ? 0 : rt.requestFilesWritten.sum();
    }

    /** Lost directory events and the scans that made up for them, since start; all zero when not started. */
    public synchronized ScanCounts scanCounts() {
        return runtime == null ? new ScanCounts(0, 0, 0, 0) : rescanner.counts(watcher.overflows());
    }

    /** Drops directory events while true; for tests emulating a filesystem shared with other hosts. */
    void ignoreEvents(boolean ignore) {
        watcher.ignoreEvents(ignore);
    }

    /** The running instance's threads and tasks; for tests that wait until it has acted. */
    ProviderRuntime runtime() {
        return runtime;
    }

    /** The directory watcher's listener; for tests that emulate an overflow. */
    DirectoryWatcher.Listener watchListener() {
        return watcher;
    }

    /** Runs a rescan now on the caller's thread; for tests. */
    void rescanNow() {
        rescanner.rescan();
    }
}
