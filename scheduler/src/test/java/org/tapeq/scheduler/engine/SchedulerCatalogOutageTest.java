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
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.testing.postgres.TestSchema;
import org.tapeq.testing.support.Poll;

/**
 * A PostgreSQL outage in the middle of a campaign, on the daemon's configuration (real-time loop, catalog writer
 * thread; {@link CatalogOutageRig}): the catalog's connection goes through a proxy the test cuts (every connection
 * closed, new ones refused, as during a server restart) and restores. While it is cut no tape file is written and no flush is
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
        try (CatalogOutageRig rig = CatalogOutageRig.start(schema, dir.resolve("tapes"), c -> c, BARCODE)) {
            Scheduler scheduler = rig.scheduler;
            Map<Long, Outcome> outcomes = rig.outcomes;
            rig.label(BARCODE, "raw");

            List<byte[]> data = new ArrayList<>();
            Random rnd = new Random(7);
            for (int i = 0; i < 20; i++) {
                byte[] bytes = new byte[1 + rnd.nextInt(100_000)];
                rnd.nextBytes(bytes);
                data.add(bytes);
            }
            flush(scheduler, data, 0, 10);
            Poll.until("the first ten flushes", WAIT, () -> rig.answered(0, 10) == 10);
            long appendsBefore = rig.library.stats().appends();

            rig.proxy.cut();
            flush(scheduler, data, 10, 20);
            Poll.until("the next write to wait for the catalog", WAIT,
                    () -> drivesActivity(scheduler).contains("checking the catalog answers"));
            Poll.until("the engine to see the catalog unreachable", WAIT, () -> !scheduler.catalogReachable());
            // A stage asked while the catalog is cut: its lookup waits for the catalog instead of failing.
            scheduler.stage(new StageRequest(100, EngineFixture.pnfsid(3), -1, "raw", null, "atlas", null, 0, 0,
                    dir.resolve("staged-3")));
            assertTrue(scheduler.catalogUnreachableSince() > 0);
            assertTrue(scheduler.catalogUnreachableReason().contains("unreachable"),
                    scheduler.catalogUnreachableReason());
            assertEquals(appendsBefore, rig.library.stats().appends(), "no tape file written while the catalog is cut");
            for (long id = 10; id < 20; id++) {
                assertNull(outcomes.get(id), "flush " + id + " answered while the catalog is cut");
            }
            assertNull(outcomes.get(100L), "stage answered while its lookup could not run");

            rig.proxy.restore();
            Poll.until("every flush and the stage after the catalog is back", WAIT,
                    () -> rig.answered(10, 20) == 10 && outcomes.containsKey(100L));
            Poll.until("the engine to see the catalog reachable", WAIT, scheduler::catalogReachable);
            assertNull(scheduler.catalogUnreachableReason());
            for (long id = 0; id < 20; id++) {
                Outcome.Flushed f = assertInstanceOf(Outcome.Flushed.class, outcomes.get(id), "flush " + id);
                assertEquals(f.location(), rig.catalog.file(EngineFixture.pnfsid((int) id)).orElseThrow(),
                        "flush " + id + " acknowledged with its catalog record");
            }
            assertInstanceOf(Outcome.Staged.class, outcomes.get(100L));
            assertArrayEquals(data.get(3), Files.readAllBytes(dir.resolve("staged-3")));
            assertEquals(rig.library.stats().appends(), rig.catalog.aggregates(BARCODE).size(),
                    "every tape file written is in the catalog");
            assertFalse(outcomes.values().stream().anyMatch(o -> o instanceof Outcome.Failed), outcomes.toString());
        }
    }

    @Test
    void verificationRecordWaitsForTheCatalog_driveIsFreeMeanwhile_recallOfAnotherCartridgeServed() throws Exception {
        String other = "A00002L9";
        try (CatalogOutageRig rig = CatalogOutageRig.start(schema, dir.resolve("tapes"),
                c -> c.remountGuardMillis(0).familyRule("cms:.*", "other"), BARCODE, other)) {
            Scheduler scheduler = rig.scheduler;
            Map<Long, Outcome> outcomes = rig.outcomes;
            rig.label(BARCODE, "raw");
            rig.label(other, "other");
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
            Poll.until("the flushes", WAIT, () -> rig.answered(0, 4) == 4);
            assertEquals(other, rig.catalog.file(EngineFixture.pnfsid(3)).orElseThrow().cartridge());

            // the one aggregate of the verification is read slowly: seconds of real time
            rig.library.faults().slowDrive("drive0", 1e-8);
            scheduler.verifyCartridge(BARCODE, 0).get(30, TimeUnit.SECONDS);
            Poll.until("the verification to run", WAIT, () -> verifyState(scheduler).equals("running"));
            scheduler.stage(new StageRequest(100, EngineFixture.pnfsid(3), -1, "cms:x", null, "cms", null, 0, 0,
                    dir.resolve("staged-3")));
            Poll.until("the recall's lookup", WAIT, () -> queueNames(scheduler).contains(other));
            rig.proxy.cut();
            rig.library.faults().restoreDrive("drive0"); // the read under way keeps its pace

            Poll.until("the recall of " + other + " while the catalog is cut", WAIT, () -> outcomes.containsKey(100L));
            assertInstanceOf(Outcome.Staged.class, outcomes.get(100L));
            assertEquals("recording", verifyState(scheduler));

            rig.proxy.restore();
            Poll.until("the verification to be recorded", WAIT, () -> verifyState(scheduler).equals("done"));
            assertTrue(rig.catalog.lastVerification(BARCODE).orElseThrow().good());
        }
    }

    @Test
    void verifyCartridge_catalogKnownUnreachable_refusedAtOnceThenAcceptedOnceBack() throws Exception {
        try (CatalogOutageRig rig = CatalogOutageRig.start(schema, dir.resolve("tapes"), c -> c, BARCODE)) {
            Scheduler scheduler = rig.scheduler;
            Map<Long, Outcome> outcomes = rig.outcomes;
            rig.label(BARCODE, "raw");
            List<byte[]> data = new ArrayList<>();
            Random rnd = new Random(7);
            for (int i = 0; i < 2; i++) {
                byte[] bytes = new byte[50_000];
                rnd.nextBytes(bytes);
                data.add(bytes);
            }
            flush(scheduler, data, 0, 1);
            Poll.until("the first flush", WAIT, () -> outcomes.containsKey(0L));

            rig.proxy.cut();
            flush(scheduler, data, 1, 2);
            Poll.until("the engine to see the catalog unreachable", WAIT, () -> !scheduler.catalogReachable());
            java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class,
                    () -> scheduler.verifyCartridge(BARCODE, 0).get(10, TimeUnit.SECONDS));
            assertTrue(refused.getCause().getMessage().contains("unreachable"), refused.getMessage());

            rig.proxy.restore();
            Poll.until("the engine to see the catalog reachable", WAIT, scheduler::catalogReachable);
            assertEquals("queued", scheduler.verifyCartridge(BARCODE, 0).get(30, TimeUnit.SECONDS).state());
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

    private static String drivesActivity(Scheduler scheduler) {
        try {
            StringBuilder b = new StringBuilder();
            scheduler.status(10).get(10, TimeUnit.SECONDS).drives().forEach(d -> b.append(d.activity()).append('\n'));
            return b.toString();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

}
