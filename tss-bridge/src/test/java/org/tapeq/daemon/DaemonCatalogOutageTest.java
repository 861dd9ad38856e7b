package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.daemon.control.ControlProtocol;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.testing.postgres.CuttableProxy;
import org.tapeq.testing.postgres.TestSchema;

/**
 * The daemon on a PostgreSQL catalog that goes away: its connection runs through a proxy the test cuts (every
 * connection closed, new ones refused, as while the server restarts) and restores. While cut, {@code /ready}
 * answers 503, {@code tapeq_catalog_connected} is 0, the status says so, admin commands answer with a clear
 * error, no tape file is written and no flush is acknowledged; after, everything resumes by itself. A daemon
 * started while the catalog is down waits for it. Uses the local server ({@link TestSchema}); skipped if none
 * answers.
 */
class DaemonCatalogOutageTest {

    @TempDir
    Path tmp;

    private TestSchema schema;
    private CuttableProxy proxy;
    private DaemonFixture f;
    private final HttpClient http = HttpClient.newHttpClient();
    private int httpPort;

    @BeforeEach
    void schema() throws Exception {
        schema = TestSchema.create().orElse(null);
        assumeTrue(schema != null, "PostgreSQL not reachable");
        try (ServerSocket free = new ServerSocket(0)) {
            httpPort = free.getLocalPort(); // known before the daemon's start returns
        }
    }

    @AfterEach
    void drop() throws Exception {
        if (f != null) {
            f.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (schema != null) {
            schema.close();
        }
    }

    @Test
    void catalogCutWhileRunning_reportedEverywhere_nothingWritten_resumesByItself() throws Exception {
        proxy = new CuttableProxy(schema.host(), schema.port());
        startDaemon().get(60, TimeUnit.SECONDS);
        f.labelAll();
        String before = f.onTape(DaemonFixture.randomBytes(5000));
        assertEquals(200, ready().statusCode());
        assertTrue(metrics().contains("tapeq_catalog_connected 1.0"), metrics());
        SimulatedLibrary library = (SimulatedLibrary) f.daemon.library();

        proxy.cut();
        long appends = library.stats().appends();
        String during = DaemonFixture.newPnfsId();
        f.flush(during, DaemonFixture.randomBytes(7000), true);
        DaemonFixture.await("/ready to answer 503", () -> readyCode() == 503);
        assertCatalogReportedDown();
        // The flush waits for the catalog: for its lookup (is it on tape already?) in the bridge, which the
        // catalog writer runs once the catalog answers.
        DaemonFixture.await("the flush to wait for the catalog",
                () -> Integer.valueOf(1).equals(f.bridge().requests().get("checking")));
        assertEquals(appends, library.stats().appends(), "no tape file written while the catalog is cut");
        assertTrue(DaemonFixture.exists(f.dir.outLink(during)), "flush acknowledged while the catalog is cut");
        assertNull(f.error(during));

        proxy.restore();
        assertNull(f.awaitFlush(during), "the flush completes after the catalog is back");
        DaemonFixture.await("/ready to answer 200", () -> readyCode() == 200);
        assertTrue(metrics().contains("tapeq_catalog_connected 1.0"), metrics());
        assertTrue(status().path("catalog").path("reachable").asBoolean());
        assertTrue(f.daemon.catalog().file(during).isPresent(), "acknowledged with its catalog record");
        assertTrue(f.daemon.catalog().file(before).isPresent());
        assertEquals(library.stats().appends(), f.daemon.catalog().cartridges().stream()
                .mapToLong(c -> f.daemon.catalog().aggregates(c.barcode()).size()).sum(),
                "every tape file written is in the catalog");
    }

    @Test
    void catalogDownAtStart_daemonWaitsReportingIt_thenStarts() throws Exception {
        proxy = CuttableProxy.closed(schema.host(), schema.port());
        CompletableFuture<Daemon> started = startDaemon();
        DaemonFixture.await("/ready to say the catalog is unreachable",
                () -> readyCode() == 503 && ready().body().contains("the catalog is unreachable"));
        assertFalse(started.isDone(), "the daemon waits for its catalog");
        assertCatalogReportedDown();

        proxy.restore();
        f.daemon = started.get(60, TimeUnit.SECONDS);
        DaemonFixture.await("/ready to answer 200", () -> readyCode() == 200);
        assertTrue(metrics().contains("tapeq_catalog_connected 1.0"), metrics());
        f.labelAll();
        f.onTape(DaemonFixture.randomBytes(3000));
    }

    /** {@code /ready}, the metric, the status and an admin command all say the catalog is unreachable. */
    private void assertCatalogReportedDown() throws Exception {
        HttpResponse<String> r = ready();
        assertEquals(503, r.statusCode());
        assertTrue(r.body().contains("the catalog is unreachable"), r.body());
        assertTrue(metrics().contains("tapeq_catalog_connected 0.0"), metrics());
        JsonNode catalog = status().path("catalog");
        assertFalse(catalog.path("reachable").asBoolean(), catalog.toString());
        assertTrue(catalog.path("unreachableSince").asLong() > 0, catalog.toString());
        IOException refused = assertThrows(IOException.class, () -> ControlProtocol.call(socket(), "drive-down",
                List.of("drive1", "maintenance")));
        assertTrue(refused.getMessage().contains("the catalog is unreachable"), refused.getMessage());
    }

    private CompletableFuture<Daemon> startDaemon() throws IOException {
        f = new DaemonFixture(tmp, String.join("\n",
                "catalog:",
                "  url: \"" + schema.urlVia(proxy.port()) + "\""));
        Path config = tmp.resolve("tapeq.yaml");
        Files.writeString(config, f.yaml().replace("bind: 127.0.0.1:0", "bind: 127.0.0.1:" + httpPort));
        CompletableFuture<Daemon> started = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                Daemon d = Daemon.start(DaemonConfig.load(config));
                f.daemon = d;
                started.complete(d);
            } catch (Exception e) {
                started.completeExceptionally(e);
            }
        }, "test-daemon-start");
        t.setDaemon(true);
        t.start();
        return started;
    }

    private Path socket() {
        return tmp.resolve("state").resolve(Daemon.CONTROL_SOCKET);
    }

    private JsonNode status() throws IOException {
        return ControlProtocol.call(socket(), "status", List.of());
    }

    private HttpResponse<String> ready() {
        return get("/ready");
    }

    /** {@code /ready}'s status code, or -1 while nothing listens yet. */
    private int readyCode() {
        try {
            return ready().statusCode();
        } catch (IllegalStateException e) {
            return -1;
        }
    }

    private String metrics() {
        return get("/metrics").body();
    }

    private HttpResponse<String> get(String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("GET " + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
