package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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
    private PrometheusFixture prometheus;

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
        // The metrics read the scheduler's published load (at most 250 ms old): it names the stage's group once
        // published after the stage was queued.
        DaemonFixture.await("the load published with the stage's group", () -> f.daemon.status().load() != null
                && !f.daemon.status().load().groups().isEmpty());
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (prometheus != null) {
            prometheus.close();
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
        String binary = PrometheusFixture.binary();
        org.junit.jupiter.api.Assumptions.assumeTrue(binary != null,
                "prometheus is not installed (apt-get install prometheus); only the selector check ran");
        prometheus = new PrometheusFixture(binary, tmp.resolve("prometheus"), AlertRulesTest.RULES,
                f.daemon.httpAddress().getPort());
        // Five scrapes, so that every rate over the last minute has points to work with.
        DaemonFixture.await("five scrapes of the daemon", () -> prometheus.count(
                "count_over_time(up{job=\"tapeq\"}[1m]) >= 5") > 0);
        f.daemon.scheduler().driveDown("drive1", "for the alert").get(30, TimeUnit.SECONDS);

        for (String q : queries()) {
            String expr = q.replace("$__rate_interval", "1m").replace("$instance", ".*");
            int n = prometheus.count(expr);
            assertTrue(n > 0, "no data for the dashboard query " + expr);
        }
        DaemonFixture.await("TapeqDriveDown pending or firing for drive1",
                () -> !prometheus.alertState("TapeqDriveDown", "drive", "drive1").isEmpty());
    }
}
