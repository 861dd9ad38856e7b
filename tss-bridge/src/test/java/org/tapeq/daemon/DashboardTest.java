package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every query of the shipped Grafana dashboard ({@code etc/grafana/tapeq-dashboard.json}) returns data from a
 * running daemon on the simulated library, after a flush and a stage. Always: each metric a query selects, with
 * its label matchers, is in a scrape of {@code /metrics}. With Prometheus installed (Debian's package
 * {@code prometheus}): a real Prometheus scrapes the daemon every second with the shipped alert rules loaded,
 * each query (the dashboard's {@code $__rate_interval} as 1m, every instance) returns at least one series
 * through its HTTP API, and a drive taken down shows as a pending or firing {@code TapeqDriveDown}.
 */
class DashboardTest {

    static final Path DASHBOARD = Path.of("src/main/dist/etc/grafana/tapeq-dashboard.json");
    private static final Pattern SELECTOR = Pattern.compile("\\b((?:tapeq|jvm|process)_[a-zA-Z0-9_:]*)\\s*(\\{[^}]*\\})?");
    private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(=~|!=|!~|=)\\s*\"([^\"]*)\"");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private DaemonFixture f;
    private Process prometheus;

    @BeforeEach
    void start() throws Exception {
        f = new DaemonFixture(tmp.resolve("daemon"), "");
        f.start();
        f.labelAll();
        byte[] data = DaemonFixture.randomBytes(100_000);
        String id = f.onTape(data);
        f.stage(id, data.length, DaemonFixture.adler32(data), true);
        assertNull(f.awaitStage(id));
        f.collect(id);
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (prometheus != null) {
            prometheus.destroy();
            prometheus.waitFor(30, TimeUnit.SECONDS);
        }
        f.close();
    }

    static List<String> queries() throws IOException {
        List<String> out = new ArrayList<>();
        for (JsonNode panel : JSON.readTree(DASHBOARD.toFile()).path("panels")) {
            for (JsonNode t : panel.path("targets")) {
                out.add(t.path("expr").asText());
            }
        }
        return out;
    }

    @Test
    void everyDashboardQuery_selectsSeriesTheDaemonExposes() throws Exception {
        Scrape scrape = Scrape.of(f.daemon);
        List<String> queries = queries();
        assertTrue(queries.size() >= 20, "queries: " + queries);
        for (String q : queries) {
            Matcher m = SELECTOR.matcher(q);
            boolean any = false;
            while (m.find()) {
                any = true;
                String name = m.group(1);
                List<Scrape.Series> found = scrape.find(name);
                if (m.group(2) != null) {
                    Matcher l = MATCHER.matcher(m.group(2));
                    while (l.find()) {
                        found = filter(found, l.group(1), l.group(2), l.group(3));
                    }
                }
                assertFalse(found.isEmpty(), "no series for " + m.group() + " of the query " + q);
            }
            assertTrue(any, "no tapeq, jvm or process metric in " + q);
        }
    }

    private static List<Scrape.Series> filter(List<Scrape.Series> in, String label, String op, String value) {
        if (value.contains("$")) {
            return in; // a dashboard variable: $instance, a label Prometheus adds
        }
        List<Scrape.Series> out = new ArrayList<>();
        for (Scrape.Series s : in) {
            String v = s.labels().getOrDefault(label, "");
            boolean match = switch (op) {
                case "=" -> v.equals(value);
                case "!=" -> !v.equals(value);
                case "=~" -> v.matches(value);
                default -> !v.matches(value);
            };
            if (match) {
                out.add(s);
            }
        }
        return out;
    }

    @Test
    void everyDashboardQuery_returnsDataFromARealPrometheus_andAnAlertRuleSeesADriveDown() throws Exception {
        String binary = AlertRulesTest.onPath("prometheus");
        org.junit.jupiter.api.Assumptions.assumeTrue(binary != null,
                "prometheus is not installed (apt-get install prometheus); only the selector check ran");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path dir = Files.createDirectories(tmp.resolve("prometheus"));
        Files.copy(AlertRulesTest.RULES, dir.resolve("tapeq-alerts.yml"));
        Files.writeString(dir.resolve("prometheus.yml"), String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  evaluation_interval: 1s",
                "rule_files: [tapeq-alerts.yml]",
                "scrape_configs:",
                "  - job_name: tapeq",
                "    static_configs:",
                "      - targets: ['127.0.0.1:" + f.daemon.httpAddress().getPort() + "']",
                ""));
        prometheus = new ProcessBuilder(binary, "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        URI api = URI.create("http://127.0.0.1:" + port + "/api/v1/");
        HttpClient http = HttpClient.newHttpClient();
        // Five scrapes, so that every rate over the last minute has points to work with.
        DaemonFixture.await("five scrapes of the daemon", () -> count(http, api,
                "count_over_time(up{job=\"tapeq\"}[1m]) >= 5") > 0);
        f.daemon.scheduler().driveDown("drive1", "for the alert").get(30, TimeUnit.SECONDS);

        for (String q : queries()) {
            String expr = q.replace("$__rate_interval", "1m").replace("$instance", ".*");
            int n = count(http, api, expr);
            assertTrue(n > 0, "no data for the dashboard query " + expr);
        }
        DaemonFixture.await("TapeqDriveDown pending or firing for drive1", () -> {
            JsonNode alerts = get(http, api.resolve("alerts")).path("data").path("alerts");
            for (JsonNode a : alerts) {
                if ("TapeqDriveDown".equals(a.path("labels").path("alertname").asText())
                        && "drive1".equals(a.path("labels").path("drive").asText())) {
                    return true;
                }
            }
            return false;
        });
    }

    /** The number of series the instant query returns (0 on an error). */
    private static int count(HttpClient http, URI api, String expr) {
        JsonNode r = get(http, api.resolve("query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8)));
        assertEquals("success", r.path("status").asText("success"), expr + ": " + r);
        return r.path("data").path("result").size();
    }

    private static JsonNode get(HttpClient http, URI uri) {
        try {
            return JSON.readTree(http.send(HttpRequest.newBuilder(uri).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
        } catch (IOException e) {
            return JSON.createObjectNode(); // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return JSON.createObjectNode();
        }
    }
}
