package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.net.Socket;
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
 * The active scheduler cut off from the catalog in the middle of a campaign while it can still reach the
 * library: the case the step-down exists for. A runs in a network namespace of its own ({@link NetNs}) with two
 * links to the root namespace (veth pairs on private /30s, as another host on two networks): one to the catalog
 * (the test's own PostgreSQL server, {@link OwnPostgres}) and one to the data mover ({@code tapeq mover}, which
 * holds the simulated library, so that two daemons never open it themselves); its standby B runs in the root
 * namespace. {@code ip link set ... down} of A's catalog link, with stages and flushes in flight:
 *
 * <ul>
 *   <li>A steps down (its log says so) within two thirds of the lease and from then on, although the mover still
 *       answers it, gives the library no command (no mount, unmount or tape write: the library's journals, data
 *       files and drives do not change) and answers no request, until B holds the site;
 *   <li>B takes the site over (epoch 2) within {@code catalog.leaseTimeout} plus a margin;
 *   <li>with the link still down, A, not renewed for the whole lease timeout, takes itself as deposed and exits
 *       with 75, letting go of the request directory's lock; B, whose start waits for that lock, serves by
 *       itself (never restarted) within the lease timeout plus the margin;
 *   <li>B completes every request exactly once (the pool emulator counts a second completion as a violation), and
 *       the catalog holds every flushed file once with its size and checksum.
 * </ul>
 *
 * Skipped when the test does not run as root or {@code ip} is missing; the namespace is deleted whatever happens.
 */
@Tag("slow")
class PartitionTest {

    private static final String SITE = "partition-it";
    private static final long LEASE_TIMEOUT_MILLIS = 6_000;
    /** Start of B's engine after the takeover, the standby's poll and a loaded 2-core machine. */
    private static final long TAKEOVER_MARGIN_MILLIS = 15_000;
    private static final int FILES = 40;
    private static final long PHASE_SECONDS = 180;
    /** A's links: to the catalog's server (cut by the test), and to the data mover (left up). */
    private static final int CATALOG_LINK = 0;
    private static final int MOVER_LINK = 1;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        Exception first = null;
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * A daemon host of the site reaching the catalog at {@code pgAddress} and the mover at {@code moverAddress}.
     * The mover is probed every second but given the default 10 s to answer: a JVM that has just started, on a
     * loaded machine, once took longer than 2 s to connect to it through A's namespace, and the start's inventory
     * failed with it.
     */
    private Site host(String name, String pgAddress, int pgPort, String moverAddress, int moverPort)
            throws Exception {
        return SiteCampaign.host(tmp, name, "jdbc:postgresql://" + pgAddress + ":" + pgPort
                        + "/postgres?user=postgres", SITE, LEASE_TIMEOUT_MILLIS).speed(500)
                .extraYaml(String.join("\n",
                        "movers:",
                        "  probeInterval: 1s",
                        "  servers:",
                        "    - name: m1",
                        "      address: " + moverAddress + ":" + moverPort,
                        "      drives: drive0, drive1"));
    }

    private DaemonProcess mover(int port) throws Exception {
        Path config = tmp.resolve("mover.yaml");
        Files.writeString(config, String.join("\n",
                "mover:",
                "  name: m1",
                "  site: " + SITE,
                "  listen: 0.0.0.0:" + port,
                "  drives: drive0, drive1",
                "state: " + tmp.resolve("mover-state"),
                "library:",
                "  simulated:",
                "    data: bytes",
                "    speed: 500",
                "    drives: 2",
                "    cartridges: 4",
                "    dir: " + tmp.resolve("simlib"),
                ""));
        return DaemonProcess.mover(config, tmp.resolve("mover.log"));
    }

    @Test
    void activeCutOffMidCampaign_stepsDown_standbyTakesOver_oldActiveDeposed_everyRequestCompletedOnce()
            throws Exception {
        assumeTrue(NetNs.available(), "needs root and ip(8) for a network namespace");
        String noServer = OwnPostgres.unavailable();
        assumeTrue(noServer == null, noServer);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        NetNs net = NetNs.create(2);
        open.add(net);
        int pgPort = Net.freePort();
        OwnPostgres pg = OwnPostgres.start(Files.createDirectories(tmp.resolve("postgres")),
                "127.0.0.1," + net.hostAddress(CATALOG_LINK), pgPort);
        open.add(pg);
        int moverPort = Net.freePort();
        DaemonProcess mover = mover(moverPort);
        open.add(mover);
        mover.start();
        Poll.until("the mover listens on " + moverPort + " (see " + tmp.resolve("mover.log") + ")",
                Duration.ofSeconds(60), () -> listens(moverPort));
        Site siteA = host("a", net.hostAddress(CATALOG_LINK), pgPort, net.hostAddress(MOVER_LINK), moverPort);
        DaemonProcess a = new DaemonProcess(siteA).inNetworkNamespace(net.name());
        open.add(a);
        DaemonProcess b = new DaemonProcess(host("b", "127.0.0.1", pgPort, "127.0.0.1", moverPort));
        open.add(b);
        String url = "jdbc:postgresql://127.0.0.1:" + pgPort + "/postgres?user=postgres";
        Path simlib = tmp.resolve("simlib");
        SiteCampaign campaign = new SiteCampaign(new Random(1516), FILES, PHASE_SECONDS);

        a.start();
        a.awaitStatus(Duration.ofSeconds(90));
        a.labelAll();
        b.start();
        SiteCampaign.awaitStandby(b, "(epoch 1)");

        try (Pool pool = Pool.start(siteA)) {
            campaign.flushFirstHalf(pool);

            // ---- stages of the first half and flushes of the second, in batches; A is cut off in the middle: half
            // of them before the cut, the rest right after it (taken in, they wait: A cannot reach the catalog), so
            // that work is in progress when A steps down however fast the first half is answered
            int half = campaign.first.size() / 2;
            campaign.submit(pool, 0, half);
            int sixth = campaign.requests.size() / 3; // a sixth of the whole campaign
            Poll.until("A has answered a sixth of the campaign", Duration.ofSeconds(PHASE_SECONDS),
                    () -> campaign.answered() >= sixth);
            net.down(CATALOG_LINK);
            long cut = System.nanoTime();
            campaign.submit(pool, half, campaign.first.size());
            int total = campaign.requests.size();
            note("A's link to the catalog down with " + campaign.answered() + "/" + total + " answered");

            // ---- A steps down; from then on, until B holds the site, nothing moves in the library or the answers
            Poll.until("A steps down (see " + a.log() + ")", Duration.ofMillis(LEASE_TIMEOUT_MILLIS + 5_000),
                    () -> Files.readString(a.log()).contains("Stepping down: "));
            long steppedDown = System.nanoTime();
            note("A stepped down " + (steppedDown - cut) / 1_000_000 + " ms after the cut");
            // a command A gave the mover before it stepped down runs to its end: the watch starts once A's status
            // shows its hold with nothing of it still running in the library
            JsonNode hold = Poll.value("A's status shows its hold with no library command still running (see "
                    + a.log() + ")", Duration.ofSeconds(PHASE_SECONDS), () -> {
                        JsonNode st = a.control("status", List.of());
                        JsonNode h = st == null ? null : st.path("scheduler").path("hold");
                        return h != null && h.isObject() && h.path("running").asInt(-1) == 0 ? h : null;
                    });
            note("A's commands in the library ended " + (System.nanoTime() - steppedDown) / 1_000_000 + " ms after "
                    + "it stepped down; " + hold.path("waiting").asInt() + " command(s) and answer(s) wait");
            List<String> library = LibraryActivity.writesAndMounts(simlib);
            int answeredHeld = campaign.answered();
            int samples = 0;
            JsonNode active = null;
            while (active == null) {
                JsonNode s = b.control("status", List.of());
                if (s != null && s.path("site").path("epoch").asLong() > 0) {
                    active = s;
                    break;
                }
                assertEquals(library, LibraryActivity.writesAndMounts(simlib), "the library moved after A stepped "
                        + "down and before B held the site");
                assertEquals(answeredHeld, campaign.answered(), "a request was answered after A stepped down and "
                        + "before B held the site");
                samples++;
                assertTrue(System.nanoTime() - cut < (LEASE_TIMEOUT_MILLIS + TAKEOVER_MARGIN_MILLIS) * 1_000_000,
                        "B did not take the site over within the lease timeout and " + TAKEOVER_MARGIN_MILLIS
                                + " ms; see " + b.log());
                Thread.sleep(100);
            }
            long takeover = (System.nanoTime() - cut) / 1_000_000;
            note("B took the site over " + takeover + " ms after the cut; " + samples + " looks in between: the "
                    + "library unchanged, " + answeredHeld + "/" + total + " answered");
            assertEquals(2, active.path("site").path("epoch").asLong());
            assertTrue(samples > 0, "B took over before A stepped down: nothing was shown held");
            assertTrue(answeredHeld < total, "the cut came too late to meet work in progress");
            // ---- the link stays down: A, not renewed for the whole lease timeout, takes itself as deposed and exits
            // with 75, letting go of the request directory's lock; B, which waits for that lock, serves by itself
            Integer exit = a.awaitExit(Duration.ofMillis(LEASE_TIMEOUT_MILLIS + TAKEOVER_MARGIN_MILLIS));
            assertEquals(75, exit, "A's exit while cut off; see " + a.log());
            note("A exited with 75 " + (System.nanoTime() - cut) / 1_000_000 + " ms after the cut, link still down");
            String logA = Files.readString(a.log());
            assertTrue(logA.contains("Deposed: site lease not renewed"), "A's log says it took itself as deposed");
            Poll.until("B answers a request by itself (not restarted; see " + b.log() + ")",
                    Duration.ofNanos(cut + (LEASE_TIMEOUT_MILLIS + TAKEOVER_MARGIN_MILLIS) * 1_000_000
                            - System.nanoTime()), () -> campaign.answered() > answeredHeld);
            note("B answered again " + (System.nanoTime() - cut) / 1_000_000 + " ms after the cut");
            assertEquals(null, b.awaitExit(Duration.ZERO), "B's start failed; see " + b.log());
            net.up(CATALOG_LINK);

            // ---- B completes every request exactly once
            campaign.assertCampaignCompleted(pool);
            campaign.assertEachCompletedOnce(pool, 0);
        }

        campaign.assertCatalogHoldsEveryFile(url);
        try (JdbcCatalog catalog = JdbcCatalog.open(url)) {
            SiteLease lease = catalog.lease(SITE).orElseThrow();
            assertTrue(lease.epoch() >= 2, lease.toString());
            assertEquals(b.pid(), lease.pid(), "B holds the site: " + lease);
        }
    }

    private static boolean listens(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static void note(String s) {
        System.out.println("[PartitionTest] " + s);
    }
}
