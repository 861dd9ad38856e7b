package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;

/**
 * The same engine on a real-time loop (sped up 5000 times), with requests from other threads and the
 * source checks on an I/O executor: the daemon's configuration.
 */
class SchedulerRealTimeTest {

    @TempDir
    Path dir;

    @Test
    void flushAndStage_scaledRealTime_fromOtherThreads() throws Exception {
        ExecutorService io = Executors.newFixedThreadPool(2);
        try (RealTimeEventLoop loop = new RealTimeEventLoop("tapeq-test-loop", 5000);
             SimulatedLibrary library = SimulatedLibrary.builder(loop).bytes(dir.resolve("tapes")).drives(2)
                     .cartridge("A00001L9", MediaType.LTO9, 1_000_000_000L).build();
             JdbcCatalog catalog = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
            Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
            CountDownLatch flushed = new CountDownLatch(20);
            CountDownLatch staged = new CountDownLatch(20);
            Scheduler scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog).io(io)
                    .config(SchedulerConfig.builder().aggregateBytes(500_000).aggregateWaitMillis(30_000)
                            .quietMillis(10_000).build())
                    .listener((r, o) -> {
                        assertTrue(loop.inLoop(), "outcomes arrive on the loop");
                        outcomes.put(r.id(), o);
                        (r.id() < 100 ? flushed : staged).countDown();
                    }).build();
            scheduler.start().get(30, TimeUnit.SECONDS);
            scheduler.labelCartridge("A00001L9", "raw", false).get(30, TimeUnit.SECONDS);
            Random rnd = new Random(3);
            List<Path> sources = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                byte[] data = new byte[1 + rnd.nextInt(100_000)];
                rnd.nextBytes(data);
                Path p = Files.write(dir.resolve("f" + i), data);
                sources.add(p);
                scheduler.flush(new FlushRequest(i, EngineFixture.pnfsid(i), data.length, "raw", "/d/f" + i, null,
                        "atlas", 0, 0, null, p));
            }
            assertTrue(flushed.await(60, TimeUnit.SECONDS), "flushes done");
            for (int i = 0; i < 20; i++) {
                assertInstanceOf(Outcome.Flushed.class, outcomes.get((long) i));
            }
            Thread[] threads = new Thread[4];
            for (int t = 0; t < threads.length; t++) {
                int first = t;
                threads[t] = new Thread(() -> {
                    for (int i = first; i < 20; i += 4) {
                        scheduler.stage(new StageRequest(100 + i, EngineFixture.pnfsid(i), -1, "raw", null, "atlas",
                                null, 0, 0, dir.resolve("staged-" + i)));
                    }
                });
                threads[t].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(staged.await(60, TimeUnit.SECONDS), "stages done");
            for (int i = 0; i < 20; i++) {
                assertInstanceOf(Outcome.Staged.class, outcomes.get(100L + i));
                assertArrayEquals(Files.readAllBytes(sources.get(i)), Files.readAllBytes(dir.resolve("staged-" + i)));
            }
            SchedulerStatus status = scheduler.status(10).get(10, TimeUnit.SECONDS);
            assertEquals(20L, status.counters().get("stages_done"));
        } finally {
            io.shutdownNow();
        }
    }
}
