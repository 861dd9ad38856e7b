package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.chrome.ChromeDriver;
import org.tapeq.daemon.control.ControlProtocol;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.scheduler.engine.lifecycle.MigrationReport;
import org.tapeq.scheduler.engine.lifecycle.ReclaimStatus;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.engine.lifecycle.VerifyReport;

/**
 * The status page's background work table in a real browser (headless chromium, as {@link StatusPageBrowserTest}),
 * for states a small simulated daemon does not reach in a test's time: a migration in the middle of a cartridge, a
 * verification that found files it could not compare, and the automatic reclamation paused. The page's own files
 * are served from the jar beside a {@code /status} built from the scheduler's report records, through the same
 * JSON mapping and readable times as the daemon's. Skipped when chromium or chromedriver is not installed.
 */
class StatusPageBackgroundTest {

    private static final long NOW = 1_764_150_000_000L; // 2025-11-26T09:40:00Z
    private static final long HOUR = 3_600_000;

    @TempDir
    Path tmp;

    private HttpServer server;
    private ChromeDriver browser;

    @BeforeEach
    void start() {
        HeadlessChromium.assumeInstalled("the status page's background work is not tested in a browser");
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void backgroundWork_migrationVerificationAndPausedReclamation_eachSaysWhatAnOperatorNeeds() throws Exception {
        open(status());

        List<String> migration = row("migration", "A00041L8");
        assertNotNull(migration, "no migration row: " + rows());
        assertEquals(List.of("migration", "A00041L8", "running", "51.0 %",
                "1 cartridges of 3 cartridges, 10.2 GB of 20.0 GB", "2 cartridges, 9.8 GB",
                "LTO-8 to LTO-9, family atlas; now A00041L8 (writing): 3 files of 10 files, 1.2 GB of 5.0 GB,"
                        + " writing to B00001L9; measured 2.8 MB/s; estimated end 2025-11-26T10:37:38Z"),
                migration);

        // A file read whole whose checksum is not an Adler-32 is not counted good.
        List<String> verification = row("verification", "A00042L9");
        assertNotNull(verification, "no verification row: " + rows());
        assertEquals("1479 good, 1 unchecked, 1 bad, 13 unreadable", verification.get(6));

        // The repack the migration runs: its source, target, progress and rate.
        List<String> repack = row("repack", "A00041L8");
        assertNotNull(repack, "no repack row: " + rows());
        assertEquals(List.of("repack", "A00041L8", "writing", "24.0 %", "3 files of 10 files, 1.2 GB of 5.0 GB",
                "7 files, 3.8 GB", "to family atlas, writing to B00001L9; 333.3 kB/s since asked for"), repack);

        List<String> reclaim = row("reclamation", "");
        assertNotNull(reclaim, "no reclamation row: " + rows());
        assertEquals(List.of("reclamation", "", "paused", "", "", "",
                "paused since 2025-11-26T08:40:00Z: robot maintenance; 2 candidate(s) below 30 % live: A00007L9"
                        + " A00003L9; 1 repack(s) queued or running, 4 started in this run; left for an operator:"
                        + " A00009L9; last look 2025-11-26T09:30:00Z"), reclaim);
        HeadlessChromium.screenshot(browser, "status-page-background-work.png");
    }

    /** A daemon status with one migration under way, its repack, a verification and the reclamation paused. */
    private static ObjectNode status() {
        SchedulerStatus.Background background = new SchedulerStatus.Background(0, 1, 1, 0, 0, 0, 0, 0, 0, 0);
        VerifyReport verify = new VerifyReport("A00042L9", "running", 37, 412, false, 1479, 1, 1, 13, List.of(),
                List.of(), NOW - HOUR, 0, null);
        RepackReport done = new RepackReport("A00040L8", "atlas", "done", null, 9, 9_000_000_000L, 9,
                9_000_000_000L, 0, 0, 0, List.of(), true, NOW - 3 * HOUR, NOW - HOUR, null, "LTO-9");
        RepackReport current = new RepackReport("A00041L8", "atlas", "writing", "B00001L9", 10, 5_000_000_000L, 3,
                1_200_000_000L, 0, 0, 0, List.of(), false, NOW - HOUR, 0, null, "LTO-9");
        MigrationReport migration = new MigrationReport("L8-L9-1", "LTO-8", "LTO-9", "atlas", "running", 3, 1, 0,
                "A00041L8", List.of("A00041L8"), 20_000_000_000L, 10_200_000_000L, 2_833_333, NOW + 3_458_823, NOW - 3 * HOUR, 0,
                List.of(new MigrationReport.CartridgeResult("A00040L8", "done", true, 9_000_000_000L, null)), null);
        ReclaimStatus reclaim = new ReclaimStatus("paused", NOW - HOUR, "robot maintenance", 0.3, 2,
                List.of("A00007L9", "A00003L9"), 1, 4, List.of("A00009L9"), NOW - 600_000);

        ObjectNode status = ControlProtocol.JSON.createObjectNode();
        status.put("version", "test").put("nowMillis", NOW).put("startedMillis", NOW - 4 * HOUR);
        ObjectNode s = status.putObject("scheduler");
        s.put("now", NOW).put("policy", "tapeq");
        s.set("background", ControlProtocol.JSON.valueToTree(background));
        s.set("verifications", list(verify));
        s.set("repacks", list(done, current));
        s.set("migrations", list(migration));
        s.set("reclaim", ControlProtocol.JSON.valueToTree(reclaim));
        return StatusTimes.add(status, 1, ZoneOffset.UTC);
    }

    private static ArrayNode list(Object... reports) {
        ArrayNode a = ControlProtocol.JSON.createArrayNode();
        for (Object r : reports) {
            a.add(ControlProtocol.JSON.valueToTree(r));
        }
        return a;
    }

    /** Serves the page's files from the jar and {@code status} at {@code /status}, and opens the page. */
    private void open(ObjectNode status) throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] json = ControlProtocol.JSON.writeValueAsBytes(status);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            byte[] body = json;
            String type = "application/json";
            if (!path.equals("/status")) {
                String name = path.equals("/") ? "index.html" : path.substring(path.lastIndexOf('/') + 1);
                try (InputStream in = getClass().getResourceAsStream("/org/tapeq/daemon/http/page/" + name)) {
                    body = in == null ? null : in.readAllBytes();
                }
                type = name.endsWith(".js") ? "text/javascript" : name.endsWith(".css") ? "text/css" : "text/html";
            }
            if (body == null) {
                exchange.sendResponseHeaders(404, -1);
                exchange.close();
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        browser = HeadlessChromium.start(tmp);
        browser.get("http://127.0.0.1:" + server.getAddress().getPort() + "/?refresh=1");
        DaemonFixture.await("the page shows the background work", () -> rows().size() > 2);
    }

    /** The row of the background table of this kind of job and cartridge, or null. */
    private List<String> row(String kind, String cartridge) {
        return rows().stream().filter(r -> r.size() > 1 && r.get(0).equals(kind) && r.get(1).equals(cartridge))
                .findFirst().orElse(null);
    }

    @SuppressWarnings("unchecked")
    private List<List<String>> rows() {
        return (List<List<String>>) browser.executeScript("return Array.from(document.querySelectorAll('#background"
                + " tr')).map(r => Array.from(r.cells).map(c => c.textContent));");
    }
}
