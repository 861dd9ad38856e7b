package org.tapeq.provider;

import diskCacheV111.util.PnfsId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.dcache.util.Checksum;
import org.dcache.util.ChecksumType;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.poolemulator.PoolEmulator;
import org.tapeq.protocol.PnfsIds;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.testing.support.Poll;

/** A request directory, a running provider, a pool emulator driving it and a fake daemon answering. */
final class Fixture implements AutoCloseable {
    static final String HSM_TYPE = "osm";
    static final String HSM_NAME = "tape1";

    final Path base;
    final RequestDirectory dir;
    final PoolEmulator pool;
    final FakeTapeDaemon daemon;
    final TapeqNearlineStorage storage;

    private Fixture(Path root, Map<String, String> options, PoolEmulator.Builder poolBuilder) throws IOException {
        base = Files.createDirectories(root.resolve("endit"));
        RequestDirectory.create(base);
        dir = RequestDirectory.at(base);
        Path data = Files.createDirectories(root.resolve("pool-data"));
        pool = poolBuilder.hsm(HSM_TYPE, HSM_NAME).dataDirectory(data).build();
        daemon = new FakeTapeDaemon(dir);
        storage = new TapeqNearlineStorage(HSM_TYPE, HSM_NAME);
        storage.configure(options(options));
        storage.start();
        pool.attach(storage);
    }

    static Fixture start(Path root, String... options) throws IOException {
        return start(root, PoolEmulator.builder(), options);
    }

    static Fixture start(Path root, PoolEmulator.Builder poolBuilder, String... options) throws IOException {
        Map<String, String> map = new HashMap<>();
        for (String option : options) {
            int eq = option.indexOf('=');
            map.put(option.substring(0, eq), option.substring(eq + 1));
        }
        return new Fixture(root, map, poolBuilder);
    }

    /** Fast settings for tests, overridden by {@code extra}. */
    Map<String, String> options(Map<String, String> extra) {
        Map<String, String> options = new HashMap<>();
        options.put(ProviderConfig.DIRECTORY, base.toString());
        options.put(ProviderConfig.PERIOD, "20");
        options.put(ProviderConfig.GRACE_PERIOD, "100");
        options.put(ProviderConfig.RESCAN, "1");
        options.putAll(extra);
        return options;
    }

    static PnfsId newPnfsId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return new PnfsId(String.format("0000%016X%016X", r.nextLong(), r.nextLong()));
    }

    static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    static Checksum adler32Of(byte[] data) {
        return new Checksum(ChecksumType.ADLER32, FakeTapeDaemon.adler32(data));
    }

    /** A replica on the pool and a flush request for it (not yet submitted). */
    EmulatedFlushRequest newFlush(byte[] content, String path) throws IOException {
        PnfsId id = newPnfsId();
        pool.writeReplica(id, content);
        return pool.newFlush(id, content.length, "atlas:raw", path, List.of(adler32Of(content)));
    }

    EmulatedStageRequest newStage(byte[] content, String path) {
        return pool.newStage(newPnfsId(), content.length, "atlas:raw", path, List.of(adler32Of(content)));
    }

    static Outcome outcome(EmulatedRequest<?> request) throws Exception {
        return request.awaitOutcome(10, TimeUnit.SECONDS);
    }

    /**
     * Waits until the provider has acted on everything that happened before this call: one timer period has passed
     * (so the poll of staged files still being written ran since), and every task step queued on the I/O pool
     * until then has run. The pool runs its queue in order on a fixed number of threads; once that many barrier
     * tasks run at the same time, every thread has finished what it took before them.
     */
    void settle() throws Exception {
        ProviderRuntime rt = storage.runtime();
        rt.timer.schedule(() -> { }, rt.config().period().toMillis(), TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
        int threads = rt.io.getMaximumPoolSize();
        CyclicBarrier allRunning = new CyclicBarrier(threads);
        List<Future<?>> barriers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            barriers.add(rt.io.submit(() -> {
                allRunning.await(10, TimeUnit.SECONDS);
                return null;
            }));
        }
        for (Future<?> b : barriers) {
            b.get(10, TimeUnit.SECONDS);
        }
    }

    /** Whether the stage of {@code pnfsid} is watching its staged file grow (found short, not delivered). */
    boolean polling(String pnfsid) {
        return storage.runtime().polled.stream().anyMatch(t -> t.name().equals(pnfsid));
    }

    /** Names in a subdirectory (for checking the directory is left clean). */
    List<String> list(String subdirectory) throws IOException {
        try (var s = Files.list(base.resolve(subdirectory))) {
            return s.map(p -> p.getFileName().toString()).sorted().collect(java.util.stream.Collectors.toList());
        }
    }

    private WatchService requestWatch;
    private final List<String> requestFilesSeen = new ArrayList<>();

    /** Starts recording request files that appear in request/ from now on. */
    void countRequestFilesFromNow() throws IOException {
        requestWatch = base.getFileSystem().newWatchService();
        dir.requestDir().register(requestWatch, StandardWatchEventKinds.ENTRY_CREATE);
    }

    /** Request files (pnfsid names) created since {@link #countRequestFilesFromNow()}, in order. */
    synchronized List<String> requestFilesCreated() {
        for (WatchKey key; (key = requestWatch.poll()) != null; key.reset()) {
            for (WatchEvent<?> event : key.pollEvents()) {
                if (event.context() != null && PnfsIds.isPnfsId(event.context().toString())) {
                    requestFilesSeen.add(event.context().toString());
                }
            }
        }
        return new ArrayList<>(requestFilesSeen);
    }

    /** Submits {@code flush} and returns its pnfsid once its out/ link exists. */
    String flushAndAwaitLink(EmulatedFlushRequest flush) throws InterruptedException {
        String id = flush.pnfsId().toString();
        pool.flush(List.of(flush));
        Poll.until("out/" + id + " linked", () -> Files.exists(dir.outLink(id)));
        return id;
    }

    /** Submits {@code stage} and returns its pnfsid once its request file exists. */
    String stageAndAwaitRequest(EmulatedStageRequest stage) throws InterruptedException {
        String id = stage.pnfsId().toString();
        pool.stage(List.of(stage));
        Poll.until("request/" + id + " written", () -> Files.exists(dir.requestFile(id)));
        return id;
    }

    @Override
    public void close() throws IOException {
        if (requestWatch != null) {
            requestWatch.close();
        }
        daemon.close();
        storage.shutdown();
        pool.close();
    }
}
