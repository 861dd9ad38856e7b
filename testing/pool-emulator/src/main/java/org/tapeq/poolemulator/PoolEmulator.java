package org.tapeq.poolemulator;

import com.google.common.util.concurrent.SettableFuture;
import diskCacheV111.util.PnfsId;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.dcache.pool.nearline.spi.FlushRequest;
import org.dcache.pool.nearline.spi.NearlineStorage;
import org.dcache.pool.nearline.spi.RemoveRequest;
import org.dcache.pool.nearline.spi.StageRequest;
import org.dcache.util.Checksum;
import org.dcache.vehicles.FileAttributes;

/**
 * A dCache pool as a nearline storage plugin sees it. It owns a data directory (replicas are files named
 * by pnfsid), makes requests like dCache's, submits them to a {@link NearlineStorage}, and records
 * outcomes and every violation of the SPI contract (second completion, completion without activation or
 * allocation, return codes that would disable a pool, URIs dCache rejects, a stage without its replica).
 *
 * <p>Fault switches: activation and allocation can be held (released by hand) or refused, and a timeout
 * task can cancel expired requests through {@link NearlineStorage#cancel} as dCache's does every 30 s.
 */
public final class PoolEmulator implements AutoCloseable {

    /** How {@code activate()} answers. */
    public enum ActivationMode { IMMEDIATE, HOLD, FAIL, THROW }

    /** How {@code allocate()} answers. */
    public enum AllocationMode { IMMEDIATE, HOLD, NO_SPACE }

    private final String hsmType;
    private final String hsmInstance;
    private final Path dataDirectory;
    private final Clock clock;
    private final long flushTimeoutMillis;
    private final long stageTimeoutMillis;
    private final Map<UUID, EmulatedRequest<?>> inFlight = new ConcurrentHashMap<>();
    private final Collection<String> violations = new ConcurrentLinkedQueue<>();
    private final Collection<SettableFuture<Void>> held = new ConcurrentLinkedQueue<>();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final Object finishedMonitor = new Object();
    private final ScheduledExecutorService timeoutTask;
    private final boolean trackInFlight;
    /** Storage info of requests without a path, shared per storage class to keep huge runs small. */
    private final Map<String, EmulatedStorageInfo> sharedInfo = new ConcurrentHashMap<>();
    private volatile NearlineStorage storage;
    private volatile ActivationMode activationMode = ActivationMode.IMMEDIATE;
    private volatile AllocationMode allocationMode = AllocationMode.IMMEDIATE;
    private volatile Consumer<EmulatedRequest<?>> finishListener = r -> { };

    private PoolEmulator(Builder b) {
        this.hsmType = b.hsmType;
        this.hsmInstance = b.hsmInstance;
        this.dataDirectory = Objects.requireNonNull(b.dataDirectory, "dataDirectory").toAbsolutePath();
        this.clock = b.clock;
        this.flushTimeoutMillis = b.flushTimeoutMillis;
        this.stageTimeoutMillis = b.stageTimeoutMillis;
        this.trackInFlight = b.trackInFlight;
        if (b.timeoutCheckMillis > 0 && !trackInFlight) {
            throw new IllegalArgumentException("the timeout task needs requests tracked in flight");
        }
        if (b.timeoutCheckMillis > 0) {
            timeoutTask = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "pool-emulator-timeouts");
                t.setDaemon(true);
                return t;
            });
            timeoutTask.scheduleWithFixedDelay(this::cancelExpired, b.timeoutCheckMillis, b.timeoutCheckMillis,
                    TimeUnit.MILLISECONDS);
        } else {
            timeoutTask = null;
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The plugin this pool drives; set before submitting. */
    public PoolEmulator attach(NearlineStorage storage) {
        this.storage = storage;
        return this;
    }

    public NearlineStorage storage() {
        return Objects.requireNonNull(storage, "no NearlineStorage attached");
    }

    public String hsmType() {
        return hsmType;
    }

    public String hsmInstance() {
        return hsmInstance;
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    Clock clock() {
        return clock;
    }

    /** Where the pool keeps (or will keep) the replica of {@code pnfsId}. */
    public Path replicaPath(PnfsId pnfsId) {
        return dataDirectory.resolve(pnfsId.toString());
    }

    URI replicaUri(PnfsId pnfsId) {
        return replicaPath(pnfsId).toUri();
    }

    // ---- making requests ------------------------------------------------------------------------------

    /** Writes a replica into the data directory, as if a client had uploaded it. */
    public Path writeReplica(PnfsId pnfsId, byte[] content) throws IOException {
        return Files.write(replicaPath(pnfsId), content);
    }

    /**
     * A flush of the replica already in the data directory; its size is taken from the namespace view
     * ({@code size}), which tests may set to disagree with the file on disk.
     */
    public EmulatedFlushRequest newFlush(PnfsId pnfsId, long size, String storageClass, String path,
            Collection<Checksum> checksums) {
        return new EmulatedFlushRequest(this, attributes(pnfsId, size, storageClass, path, checksums), path,
                flushTimeoutMillis);
    }

    /** A stage of a file that the namespace says has {@code size} bytes and these checksums. */
    public EmulatedStageRequest newStage(PnfsId pnfsId, long size, String storageClass, String path,
            Collection<Checksum> checksums) {
        return new EmulatedStageRequest(this, attributes(pnfsId, size, storageClass, path, checksums),
                stageTimeoutMillis);
    }

    /** A remove of the tape copy at {@code uri}. */
    public EmulatedRemoveRequest newRemove(URI uri) {
        return new EmulatedRemoveRequest(this, uri, 0);
    }

    private FileAttributes attributes(PnfsId pnfsId, long size, String storageClass, String path,
            Collection<Checksum> checksums) {
        FileAttributes attributes = new FileAttributes();
        attributes.setPnfsId(pnfsId);
        attributes.setSize(size);
        attributes.setStorageClass(storageClass);
        attributes.setHsm(hsmType);
        EmulatedStorageInfo info;
        if (path == null) {
            info = sharedInfo.computeIfAbsent(String.valueOf(storageClass),
                    k -> new EmulatedStorageInfo(hsmType, storageClass));
        } else {
            info = new EmulatedStorageInfo(hsmType, storageClass);
            info.setKey("path", path);
        }
        attributes.setStorageInfo(info);
        if (checksums != null) {
            attributes.setChecksums(checksums);
        }
        return attributes;
    }

    // ---- submitting -----------------------------------------------------------------------------------

    public void flush(List<EmulatedFlushRequest> requests) {
        register(requests);
        storage().flush(new ArrayList<FlushRequest>(requests));
    }

    public void stage(List<EmulatedStageRequest> requests) {
        register(requests);
        storage().stage(new ArrayList<StageRequest>(requests));
    }

    public void remove(List<EmulatedRemoveRequest> requests) {
        register(requests);
        storage().remove(new ArrayList<RemoveRequest>(requests));
    }

    private void register(List<? extends EmulatedRequest<?>> requests) {
        if (!trackInFlight) {
            return;
        }
        for (EmulatedRequest<?> request : requests) {
            inFlight.put(request.getId(), request);
        }
    }

    // ---- fault switches -------------------------------------------------------------------------------

    public ActivationMode activationMode() {
        return activationMode;
    }

    public void setActivationMode(ActivationMode mode) {
        this.activationMode = mode;
    }

    public AllocationMode allocationMode() {
        return allocationMode;
    }

    public void setAllocationMode(AllocationMode mode) {
        this.allocationMode = mode;
    }

    void hold(SettableFuture<Void> future) {
        held.add(future);
    }

    /** Completes every held activation and allocation successfully; returns how many. */
    public int releaseHeld() {
        int n = 0;
        for (SettableFuture<Void> f; (f = ((ConcurrentLinkedQueue<SettableFuture<Void>>) held).poll()) != null; ) {
            f.set(null);
            n++;
        }
        return n;
    }

    /** Number of activations and allocations currently held. */
    public int heldCount() {
        return held.size();
    }

    // ---- outcomes ---------------------------------------------------------------------------------------

    /** Called with each request as it finishes (on the plugin's thread). */
    public void onFinished(Consumer<EmulatedRequest<?>> listener) {
        this.finishListener = Objects.requireNonNull(listener);
    }

    void finished(EmulatedRequest<?> request, Outcome outcome) {
        inFlight.remove(request.getId());
        (outcome.isCompleted() ? completed : failed).increment();
        finishListener.accept(request);
        synchronized (finishedMonitor) {
            finishedMonitor.notifyAll();
        }
    }

    Outcome await(EmulatedRequest<?> request, long timeout, TimeUnit unit)
            throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (finishedMonitor) {
            while (request.outcome() == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException(request + " has no outcome after " + timeout + " " + unit);
                }
                TimeUnit.NANOSECONDS.timedWait(finishedMonitor, left);
            }
        }
        return request.outcome();
    }

    /** Waits until no submitted request is in flight. */
    public void awaitIdle(long timeout, TimeUnit unit) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (finishedMonitor) {
            while (!inFlight.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException(inFlight.size() + " requests still in flight after " + timeout
                            + " " + unit);
                }
                TimeUnit.NANOSECONDS.timedWait(finishedMonitor, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
    }

    void violation(String text) {
        violations.add(text);
    }

    /** Every SPI contract violation seen so far; a correct plugin leaves this empty. */
    public List<String> violations() {
        return new ArrayList<>(violations);
    }

    public long completedCount() {
        return completed.sum();
    }

    public long failedCount() {
        return failed.sum();
    }

    public int inFlightCount() {
        return inFlight.size();
    }

    private void cancelExpired() {
        long now = clock.millis();
        for (EmulatedRequest<?> request : inFlight.values()) {
            if (request.getDeadline() < now) {
                storage().cancel(request.getId());
            }
        }
    }

    @Override
    public void close() {
        if (timeoutTask != null) {
            timeoutTask.shutdownNow();
        }
    }

    /** Settings of a {@link PoolEmulator}. */
    public static final class Builder {
        private String hsmType = "osm";
        private String hsmInstance = "tapeq";
        private Path dataDirectory;
        private Clock clock = Clock.systemUTC();
        private long flushTimeoutMillis;
        private long stageTimeoutMillis;
        private long timeoutCheckMillis;
        private boolean trackInFlight = true;

        /** The HSM type and instance of the {@code hsm create} line; flush URIs must carry them. */
        public Builder hsm(String type, String instance) {
            this.hsmType = type;
            this.hsmInstance = instance;
            return this;
        }

        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = dataDirectory;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** dCache's {@code rh set timeout} (the restore timeout): deadline = activation + this; 0 for none. */
        public Builder stageTimeoutMillis(long millis) {
            this.stageTimeoutMillis = millis;
            return this;
        }

        /** dCache's {@code st set timeout} (the store timeout) for flushes; 0 for none. */
        public Builder flushTimeoutMillis(long millis) {
            this.flushTimeoutMillis = millis;
            return this;
        }

        /** Period of the task that cancels expired requests (dCache: 30 s); 0 disables it. */
        public Builder timeoutCheckMillis(long millis) {
            this.timeoutCheckMillis = millis;
            return this;
        }

        /**
         * Whether submitted requests are kept in a map until they finish (needed by {@link #awaitIdle},
         * {@link #inFlightCount} and the timeout task); benchmarks of millions of requests turn it off and
         * use the counters instead.
         */
        public Builder trackInFlight(boolean track) {
            this.trackInFlight = track;
            return this;
        }

        public PoolEmulator build() {
            return new PoolEmulator(this);
        }
    }
}
