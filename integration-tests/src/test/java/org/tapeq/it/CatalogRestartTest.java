package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.SiteLease;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.testing.support.Poll;

/**
 * The catalog's PostgreSQL server restarted in the middle of a campaign, under two daemon processes of one site
 * (A active, B its standby), with flushes and stages in flight (half of them submitted before the stop, half
 * while the server is down). The server is the test's own ({@link OwnPostgres},
 * never the machine's shared one), stopped with a fast shutdown and kept down until both daemons report it and
 * {@value #OUTAGE_MILLIS} ms more (less than two thirds of the lease in all, so A keeps the site), then started
 * again on the same port and data directory.
 *
 * <p>While it is down: A reports the catalog unreachable (status, {@code /ready} 503, {@code
 * tapeq_catalog_connected 0}), B reports it as the reason it waits; no tape write starts or ends in the library
 * (its journals and data files do not change) and no flush is acknowledged to the pool, although flushes are
 * waiting. Once it is back: A logs the catalog reachable again, every request completes exactly once (the pool
 * emulator counts a second completion as a violation), the waiting flushes are written to tape, every
 * acknowledged flush is in the catalog with its size and checksum, A still holds the site at epoch 1 and B is its
 * standby again.
 */
@Tag("slow")
class CatalogRestartTest {

    private static final String SITE = "restart-it";
    /** The outage (at most {@link #REPORT_LIMIT_MILLIS} + {@link #OUTAGE_MILLIS}) stays below two thirds of it. */
    private static final long LEASE_TIMEOUT_MILLIS = 60_000;
    /** How long the server stays down once both daemons report it. */
    private static final long OUTAGE_MILLIS = 6_000;
    /** A notices at its next catalog work (a connection waited for up to 5 s), B at its next look (a sixth). */
    private static final long REPORT_LIMIT_MILLIS = 25_000;
    /** How long the library must stay unchanged after the stop before the watch starts: a tape write whose check
     *  passed before the stop may still end. */
    private static final long SETTLE_MILLIS = 1_500;
    private static final int FILES = 60;
    private static final long PHASE_SECONDS = 180;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void postgresRestartedMidCampaign_nothingWrittenOrAcknowledgedWhileDown_everyRequestCompletedOnce()
            throws Exception {
        String noServer = OwnPostgres.unavailable();
        assumeTrue(noServer == null, noServer);
        // the server runs as nobody when the test is root: it must reach its directory
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        OwnPostgres pg = OwnPostgres.start(Files.createDirectories(tmp.resolve("postgres")), "127.0.0.1",
                Net.freePort());
        open.add(pg);
        String url = pg.url("127.0.0.1");
        int portA = Net.freePort();
        int portB = Net.freePort();
        Site siteA = SiteCampaign.host(tmp, "a", url, SITE, LEASE_TIMEOUT_MILLIS).speed(500)
                .http("127.0.0.1:" + portA);
        DaemonProcess a = new DaemonProcess(siteA);
        open.add(a);
        DaemonProcess b = new DaemonProcess(SiteCampaign.host(tmp, "b", url, SITE, LEASE_TIMEOUT_MILLIS).speed(500)
                .http("127.0.0.1:" + portB));
        open.add(b);
        Path simlib = tmp.resolve("simlib");
        SiteCampaign campaign = new SiteCampaign(new Random(1515), FILES, PHASE_SECONDS);

        a.start();
        a.awaitStatus(Duration.ofSeconds(60));
        a.labelAll();
        b.start();
        awaitStandbyOfA(b);

        try (Pool pool = Pool.start(siteA)) {
            campaign.flushFirstHalf(pool);

            // ---- stages of the first half and flushes of the second, in batches: half of them before the stop,
            // the rest while the server is down (they are taken in and wait for it)
            int half = campaign.first.size() / 2;
            campaign.submit(pool, 0, half);
            Poll.until("A has answered some of the campaign", Duration.ofSeconds(PHASE_SECONDS),
                    () -> campaign.answered() >= 5);
            pg.stop();
            long stopped = System.nanoTime();
            campaign.submit(pool, half, campaign.first.size());
            int total = campaign.requests.size();
            note("PostgreSQL stopped with " + campaign.answered() + "/" + total + " answered");

            // ---- nothing written to tape, nothing acknowledged, while it is down; A and B report it
            List<String> library = LibraryActivity.settled(() -> LibraryActivity.writes(simlib), SETTLE_MILLIS,
                    REPORT_LIMIT_MILLIS);
            long acknowledged = campaign.flushesAcknowledged();
            long reported = 0;
            boolean standbySaw = false;
            int samples = 0;
            while (reported == 0 || !standbySaw || System.nanoTime() - reported < OUTAGE_MILLIS * 1_000_000) {
                assertEquals(library, LibraryActivity.writes(simlib), "a tape write started or ended while the "
                        + "catalog was down");
                assertEquals(acknowledged, campaign.flushesAcknowledged(), "a flush was acknowledged while the "
                        + "catalog was down");
                samples++;
                if (reported == 0) {
                    JsonNode s = a.control("status", List.of());
                    if (s != null && !s.path("catalog").path("reachable").asBoolean(true)) {
                        reported = System.nanoTime();
                        note("A reports it " + (reported - stopped) / 1_000_000 + " ms after the stop: "
                                + s.path("catalog"));
                    }
                }
                if (!standbySaw) {
                    JsonNode s = b.control("status", List.of());
                    standbySaw = s != null && s.path("site").path("waiting").asText()
                            .contains("the catalog is unreachable");
                }
                assertTrue(reported > 0 && standbySaw || System.nanoTime() - stopped < REPORT_LIMIT_MILLIS * 1_000_000,
                        "within "
                        + REPORT_LIMIT_MILLIS + " ms of the stop, A reported the catalog unreachable: " + (reported > 0)
                        + ", B: " + standbySaw);
                Thread.sleep(100);
            }
            assertEquals(503, Net.get(portA, "/ready").statusCode());
            assertTrue(Net.get(portA, "/metrics").body().contains("tapeq_catalog_connected 0.0"),
                    "tapeq_catalog_connected 0 while the catalog is down");
            assertTrue(acknowledged < campaign.campaignFlushes.size(), "no flush was left waiting for the catalog: "
                    + "the outage came too late to show anything");
            int tapeFilesWhileDown = LibraryActivity.tapeFiles(simlib);
            assertTrue(a.isAlive() && b.isAlive(), "a daemon exited during the outage; see " + a.log() + ", "
                    + b.log());
            note(samples + " looks during the outage: the library unchanged, " + acknowledged + "/"
                    + campaign.campaignFlushes.size() + " campaign flushes acknowledged");

            // ---- back on the same port and data directory
            pg.start();
            note("PostgreSQL started again " + (System.nanoTime() - stopped) / 1_000_000 + " ms after the stop");
            campaign.assertCampaignCompleted(pool);
            assertTrue(LibraryActivity.tapeFiles(simlib) > tapeFilesWhileDown, "the held flushes were not "
                    + "written after the outage");
            campaign.assertEachCompletedOnce(pool, 0);
        }

        // ---- the catalog holds every acknowledged flush; the site did not move; both reconnected
        campaign.assertCatalogHoldsEveryFile(url);
        try (JdbcCatalog catalog = JdbcCatalog.open(url)) {
            SiteLease lease = catalog.lease(SITE).orElseThrow();
            assertEquals(1, lease.epoch(), "the site changed hands: " + lease);
        }
        // A counts the catalog reachable again at its next successful lease renewal (every third of the lease
        // timeout), which may come after the campaign has ended
        Poll.until("A ready again (a lease renewal after the restart)", Duration.ofMillis(LEASE_TIMEOUT_MILLIS),
                () -> Net.get(portA, "/ready").statusCode() == 200);
        assertTrue(Net.get(portA, "/metrics").body().contains("tapeq_catalog_connected 1.0"));
        awaitStandbyOfA(b);
        String log = Files.readString(a.log());
        assertTrue(log.contains("Catalog unreachable: "), "A's log names the outage");
        assertTrue(log.contains("Catalog reachable again after "), "A's log names the catalog's return");
    }

    private static void awaitStandbyOfA(DaemonProcess b) throws InterruptedException {
        JsonNode s = SiteCampaign.awaitStandby(b, "lease held by", "(epoch 1)");
        assertEquals("standby", s.path("site").path("role").asText());
    }

    private static void note(String s) {
        System.out.println("[CatalogRestartTest] " + s);
    }
}
