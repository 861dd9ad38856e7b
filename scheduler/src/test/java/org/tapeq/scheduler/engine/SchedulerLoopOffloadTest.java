package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;

/**
 * In real time the engine hands its catalog calls to the catalog writer and its disk work to the I/O pool
 * through an {@link IoGate}: neither runs on the loop, and the outcomes keep their guarantees.
 */
class SchedulerLoopOffloadTest {

    private static final int FILES = 24;

    @TempDir
    Path dir;

    /** A one-thread pool with room for two queued tasks that runs refused work on the caller, as the old pool. */
    private static ThreadPoolExecutor tinyCallerRunsPool() {
        return new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(2),
                new ThreadPoolExecutor.CallerRunsPolicy());
    }

    private Scheduler scheduler(RealTimeEventLoop loop, SimulatedLibrary library, Catalog catalog, Executor io,
                                Map<Long, Outcome> outcomes, CountDownLatch done, Map<Long, Boolean> inCatalog) {
        return Scheduler.builder().loop(loop).library(library).catalog(catalog).io(io).catalogCapacity(2)
                .config(SchedulerConfig.builder().aggregateFiles(1).aggregateWaitMillis(30_000).quietMillis(10_000)
                        .build())
                .listener((r, o) -> {
                    assertTrue(loop.inLoop(), "outcomes arrive on the loop");
                    if (o instanceof Outcome.Flushed f) {
                        inCatalog.put(r.id(), catalog.file(f.location().pnfsid()).isPresent());
                    }
                    outcomes.put(r.id(), o);
                    done.countDown();
                }).build();
    }

    private void flushAll(Scheduler scheduler) throws Exception {
        Random rnd = new Random(5);
        for (int i = 0; i < FILES; i++) {
            byte[] data = new byte[1 + rnd.nextInt(50_000)];
            rnd.nextBytes(data);
            Path p = Files.write(dir.resolve("f" + i), data);
            scheduler.flush(new FlushRequest(i, EngineFixture.pnfsid(i), data.length, "raw", "/d/f" + i, null,
                    "atlas", 0, 0, null, p));
        }
    }

    @Test
    void flush_ioPoolFull_nothingRunsOnTheLoopAndEveryAggregateIsWrittenAfterItsCommit() throws Exception {
        ThreadPoolExecutor pool = tinyCallerRunsPool();
        AtomicInteger onLoop = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        try (RealTimeEventLoop loop = new RealTimeEventLoop("tapeq-test-loop", 5000);
             SimulatedLibrary library = SimulatedLibrary.builder(loop).bytes(dir.resolve("tapes")).drives(2)
                     .cartridge("A00001L9", MediaType.LTO9, 1_000_000_000L).build();
             JdbcCatalog catalog = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
            // Every task the engine hands out notes whether it runs on the loop (the old pool's CallerRuns would).
            Executor recording = task -> pool.execute(() -> {
                if (loop.inLoop()) {
                    onLoop.incrementAndGet();
                }
                ran.incrementAndGet();
                task.run();
            });
            IoGate io = new IoGate(loop, recording, 2); // the room in the pool's queue
            Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
            Map<Long, Boolean> inCatalog = new ConcurrentHashMap<>();
            CountDownLatch flushed = new CountDownLatch(FILES);
            Scheduler scheduler = scheduler(loop, library, catalog, io, outcomes, flushed, inCatalog);
            scheduler.start().get(30, TimeUnit.SECONDS);
            scheduler.labelCartridge("A00001L9", "raw", false).get(30, TimeUnit.SECONDS);
            flushAll(scheduler);
            assertTrue(flushed.await(60, TimeUnit.SECONDS), "flushes done");
            for (long i = 0; i < FILES; i++) {
                assertInstanceOf(Outcome.Flushed.class, outcomes.get(i));
                assertEquals(Boolean.TRUE, inCatalog.get(i), "a flush is reported only after its commit: " + i);
            }
            assertEquals(FILES, scheduler.status(0).get(10, TimeUnit.SECONDS).counters().get("aggregates_written"));
            assertTrue(ran.get() >= FILES, "every aggregate was prepared on the pool: " + ran.get());
            assertEquals(0, onLoop.get(), "no I/O task ran on the loop");
            assertEquals(0, io.backlog());
            assertEquals(0, scheduler.catalogQueueDepth());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void flush_commitFailsOnTheWriter_membersFailWithCatalogFault() throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(100));
        try (RealTimeEventLoop loop = new RealTimeEventLoop("tapeq-test-loop", 5000);
             SimulatedLibrary library = SimulatedLibrary.builder(loop).bytes(dir.resolve("tapes")).drives(1)
                     .cartridge("A00001L9", MediaType.LTO9, 1_000_000_000L).build();
             JdbcCatalog jdbc = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
            Catalog catalog = new FailingCommitCatalog(jdbc);
            Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
            CountDownLatch ended = new CountDownLatch(FILES);
            Scheduler scheduler = scheduler(loop, library, catalog, new IoGate(loop, pool, 100), outcomes, ended,
                    new ConcurrentHashMap<>());
            scheduler.start().get(30, TimeUnit.SECONDS);
            scheduler.labelCartridge("A00001L9", "raw", false).get(30, TimeUnit.SECONDS);
            flushAll(scheduler);
            assertTrue(ended.await(60, TimeUnit.SECONDS), "flushes ended");
            for (long i = 0; i < FILES; i++) {
                Outcome.Failed f = assertInstanceOf(Outcome.Failed.class, outcomes.get(i));
                assertEquals(FaultKind.CATALOG, f.kind(), f.toString());
            }
            assertTrue(jdbc.files("A00001L9").isEmpty(), "nothing committed");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void disableCartridge_slowCatalogWrite_completesOnlyOnceTheCatalogShowsIt() throws Exception {
        try (RealTimeEventLoop loop = new RealTimeEventLoop("tapeq-test-loop", 5000);
             SimulatedLibrary library = SimulatedLibrary.builder(loop).sizeOnly(dir.resolve("tapes")).drives(1)
                     .cartridge("A00001L9", MediaType.LTO9, 1_000_000_000L).build();
             JdbcCatalog jdbc = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
            // Every putCartridge takes a while on the writer's thread, as a busy catalog would.
            Catalog slow = (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(),
                    new Class<?>[] {Catalog.class}, (proxy, method, args) -> {
                        if (method.getName().equals("putCartridge")) {
                            Thread.sleep(300);
                        }
                        try {
                            return method.invoke(jdbc, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            Scheduler scheduler = Scheduler.builder().loop(loop).library(library).catalog(slow)
                    .listener((r, o) -> { }).build();
            scheduler.start().get(30, TimeUnit.SECONDS);
            scheduler.disableCartridge("A00001L9", "test").get(30, TimeUnit.SECONDS);
            assertTrue(jdbc.cartridge("A00001L9").orElseThrow().disabled(), "the catalog has it when the call ends");
            scheduler.enableCartridge("A00001L9").get(30, TimeUnit.SECONDS);
            assertTrue(!jdbc.cartridge("A00001L9").orElseThrow().disabled());
        }
    }
}
