package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.testing.postgres.CuttableProxy;
import org.tapeq.testing.postgres.TestSchema;
import org.tapeq.testing.support.Poll;

/**
 * A PostgreSQL outage in the middle of a campaign, on the daemon's configuration (real-time loop, catalog writer
 * thread): the catalog's connection goes through a proxy the test cuts (every connection closed, new ones
 * refused, as during a server restart) and restores. While it is cut no tape file is written and no flush is
 * answered; after it is restored every flush and stage completes by itself, each flush recorded in the catalog
 * before it was acknowledged, and every tape file written is in the catalog (no dead space). Uses the local
 * server ({@link TestSchema}); skipped if none answers.
 */
class SchedulerCatalogOutageTest {

    private static final String BARCODE = "A00001L9";
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private TestSchema schema;

    @BeforeEach
    void schema() {
        schema = TestSchema.create().orElse(null);
        assumeTrue(schema != null, "PostgreSQL not reachable");
    }

    @AfterEach
    void drop() throws SQLException {
        if (schema != null) {
            schema.close();
        }
    }

    @Test
    void catalogCutMidCampaign_nothingWrittenWhileDown_everythingCompletesAfter() throws Exception {
        ExecutorService io = Executors.newFixedThreadPool(2);
        try (CuttableProxy proxy = new CuttableProxy(schema.host(), schema.port());
             RealTimeEventLoop loop = new RealTimeEventLoop("tapeq-test-loop", 5000);
             SimulatedLibrary library = SimulatedLibrary.builder(loop).bytes(dir.resolve("tapes")).drives(1)
                     .cartridge(BARCODE, MediaType.LTO9, 1_000_000_000L).build();
             JdbcCatalog catalog = JdbcCatalog.open(schema.urlVia(proxy.port()))) {
            Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
            Scheduler scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog).io(io)
                    .config(SchedulerConfig.builder().aggregateBytes(300_000).aggregateWaitMillis(30_000)
                            .quietMillis(10_000).build())
                    .listener((r, o) -> outcomes.put(r.id(), o)).build();
            scheduler.start().get(30, TimeUnit.SECONDS);
            scheduler.labelCartridge(BARCODE, "raw", false).get(30, TimeUnit.SECONDS);

            List<byte[]> data = new ArrayList<>();
            Random rnd = new Random(7);
            for (int i = 0; i < 20; i++) {
                byte[] bytes = new byte[1 + rnd.nextInt(100_000)];
                rnd.nextBytes(bytes);
                data.add(bytes);
            }
            flush(scheduler, data, 0, 10);
            await(() -> countAnswered(outcomes, 0, 10) == 10, "the first ten flushes");
            long appendsBefore = library.stats().appends();

            proxy.cut();
            flush(scheduler, data, 10, 20);
            await(() -> drivesActivity(scheduler).contains("checking the catalog answers"),
                    "the next write to wait for the catalog");
            await(() -> !scheduler.catalogReachable(), "the engine to see the catalog unreachable");
            // A stage asked while the catalog is cut: its lookup waits for the catalog instead of failing.
            scheduler.stage(new StageRequest(100, EngineFixture.pnfsid(3), -1, "raw", null, "atlas", null, 0, 0,
                    dir.resolve("staged-3")));
            assertTrue(scheduler.catalogUnreachableSince() > 0);
            assertTrue(scheduler.catalogUnreachableReason().contains("unreachable"),
                    scheduler.catalogUnreachableReason());
            assertEquals(appendsBefore, library.stats().appends(), "no tape file written while the catalog is cut");
            for (long id = 10; id < 20; id++) {
                assertNull(outcomes.get(id), "flush " + id + " answered while the catalog is cut");
            }
            assertNull(outcomes.get(100L), "stage answered while its lookup could not run");

            proxy.restore();
            await(() -> countAnswered(outcomes, 10, 20) == 10 && outcomes.containsKey(100L),
                    "every flush and the stage after the catalog is back");
            await(scheduler::catalogReachable, "the engine to see the catalog reachable");
            assertNull(scheduler.catalogUnreachableReason());
            for (long id = 0; id < 20; id++) {
                Outcome.Flushed f = assertInstanceOf(Outcome.Flushed.class, outcomes.get(id), "flush " + id);
                assertEquals(f.location(), catalog.file(EngineFixture.pnfsid((int) id)).orElseThrow(),
                        "flush " + id + " acknowledged with its catalog record");
            }
            assertInstanceOf(Outcome.Staged.class, outcomes.get(100L));
            assertArrayEquals(data.get(3), Files.readAllBytes(dir.resolve("staged-3")));
            assertEquals(library.stats().appends(), catalog.aggregates(BARCODE).size(),
                    "every tape file written is in the catalog");
            assertFalse(outcomes.values().stream().anyMatch(o -> o instanceof Outcome.Failed), outcomes.toString());
        } finally {
            io.shutdownNow();
        }
    }

    @Test
    void verificationRecordWaitsForTheCatalog_driveIsFreeMeanwhile_recallOfAnotherCartridgeServed() throws Exception {
        String other = "A00002L9";
        ExecutorService io = Executors.newFixedThreadPool(2);
        try (CuttableProxy proxy = new CuttableProxy(schema.host(), schema.port());
             RealTimeEventLoop loop = new RealTimeEventLoop("tapeq-test-loop", 5000);
             SimulatedLibrary library = SimulatedLibrary.builder(loop).bytes(dir.resolve("tapes")).drives(1)
                     .cartridge(BARCODE, MediaType.LTO9, 1_000_000_000L)
                     .cartridge(other, MediaType.LTO9, 1_000_000_000L).build();
             JdbcCatalog catalog = JdbcCatalog.open(schema.urlVia(proxy.port()))) {
            Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
            Scheduler scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog).io(io)
                    .config(SchedulerConfig.builder().aggregateBytes(300_000).aggregateWaitMillis(30_000)
                            .quietMillis(10_000).remountGuardMillis(0).familyRule("cms:.*", "other").build())
                    .listener((r, o) -> outcomes.put(r.id(), o)).build();
            scheduler.start().get(30, TimeUnit.SECONDS);
            scheduler.labelCartridge(BARCODE, "raw", false).get(30, TimeUnit.SECONDS);
            scheduler.labelCartridge(other, "other", false).get(30, TimeUnit.SECONDS);
            List<byte[]> data = new ArrayList<>();
            Random rnd = new Random(7);
            for (int i = 0; i < 4; i++) {
                byte[] bytes = new byte[50_000];
                rnd.nextBytes(bytes);
                data.add(bytes);
            }
            flush(scheduler, data, 0, 3); // one aggregate on BARCODE
            Path last = Files.write(dir.resolve("f3"), data.get(3));
            scheduler.flush(new FlushRequest(3, EngineFixture.pnfsid(3), data.get(3).length, "cms:x", "/d/f3", null,
                    "cms", 0, 0, null, last));
            await(() -> countAnswered(outcomes, 0, 4) == 4, "the flushes");
            assertEquals(other, catalog.file(EngineFixture.pnfsid(3)).orElseThrow().cartridge());

            // the one aggregate of the verification is read slowly: seconds of real time
            library.faults().slowDrive("drive0", 1e-8);
            scheduler.verifyCartridge(BARCODE, 0).get(30, TimeUnit.SECONDS);
            await(() -> verifyState(scheduler).equals("running"), "the verification to run");
            scheduler.stage(new StageRequest(100, EngineFixture.pnfsid(3), -1, "cms:x", null, "cms", null, 0, 0,
                    dir.resolve("staged-3")));
            await(() -> queueNames(scheduler).contains(other), "the recall's lookup");
            proxy.cut();
            library.faults().restoreDrive("drive0"); // the read under way keeps its pace

            await(() -> outcomes.containsKey(100L), "the recall of " + other + " while the catalog is cut");
            assertInstanceOf(Outcome.Staged.class, outcomes.get(100L));
            assertEquals("recording", verifyState(scheduler));

            proxy.restore();
            await(() -> verifyState(scheduler).equals("done"), "the verification to be recorded");
            assertTrue(catalog.lastVerification(BARCODE).orElseThrow().good());
        } finally {
            io.shutdownNow();
        }
    }

    @Test
    void verifyCartridge_catalogKnownUnreachable_refusedAtOnceThenAcceptedOnceBack() throws Exception {
        ExecutorService io = Executors.newFixedThreadPool(2);
        try (CuttableProxy proxy = new CuttableProxy(schema.host(), schema.port());
             RealTimeEventLoop loop = new RealTimeEventLoop("tapeq-test-loop", 5000);
             SimulatedLibrary library = SimulatedLibrary.builder(loop).bytes(dir.resolve("tapes")).drives(1)
                     .cartridge(BARCODE, MediaType.LTO9, 1_000_000_000L).build();
             JdbcCatalog catalog = JdbcCatalog.open(schema.urlVia(proxy.port()))) {
            Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
            Scheduler scheduler = Scheduler.builder().loop(loop).library(library).catalog(catalog).io(io)
                    .config(SchedulerConfig.builder().aggregateBytes(300_000).aggregateWaitMillis(30_000)
                            .quietMillis(10_000).build())
                    .listener((r, o) -> outcomes.put(r.id(), o)).build();
            scheduler.start().get(30, TimeUnit.SECONDS);
            scheduler.labelCartridge(BARCODE, "raw", false).get(30, TimeUnit.SECONDS);
            List<byte[]> data = new ArrayList<>();
            Random rnd = new Random(7);
            for (int i = 0; i < 2; i++) {
                byte[] bytes = new byte[50_000];
                rnd.nextBytes(bytes);
                data.add(bytes);
            }
            flush(scheduler, data, 0, 1);
            await(() -> outcomes.containsKey(0L), "the first flush");

            proxy.cut();
            flush(scheduler, data, 1, 2);
            await(() -> !scheduler.catalogReachable(), "the engine to see the catalog unreachable");
            java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class,
                    () -> scheduler.verifyCartridge(BARCODE, 0).get(10, TimeUnit.SECONDS));
            assertTrue(refused.getCause().getMessage().contains("unreachable"), refused.getMessage());

            proxy.restore();
            await(scheduler::catalogReachable, "the engine to see the catalog reachable");
            assertEquals("queued", scheduler.verifyCartridge(BARCODE, 0).get(30, TimeUnit.SECONDS).state());
        } finally {
            io.shutdownNow();
        }
    }

    private static String verifyState(Scheduler scheduler) {
        try {
            return scheduler.status(10).get(10, TimeUnit.SECONDS).verifications().get(0).state();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static String queueNames(Scheduler scheduler) {
        try {
            StringBuilder b = new StringBuilder();
            scheduler.status(10).get(10, TimeUnit.SECONDS).queues().forEach(q -> b.append(q.name()).append('\n'));
            return b.toString();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private void flush(Scheduler scheduler, List<byte[]> data, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            Path p = Files.write(dir.resolve("f" + i), data.get(i));
            scheduler.flush(new FlushRequest(i, EngineFixture.pnfsid(i), data.get(i).length, "raw", "/d/f" + i, null,
                    "atlas", 0, 0, null, p));
        }
    }

    private static long countAnswered(Map<Long, Outcome> outcomes, long from, long to) {
        return outcomes.entrySet().stream().filter(e -> e.getKey() >= from && e.getKey() < to).count();
    }

    private static String drivesActivity(Scheduler scheduler) {
        try {
            StringBuilder b = new StringBuilder();
            scheduler.status(10).get(10, TimeUnit.SECONDS).drives().forEach(d -> b.append(d.activity()).append('\n'));
            return b.toString();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Waits for an observable condition, polling; fails after {@link #WAIT}. */
    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Poll.until(what, WAIT, condition::getAsBoolean);
    }
}
