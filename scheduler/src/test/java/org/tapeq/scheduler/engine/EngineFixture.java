package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.engine.drive.DriveObserver;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.model.TapeRequest;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.sim.SimLibraryBuilder;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.VirtualEventLoop;

/**
 * A scheduler on a simulated library that keeps real bytes, a SQLite catalog file and a virtual clock, with
 * helpers to make source files, flush, stage and wait. Closing and re-opening on the same directory is a
 * daemon restart.
 */
final class EngineFixture implements AutoCloseable {

    static final long START = 1_700_000_000_000L;

    final Path dir;
    final VirtualEventLoop loop;
    final SimulatedLibrary library;
    final Catalog catalog;
    final Scheduler scheduler;
    final Map<Long, Outcome> outcomes = new LinkedHashMap<>();
    final Map<Long, Long> finishedAt = new LinkedHashMap<>();
    final List<TapeRequest> order = new ArrayList<>();
    /** Every transfer on tape the drives told ({@link DriveObserver#transferred}), in order. */
    final List<Transfer> transfers = new ArrayList<>();
    /** Told each outcome after it is recorded (a test's consumer of staged files). */
    RequestListener alsoTell = (request, outcome) -> { };
    private long nextId = 1;

    /** One transfer on tape: bytes read or written on a drive between two loop times. */
    record Transfer(String drive, boolean write, long bytes, long started, long ended) {
    }

    private EngineFixture(Path dir, VirtualEventLoop loop, SimulatedLibrary library, Catalog catalog,
                          SchedulerConfig config, StageSpace space) {
        this(dir, loop, library, library, catalog, config, space, null);
    }

    /**
     * {@code seen}: the library as the scheduler sees it (the simulated one, or a test's wrapper of it);
     * {@code policy}: a test's policy instance, or null for the configuration's.
     */
    private EngineFixture(Path dir, VirtualEventLoop loop, SimulatedLibrary library, TapeLibrary seen,
                          Catalog catalog, SchedulerConfig config, StageSpace space, MountPolicy policy) {
        this.dir = dir;
        this.loop = loop;
        this.library = library;
        this.catalog = catalog;
        this.scheduler = Scheduler.builder().loop(loop).library(seen).catalog(catalog).config(config).policy(policy)
                .repackSpool(dir.resolve("spool"))
                .driveObserver(new DriveObserver() {
                    @Override
                    public void transferred(String drive, boolean write, long bytes, long started, long ended) {
                        transfers.add(new Transfer(drive, write, bytes, started, ended));
                    }
                })
                .stageSpace(space).listener((request, outcome) -> {
                    if (outcomes.put(request.id(), outcome) != null) {
                        throw new AssertionError("second outcome for request " + request.id() + ": " + outcome);
                    }
                    finishedAt.put(request.id(), loop.now());
                    order.add(request);
                    alsoTell.completed(request, outcome);
                }).build();
    }

    /** A library of {@code drives} drives and the given cartridges (small capacity for quick filling). */
    static EngineFixture open(Path dir, SchedulerConfig config, int drives, long capacity, String... barcodes)
            throws IOException {
        return open(dir, config, b -> {
            b.drives(drives);
            for (String barcode : barcodes) {
                b.cartridge(barcode, MediaType.LTO9, capacity);
            }
        });
    }

    static EngineFixture open(Path dir, SchedulerConfig config, Consumer<SimLibraryBuilder> library)
            throws IOException {
        return open(dir, config, true, library);
    }

    /** Like {@link #open(Path, SchedulerConfig, int, long, String...)}, the scheduler seeing the library through
     *  {@code wrap} (a test's faults). */
    static EngineFixture openWrapped(Path dir, SchedulerConfig config, UnaryOperator<TapeLibrary> wrap, int drives,
                                     long capacity, String... barcodes) throws IOException {
        Files.createDirectories(dir.resolve("tapes"));
        VirtualEventLoop loop = new VirtualEventLoop(START);
        SimLibraryBuilder b = SimulatedLibrary.builder(loop).seed(7).bytes(dir.resolve("tapes")).drives(drives);
        for (String barcode : barcodes) {
            b.cartridge(barcode, MediaType.LTO9, capacity);
        }
        SimulatedLibrary lib = b.build();
        Catalog catalog = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        EngineFixture f = new EngineFixture(dir, loop, lib, wrap.apply(lib), catalog, config, StageSpace.UNLIMITED,
                null);
        f.await(f.scheduler.start());
        return f;
    }

    /**
     * A size-only library built by {@code library}, seen by the scheduler through {@code wrap}, with the policy
     * instance {@code policy} (null: the configuration's).
     */
    static EngineFixture openSizeOnly(Path dir, SchedulerConfig config, Consumer<SimLibraryBuilder> library,
                                      UnaryOperator<TapeLibrary> wrap, MountPolicy policy) throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(START);
        SimLibraryBuilder b = SimulatedLibrary.builder(loop).seed(7).sizeOnly();
        library.accept(b);
        SimulatedLibrary lib = b.build();
        Catalog catalog = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        EngineFixture f = new EngineFixture(dir, loop, lib, wrap.apply(lib), catalog, config, StageSpace.UNLIMITED,
                policy);
        f.await(f.scheduler.start());
        return f;
    }

    /** {@code bytes} false: a size-only library (no data kept, labels not checked). */
    static EngineFixture open(Path dir, SchedulerConfig config, boolean bytes,
                              Consumer<SimLibraryBuilder> library) throws IOException {
        return open(dir, config, bytes, StageSpace.UNLIMITED, library);
    }

    /** With a stage-space hook, on a library of {@code drives} drives and the given cartridges. */
    static EngineFixture open(Path dir, SchedulerConfig config, StageSpace space, int drives, long capacity,
                              String... barcodes) throws IOException {
        return open(dir, config, true, space, b -> {
            b.drives(drives);
            for (String barcode : barcodes) {
                b.cartridge(barcode, MediaType.LTO9, capacity);
            }
        });
    }

    private static EngineFixture open(Path dir, SchedulerConfig config, boolean bytes, StageSpace space,
                                      Consumer<SimLibraryBuilder> library) throws IOException {
        return open(dir, config, bytes, space, library, UnaryOperator.identity());
    }

    /** Like {@link #open(Path, SchedulerConfig, Consumer)}, the scheduler seeing the catalog through {@code wrap}. */
    static EngineFixture openCatalogWrapped(Path dir, SchedulerConfig config, UnaryOperator<Catalog> wrap,
                                            Consumer<SimLibraryBuilder> library) throws IOException {
        return open(dir, config, true, StageSpace.UNLIMITED, library, wrap);
    }

    private static EngineFixture open(Path dir, SchedulerConfig config, boolean bytes, StageSpace space,
                                      Consumer<SimLibraryBuilder> library, UnaryOperator<Catalog> wrap)
            throws IOException {
        Files.createDirectories(dir.resolve("tapes"));
        VirtualEventLoop loop = new VirtualEventLoop(START);
        SimLibraryBuilder b = SimulatedLibrary.builder(loop).seed(7);
        if (bytes) {
            b.bytes(dir.resolve("tapes"));
        } else {
            b.sizeOnly();
        }
        library.accept(b);
        SimulatedLibrary lib = b.build();
        Catalog catalog = wrap.apply(JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db")));
        EngineFixture f = new EngineFixture(dir, loop, lib, catalog, config, space);
        f.await(f.scheduler.start());
        return f;
    }

    /** Like {@link #open}, but every aggregate commit fails (a crash between tape write and commit). */
    static EngineFixture openWithFailingCommits(Path dir, SchedulerConfig config, int drives, long capacity,
                                                String... barcodes) throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(START);
        SimLibraryBuilder b = SimulatedLibrary.builder(loop).seed(7).bytes(dir.resolve("tapes")).drives(drives);
        for (String barcode : barcodes) {
            b.cartridge(barcode, MediaType.LTO9, capacity);
        }
        Catalog catalog = new FailingCommitCatalog(JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db")));
        EngineFixture f = new EngineFixture(dir, loop, b.build(), catalog, config, StageSpace.UNLIMITED);
        f.await(f.scheduler.start());
        return f;
    }

    /**
     * Like {@link #open(Path, SchedulerConfig, int, long, String...)} for a configuration with a timer that never
     * lets the loop go idle (the periodic verification): the loop runs a minute for the start instead of until
     * idle; use {@code loop.runFor} afterwards.
     */
    static EngineFixture openTimed(Path dir, SchedulerConfig config, int drives, long capacity, String... barcodes)
            throws IOException {
        return openTimed(dir, config, b -> {
            b.drives(drives);
            for (String barcode : barcodes) {
                b.cartridge(barcode, MediaType.LTO9, capacity);
            }
        });
    }

    /** As {@link #openTimed(Path, SchedulerConfig, int, long, String...)} on the library {@code library} builds. */
    static EngineFixture openTimed(Path dir, SchedulerConfig config, Consumer<SimLibraryBuilder> library)
            throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(START);
        SimLibraryBuilder b = SimulatedLibrary.builder(loop).seed(7).bytes(dir.resolve("tapes"));
        library.accept(b);
        Catalog catalog = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        EngineFixture f = new EngineFixture(dir, loop, b.build(), catalog, config, StageSpace.UNLIMITED);
        CompletableFuture<Void> started = f.scheduler.start();
        loop.runFor(60_000);
        assertTrue(started.isDone(), "the scheduler did not start within a minute");
        started.join();
        return f;
    }

    static SchedulerConfig.Builder testConfig() {
        return SchedulerConfig.builder().familyRule("atlas:.*", "raw").aggregateBytes(4_000_000)
                .aggregateWaitMillis(60_000)
                .quietMillis(30_000).retryBackoffMillis(10_000);
    }

    <T> T await(CompletableFuture<T> future) {
        loop.runUntilIdle();
        assertTrue(future.isDone(), "operation did not finish");
        return future.join();
    }

    void label(String family, String... barcodes) {
        for (String b : barcodes) {
            await(scheduler.labelCartridge(b, family, false));
        }
    }

    /** Writes a source file of {@code size} seeded random bytes. */
    Path source(String name, long size, long seed) throws IOException {
        Path p = dir.resolve("src").resolve(name);
        Files.createDirectories(p.getParent());
        byte[] data = new byte[(int) size];
        new Random(seed).nextBytes(data);
        Files.write(p, data);
        return p;
    }

    static String pnfsid(int i) {
        return String.format("0000%020X", i);
    }

    /**
     * Flushes {@code count} files of about 900 kB (about four per aggregate), numbered from {@code first}, datasets
     * ds0/ds1 alternating, to the family of {@code storageClass}; runs the loop until idle and asserts each flushed.
     */
    List<FlushRequest> flushAll(int first, int count, String storageClass) throws IOException {
        List<FlushRequest> flushes = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            flushes.add(flushRequest(i, 900_000 + i, "ds" + (i % 2), storageClass));
        }
        flushes.forEach(scheduler::flush);
        loop.runUntilIdle();
        for (FlushRequest r : flushes) {
            assertInstanceOf(Outcome.Flushed.class, outcome(r), r.pnfsid());
        }
        return flushes;
    }

    FlushRequest flushRequest(int i, long size, String dataset, String storageClass) throws IOException {
        Path src = source(pnfsid(i), size, i);
        return new FlushRequest(nextId++, pnfsid(i), size, storageClass, "/data/" + dataset + "/f" + i, null,
                "atlas", 0, 0, null, src);
    }

    StageRequest stageRequest(int i, Path target) {
        return new StageRequest(nextId++, pnfsid(i), -1, "atlas:raw@osm", "/f" + i, "atlas", null, 0, 0, target);
    }

    /** A size-only flush (no source file). */
    FlushRequest sizedFlush(int i, long size, String dataset, String group) {
        return new FlushRequest(nextId++, pnfsid(i), size, group + ":raw@osm", "/data/" + dataset + "/f" + i, null,
                group, 0, 0, null, null);
    }

    /** A size-only stage (nothing delivered). */
    StageRequest sizedStage(int i, String group, int priority, long deadline) {
        return new StageRequest(nextId++, pnfsid(i), -1, group + ":raw@osm", "/f" + i, group, null, priority,
                deadline, null);
    }

    StageRequest stageRequest(int i, String group, int priority) {
        return new StageRequest(nextId++, pnfsid(i), -1, "sc", "/f" + i, group, null, priority, 0,
                dir.resolve("staged").resolve(pnfsid(i)));
    }

    /** Stages every file from wherever the catalog has it now and compares it with the bytes flushed. */
    void stageAllByteIdentical(List<Integer> ids) throws IOException {
        Map<Integer, StageRequest> stages = new LinkedHashMap<>();
        for (int i : ids) {
            StageRequest s = stageRequest(i, dir.resolve("staged").resolve(pnfsid(i)));
            Files.createDirectories(s.target().getParent());
            stages.put(i, s);
            scheduler.stage(s);
        }
        loop.runUntilIdle();
        for (var e : stages.entrySet()) {
            assertInstanceOf(Outcome.Staged.class, outcome(e.getValue()), pnfsid(e.getKey()));
            assertArrayEquals(Files.readAllBytes(dir.resolve("src").resolve(pnfsid(e.getKey()))),
                    Files.readAllBytes(e.getValue().target()), pnfsid(e.getKey()));
        }
    }

    Outcome outcome(TapeRequest r) {
        return outcomes.get(r.id());
    }

    /** The status as it is now, without running the loop. */
    SchedulerStatus peekStatus() {
        return StatusBuilder.build(scheduler.engineForTests(), new WorkHold(), 0, 1000);
    }

    SchedulerStatus status() {
        return await(scheduler.status(1000));
    }

    @Override
    public void close() {
        library.close();
        catalog.close();
    }
}
