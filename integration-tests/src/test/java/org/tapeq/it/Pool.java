package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

import org.dcache.pool.nearline.spi.NearlineStorage;
import org.dcache.pool.nearline.spi.NearlineStorageProvider;
import org.dcache.util.Checksum;
import org.dcache.util.ChecksumType;
import org.tapeq.daemon.Daemon;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedRemoveRequest;
import org.tapeq.poolemulator.EmulatedRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.poolemulator.PoolEmulator;

/**
 * The pool's side: the real tapeq provider plugin, found through {@link ServiceLoader} as dCache finds it,
 * configured for the site's request directory, driven by a {@link PoolEmulator} that records every outcome
 * and every violation of the SPI contract.
 */
final class Pool implements AutoCloseable {

    /** Closes {@code pool} and {@code daemon} (either may be null), then asserts the pool saw no SPI violation. */
    static void closeAndCheck(Pool pool, Daemon daemon) {
        List<String> violations = pool == null ? List.of() : pool.emulator.violations();
        if (pool != null) {
            pool.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        assertEquals(List.of(), violations, "SPI violations seen by the pool");
    }

    /** Provider options for tests: quick polling of growing files and a 1 s rescan. */
    static final Map<String, String> FAST = Map.of("period", "50", "rescan", "1");

    final PoolEmulator emulator;
    final NearlineStorage provider;
    private final Site site;

    private Pool(Site site, PoolEmulator emulator, NearlineStorage provider) {
        this.site = site;
        this.emulator = emulator;
        this.provider = provider;
    }

    /** A pool with no request timeouts. */
    static Pool start(Site site) throws IOException {
        return start(site, PoolEmulator.builder());
    }

    /** A pool with the given emulator settings (timeouts, timeout task); data directory and HSM are set here. */
    static Pool start(Site site, PoolEmulator.Builder builder) throws IOException {
        NearlineStorage provider = loadProvider(site);
        PoolEmulator emulator = builder.hsm(Site.HSM_TYPE, Site.HSM_NAME).dataDirectory(site.pool).build();
        emulator.attach(provider);
        return new Pool(site, emulator, provider);
    }

    private static NearlineStorage loadProvider(Site site) throws IOException {
        for (NearlineStorageProvider p : ServiceLoader.load(NearlineStorageProvider.class)) {
            if ("tapeq".equals(p.getName())) {
                NearlineStorage storage = p.createNearlineStorage(Site.HSM_TYPE, Site.HSM_NAME);
                Map<String, String> options = new HashMap<>(FAST);
                options.put("directory", site.endit.toString());
                storage.configure(options);
                storage.start();
                return storage;
            }
        }
        throw new IOException("the tapeq provider plugin is not on the class path (ServiceLoader found none)");
    }

    // ---------------------------------------------------------------- requests

    /** Writes the file's replica into the pool and makes its flush request (not yet submitted). */
    EmulatedFlushRequest newFlush(TestFile f) throws IOException {
        Files.write(emulator.replicaPath(f.pnfsId()), f.content());
        return emulator.newFlush(f.pnfsId(), f.size(), f.storageClass(), f.path(), checksums(f));
    }

    EmulatedStageRequest newStage(TestFile f) {
        return emulator.newStage(f.pnfsId(), f.size(), f.storageClass(), f.path(), checksums(f));
    }

    static List<Checksum> checksums(TestFile f) {
        return List.of(new Checksum(ChecksumType.ADLER32, f.adler32()));
    }

    List<EmulatedFlushRequest> flush(List<TestFile> files) throws IOException {
        List<EmulatedFlushRequest> requests = new ArrayList<>();
        for (TestFile f : files) {
            requests.add(newFlush(f));
        }
        emulator.flush(requests);
        return requests;
    }

    List<EmulatedStageRequest> stage(List<TestFile> files) {
        List<EmulatedStageRequest> requests = new ArrayList<>();
        for (TestFile f : files) {
            requests.add(newStage(f));
        }
        emulator.stage(requests);
        return requests;
    }

    List<EmulatedRemoveRequest> remove(List<URI> uris) {
        List<EmulatedRemoveRequest> requests = new ArrayList<>();
        for (URI uri : uris) {
            requests.add(emulator.newRemove(uri));
        }
        emulator.remove(requests);
        return requests;
    }

    /** The URI a flush of {@code f} must complete with: the one ENDIT returns. */
    static URI flushUri(TestFile f) {
        return URI.create(Site.HSM_TYPE + "://" + Site.HSM_NAME + "?bfid=" + f.pnfsid());
    }

    /** Removes the pool's replica (a flushed file's disk copy is dropped). */
    void dropReplica(TestFile f) throws IOException {
        Files.deleteIfExists(emulator.replicaPath(f.pnfsId()));
    }

    /** Waits for every request's outcome; fails naming the first one without. */
    static void awaitAll(List<? extends EmulatedRequest<?>> requests, long seconds)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (EmulatedRequest<?> r : requests) {
            long left = Math.max(1, deadline - System.nanoTime());
            r.awaitOutcome(left, TimeUnit.NANOSECONDS);
        }
    }

    static Outcome await(EmulatedRequest<?> r, long seconds) throws Exception {
        return r.awaitOutcome(seconds, TimeUnit.SECONDS);
    }

    Site site() {
        return site;
    }

    @Override
    public void close() {
        provider.shutdown();
        emulator.close();
    }
}
