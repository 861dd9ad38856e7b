package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.testing.support.Poll;
import org.tapeq.scheduler.catalog.SiteLease;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.testing.postgres.TestSchema;

/**
 * Two daemon processes of one site on the local PostgreSQL catalog ({@link TestSchema}; skipped if none answers),
 * sharing the request directory, the pool and the simulated library, each with its own state directory, both
 * configured {@code catalog.standby: true}. Daemon A takes the lease; B waits as a standby (503 on {@code
 * /ready}, its status and metric say so, it opens neither the library nor the directory). A flushes half the
 * files; then stages of those and flushes of the other half are submitted and A is killed with SIGKILL in the
 * middle. B takes the site over (epoch 2) within {@code catalog.leaseTimeout} plus a margin, starts its engine,
 * which rebuilds from the request directory and the catalog, and completes every request exactly once (the pool
 * emulator records a second completion as a violation). A, started again, becomes a standby of B and disturbs
 * nothing: every file is then staged back through B and compared byte for byte, and the catalog holds each file
 * once with its size and checksum. Only the lease holder opens the simulated library: its state is one
 * directory of files that two processes must not share (the corruption the issue reports), and the library
 * locks it ({@code library.lock}), so a standby that opened it while A runs would fail to start; the logs also
 * show no library start on a standby.
 */
@Tag("slow")
class FailoverTest {

    private static final String SITE = "failover-it";
    private static final long LEASE_TIMEOUT_MILLIS = 6_000;
    /** Start of a JVM, the standby's poll (a sixth of the lease) and a loaded 2-core machine. */
    private static final long TAKEOVER_MARGIN_MILLIS = 15_000;
    private static final int FILES = 60;
    private static final long PHASE_SECONDS = 180;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    private TestSchema schema;
    private final List<AutoCloseable> open = new ArrayList<>();
    private long t0;

    @BeforeEach
    void schema() {
        schema = TestSchema.create().orElse(null);
        assumeTrue(schema != null, "PostgreSQL not reachable");
    }

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (schema != null) {
            schema.close();
        }
    }

    private Site host(String name, int httpPort) throws IOException {
        return SiteCampaign.host(tmp, name, schema.url(), SITE, LEASE_TIMEOUT_MILLIS).speed(100)
                .http("127.0.0.1:" + httpPort);
    }

    @Test
    void activeKilledMidCampaign_standbyTakesOver_completesEveryRequestOnce_oldActiveReturnsAsStandby()
            throws Exception {
        t0 = System.nanoTime();
        Random random = new Random(15);
        int portA = Net.freePort();
        int portB = Net.freePort();
        Site siteA = host("a", portA);
        Site siteB = host("b", portB);
        // A in a pid namespace of its own where possible, as on another host: B cannot see that it died and
        // waits its lease out (else, on one host, a dead holder's lease is taken at once).
        boolean elsewhere = DaemonProcess.pidNamespacesAvailable();
        DaemonProcess a = elsewhere ? new DaemonProcess(siteA).ownPidNamespace() : new DaemonProcess(siteA);
        open.add(a);
        note(elsewhere ? "A runs in a pid namespace of its own" : "no pid namespaces here: A and B share one, so "
                + "the takeover is the dead holder of this host's, not the lapse");
        DaemonProcess b = new DaemonProcess(siteB);
        open.add(b);
        SiteCampaign campaign = new SiteCampaign(random, FILES, PHASE_SECONDS);

        // ---- A active, B standby
        a.start();
        a.awaitStatus(Duration.ofSeconds(60));
        assertEquals("active", a.control("status", List.of()).path("site").path("role").asText());
        a.labelAll();
        b.start();
        SiteLease leaseA = leaseRow();
        String heldByA = "standby, lease held by " + leaseA.host() + " pid " + leaseA.pid() + " (epoch 1)";
        JsonNode standby = SiteCampaign.awaitStandby(b, heldByA);
        assertEquals(heldByA, standby.path("site").path("waiting").asText());
        assertEquals("standby", standby.path("site").path("role").asText());
        assertTrue(standby.path("scheduler").isNull() || standby.path("scheduler").isMissingNode(),
                "a standby runs no scheduler: " + standby.path("scheduler"));
        assertEquals(0, standby.path("directories").size(), "a standby serves no directory");
        HttpResponse<String> ready = Net.get(portB, "/ready");
        assertEquals(503, ready.statusCode());
        assertEquals("not ready: " + heldByA + "\n", ready.body());
        assertTrue(Net.get(portB, "/metrics").body().contains("tapeq_site_standby 1.0"));
        assertEquals(200, Net.get(portA, "/ready").statusCode());
        assertTrue(Net.get(portA, "/metrics").body().contains("tapeq_site_standby 0.0"));

        try (Pool pool = Pool.start(siteA)) {
            // ---- A flushes the first half
            campaign.flushFirstHalf(pool);
            note("first " + campaign.first.size() + " flushes answered by A");

            // ---- stages of the first half and flushes of the second, in batches; A is killed in the middle
            campaign.submitAll(pool);
            int total = campaign.requests.size();
            Poll.until("A has answered a sixth of the campaign", Duration.ofSeconds(PHASE_SECONDS),
                    () -> campaign.answered() >= total / 6);
            long aPid = a.pid();
            int answeredByA = campaign.answered();
            a.kill();
            long killed = System.nanoTime();
            note("SIGKILL A (pid " + aPid + ") with " + answeredByA + "/" + total + " answered");
            assertTrue(answeredByA < total, "the kill came too late to meet work in progress");

            // ---- B takes the site over within the lease timeout and a margin
            JsonNode active = Poll.value("B holds the site", Duration.ofMillis(LEASE_TIMEOUT_MILLIS
                    + TAKEOVER_MARGIN_MILLIS), () -> {
                JsonNode s = b.control("status", List.of());
                return s != null && s.path("site").path("epoch").asLong() > 0 ? s : null;
            });
            long takeover = (System.nanoTime() - killed) / 1_000_000;
            note("B took the site over " + takeover + " ms after the kill (lease timeout " + LEASE_TIMEOUT_MILLIS
                    + " ms)");
            assertEquals(2, active.path("site").path("epoch").asLong());
            if (elsewhere) {
                // A renewed at most a third of the timeout before the kill: its lease was waited out
                assertTrue(takeover >= LEASE_TIMEOUT_MILLIS * 2 / 3 - 1_000, "taken over after " + takeover
                        + " ms: before A's lease lapsed");
            }
            b.awaitStatus(Duration.ofSeconds(60));
            Poll.until("B is ready", Duration.ofSeconds(60), () -> Net.get(portB, "/ready").statusCode() == 200);

            // ---- A comes back: a standby of B
            a.start();
            JsonNode back = SiteCampaign.awaitStandby(a, "pid " + b.pid());
            assertEquals("standby", back.path("site").path("role").asText());
            assertEquals(503, Net.get(portA, "/ready").statusCode());

            // ---- B completes every request exactly once
            campaign.assertCampaignCompleted(pool);
            note("campaign answered at +" + elapsedMillis() + " ms");

            // ---- every file staged back through B
            for (TestFile f : campaign.second) {
                pool.dropReplica(f);
            }
            List<EmulatedStageRequest> stages = pool.stage(campaign.second);
            Pool.awaitAll(stages, PHASE_SECONDS);
            for (int i = 0; i < stages.size(); i++) {
                TestFile f = campaign.second.get(i);
                assertTrue(stages.get(i).outcome().isCompleted(), f + ": " + stages.get(i).outcome());
                assertArrayEquals(f.content(), Files.readAllBytes(pool.emulator.replicaPath(f.pnfsId())),
                        "staged bytes of " + f);
            }
            campaign.assertEachCompletedOnce(pool, stages.size());
        }

        // ---- A stayed a standby all along; the catalog holds each file once, from epoch 2 on B's lease
        assertTrue(a.isAlive(), "the restarted A exited; see " + a.log());
        assertEquals("standby", a.control("status", List.of()).path("site").path("role").asText());
        SiteLease lease = leaseRow();
        assertEquals(2, lease.epoch());
        assertEquals(b.pid(), lease.pid());
        campaign.assertCatalogHoldsEveryFile(schema.url());
        // Only the holder opened the library: A's restart log has no library start, B's none before its takeover.
        assertLibraryOpenedOnlyAfterTheLease(b.log());
        String restarted = Files.readString(a.log());
        restarted = restarted.substring(restarted.lastIndexOf("==== start "));
        assertFalse(restarted.contains(LIBRARY_OPENED), "the restarted A, a standby, opened the library");

        // ---- B stops cleanly: A takes the released site over at its next poll
        b.stop(); // SIGTERM: a clean stop releases the lease
        JsonNode third = Poll.value("A takes the released site over", Duration.ofSeconds(30), () -> {
            JsonNode s = a.control("status", List.of());
            return s != null && s.path("site").path("epoch").asLong() > 0 ? s : null;
        });
        assertEquals(3, third.path("site").path("epoch").asLong());
        note("done in " + elapsedMillis() + " ms");
    }

    private SiteLease leaseRow() {
        try (JdbcCatalog catalog = JdbcCatalog.open(schema.url())) {
            return catalog.lease(SITE).orElseThrow();
        }
    }

    /** What the daemon logs as soon as it has opened the library (before the scheduler's inventory). */
    private static final String LIBRARY_OPENED = "Opened library: ";

    /** B's log: the library was opened once, and only after the takeover. */
    private static void assertLibraryOpenedOnlyAfterTheLease(Path log) throws IOException {
        String text = Files.readString(log);
        int took = text.indexOf("Standby: took site '" + SITE + "' over (epoch 2)");
        int opened = text.indexOf(LIBRARY_OPENED);
        assertTrue(took >= 0 && opened > took, "B's log: the takeover (at " + took + ") before the library was "
                + "opened (at " + opened + ")");
        assertEquals(opened, text.lastIndexOf(LIBRARY_OPENED), "B opened the library more than once");
    }

    private long elapsedMillis() {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static void note(String s) {
        System.out.println("[FailoverTest] " + s);
    }
}
