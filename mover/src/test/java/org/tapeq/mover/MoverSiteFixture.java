package org.tapeq.mover;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.engine.IoGate;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.SchedulerConfig;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.tape.sim.SimLibraryBuilder;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.scheduler.time.Threads;
import org.tapeq.testing.support.Poll;

/**
 * A site in one process: one simulated library (real bytes) on its own loop, two movers serving two of its
 * drives each over gRPC on 127.0.0.1, and a scheduler on another loop using them through a {@link RemoteLibrary}
 * with the lease epoch {@link #epoch}. The simulated library keeps one process's lock on its directory, so the
 * movers share it in this process as separate gRPC servers; they could not share it from separate processes.
 */
final class MoverSiteFixture implements AutoCloseable {

    /** Simulated seconds per real millisecond, for the library's and the scheduler's clocks alike. */
    static final double SPEED = 200;
    static final List<String> M1_DRIVES = List.of("drive0", "drive1");
    static final List<String> M2_DRIVES = List.of("drive2", "drive3");

    /** The site of the scheduler and, unless a test changes it before a restart, of both movers. */
    static final SiteIdentity SITE = new SiteIdentity("gridka", "s3cret");

    final Path dir;
    /** Each mover's site and token at its next start. */
    final SiteIdentity[] moverIdentity = {SITE, SITE};
    final RealTimeEventLoop libraryLoop;
    final ThreadPoolExecutor copies;
    final SimulatedLibrary library;
    final AlertBox alerts = new AlertBox();
    final MoverServer[] movers = new MoverServer[2];
    private final int[] ports = new int[2];
    final AtomicLong epoch = new AtomicLong(1);
    final RealTimeEventLoop loop;
    final ThreadPoolExecutor io;
    final RemoteLibrary remote;
    final Catalog catalog;
    final Scheduler scheduler;
    final Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
    /** The drives that moved bytes, written by the scheduler's loop. */
    final Set<String> drivesUsed = ConcurrentHashMap.newKeySet();
    private long nextId = 1;
    /** The request directories both movers read and write themselves (pools.shared), or null: none. */
    private final List<Path> sharedPools;

    MoverSiteFixture(Path dir, String... barcodes) throws IOException {
        this(dir, b -> b.drives(4), barcodes);
    }

    /** As above, with the library's drives (drive0..drive3) and features set by {@code drives}. */
    MoverSiteFixture(Path dir, java.util.function.Consumer<SimLibraryBuilder> drives, String... barcodes)
            throws IOException {
        this(dir, drives, null, barcodes);
    }

    /** With movers that read and write the pool files of the request directories {@code sharedPools} themselves. */
    MoverSiteFixture(Path dir, List<Path> sharedPools, String... barcodes) throws IOException {
        this(dir, b -> b.drives(4), sharedPools, barcodes);
    }

    private MoverSiteFixture(Path dir, java.util.function.Consumer<SimLibraryBuilder> drives, List<Path> sharedPools,
                             String... barcodes) throws IOException {
        this.dir = dir;
        this.sharedPools = sharedPools;
        Files.createDirectories(dir.resolve("tapes"));
        Files.createDirectories(dir.resolve("staged"));
        libraryLoop = new RealTimeEventLoop("test-library", SPEED);
        copies = pool("test-copy", 4);
        SimLibraryBuilder b = SimulatedLibrary.builder(libraryLoop).seed(7).bytes(dir.resolve("tapes"))
                .copyExecutor(copies);
        drives.accept(b);
        for (String barcode : barcodes) {
            b.cartridge(barcode, MediaType.LTO9, 200_000_000L);
        }
        library = b.build();
        library.alerts(alerts);
        startMover(0);
        startMover(1);
        loop = new RealTimeEventLoop("test-scheduler", SPEED);
        io = pool("test-io", 4);
        remote = new RemoteLibrary(site(SITE), loop, library.blockSize(), epoch::get, "test-scheduler");
        catalog = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        scheduler = Scheduler.builder().loop(loop).library(remote).catalog(catalog).config(config())
                .io(new IoGate(loop, io, 1_000)).stageSpace(StageSpace.UNLIMITED).repackSpool(dir.resolve("spool"))
                .driveObserver(new org.tapeq.scheduler.engine.drive.DriveObserver() {
                    @Override
                    public void transferred(String drive, boolean write, long bytes, long started, long ended) {
                        drivesUsed.add(drive);
                    }
                })
                .listener((request, outcome) -> outcomes.put(request.id(), outcome)).build();
        scheduler.start().join();
        remote.events(new MoverDrives(scheduler));
    }

    /** The site's scheduler configuration. */
    static SchedulerConfig config() {
        return SchedulerConfig.builder().familyRule("atlas:.*", "raw").aggregateBytes(4_000_000)
                .aggregateWaitMillis(60_000).quietMillis(30_000).retryBackoffMillis(10_000).build();
    }

    /** The two movers as a scheduler of {@code identity}'s site sees them. */
    MoverSite site(SiteIdentity identity) {
        return new MoverSite(List.of(
                new MoverEndpoint("m1", "127.0.0.1", ports[0], M1_DRIVES),
                new MoverEndpoint("m2", "127.0.0.1", ports[1], M2_DRIVES)), "m1", 60_000, 100, 5_000, 10_000,
                identity);
    }

    private static ThreadPoolExecutor pool(String name, int threads) {
        return new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1_000),
                Threads.numbered(name), new ThreadPoolExecutor.AbortPolicy());
    }

    /** Starts mover {@code i} (m1 or m2), on the port it had before if it ran already. */
    void startMover(int i) throws IOException {
        String name = "m" + (i + 1);
        movers[i] = MoverServer.start(name, new InetSocketAddress("127.0.0.1", ports[i]),
                Set.copyOf(i == 0 ? M1_DRIVES : M2_DRIVES), library, alerts, libraryLoop, moverState(i),
                moverIdentity[i], 10_000, sharedPools == null ? null : PoolFiles.open(name, sharedPools), false);
        ports[i] = movers[i].port();
    }

    /** Mover {@code i}'s own state directory (its fencing epoch), kept across its restarts. */
    Path moverState(int i) throws IOException {
        return Files.createDirectories(dir.resolve("mover-m" + (i + 1)));
    }

    void label(String family, String... barcodes) {
        for (String b : barcodes) {
            scheduler.labelCartridge(b, family, false).join();
        }
    }

    static String pnfsid(int i) {
        return String.format("0000%020X", i);
    }

    Path source(int i) {
        return dir.resolve("src").resolve(pnfsid(i));
    }

    /** Queues flushes of files {@code first..first+count-1}, about 900 kB of seeded random bytes each. */
    List<FlushRequest> flush(int first, int count) throws IOException {
        return flush(first, count, this::source, org.tapeq.scheduler.model.RequestOrigin.NONE);
    }

    /**
     * As above, file i's bytes written to {@code source.apply(i)}, the requests coming from {@code origin}; a
     * request of an origin other than {@code NONE} carries the file's Adler-32, as a pool's does.
     */
    List<FlushRequest> flush(int first, int count, java.util.function.IntFunction<Path> source,
                             org.tapeq.scheduler.model.RequestOrigin origin) throws IOException {
        List<FlushRequest> flushes = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            Path src = source.apply(i);
            Files.createDirectories(src.getParent());
            byte[] data = new byte[900_000 + i];
            new Random(i).nextBytes(data);
            Files.write(src, data);
            java.util.zip.Adler32 adler = new java.util.zip.Adler32();
            adler.update(data);
            String checksum = origin == org.tapeq.scheduler.model.RequestOrigin.NONE ? null
                    : org.tapeq.scheduler.format.Checksums.format(adler.getValue());
            flushes.add(new FlushRequest(nextId++, pnfsid(i), data.length, "atlas:raw@osm", "/data/ds" + (i % 2)
                    + "/f" + i, null, "atlas", 0, 0, checksum, src, origin));
        }
        flushes.forEach(scheduler::flush);
        return flushes;
    }

    List<StageRequest> stage(int first, int count) {
        return stage(first, count, this::staged);
    }

    /** Queues stages of files {@code first..first+count-1}, file i's bytes to {@code target.apply(i)}. */
    List<StageRequest> stage(int first, int count, java.util.function.IntFunction<Path> target) {
        List<StageRequest> stages = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            stages.add(new StageRequest(nextId++, pnfsid(i), -1, "atlas:raw@osm", "/f" + i, "atlas", null, 0, 0,
                    target.apply(i)));
        }
        stages.forEach(scheduler::stage);
        return stages;
    }

    Path staged(int i) {
        return dir.resolve("staged").resolve(pnfsid(i));
    }

    /** Waits until every request has its outcome. */
    void awaitOutcomes(List<? extends org.tapeq.scheduler.model.TapeRequest> requests) throws InterruptedException {
        try {
            Poll.until(requests.size() + " outcomes", java.time.Duration.ofSeconds(120),
                    () -> requests.stream().allMatch(r -> outcomes.containsKey(r.id())));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; scheduler: " + scheduler.status(1000).join(), e);
        }
    }

    SchedulerStatus.DriveStatus drive(String id) {
        return scheduler.status(1000).join().drives().stream().filter(d -> d.id().equals(id)).findFirst()
                .orElseThrow();
    }

    @Override
    public void close() {
        remote.close();
        loop.close();
        for (MoverServer m : movers) {
            if (m != null) {
                m.close();
            }
        }
        libraryLoop.close();
        library.close();
        copies.shutdownNow();
        io.shutdownNow();
        catalog.close();
    }
}
