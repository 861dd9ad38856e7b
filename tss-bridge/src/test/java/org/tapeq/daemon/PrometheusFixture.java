package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A real Prometheus (Debian's package {@code prometheus}) for tests: scrapes one daemon as job "tapeq" every second,
 * evaluates the given rule file every second, listens on a free loopback port and is asked through its HTTP API.
 */
final class PrometheusFixture implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final HttpClient http = HttpClient.newHttpClient();
    final URI base;

    /** The prometheus executable on the PATH, or null if it is not installed. */
    static String binary() {
        return AlertRulesTest.onPath("prometheus");
    }

    /** Starts Prometheus in {@code dir} with a copy of {@code rules}, scraping the daemon's HTTP port. */
    PrometheusFixture(String binary, Path dir, Path rules, int daemonPort) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Files.createDirectories(dir);
        Files.copy(rules, dir.resolve("tapeq-alerts.yml"));
        Files.writeString(dir.resolve("prometheus.yml"), String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  evaluation_interval: 1s",
                "rule_files: [tapeq-alerts.yml]",
                "scrape_configs:",
                "  - job_name: tapeq",
                "    static_configs:",
                "      - targets: ['127.0.0.1:" + daemonPort + "']",
                ""));
        process = new ProcessBuilder(binary, "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        base = URI.create("http://127.0.0.1:" + port + "/");
    }

    /** The number of series the instant query returns (0 while Prometheus does not answer yet). */
    int count(String expr) {
        JsonNode r = api("query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
        assertEquals("success", r.path("status").asText("success"), expr + ": " + r);
        return r.path("data").path("result").size();
    }

    /** The alerts Prometheus holds now, pending and firing ({@code /api/v1/alerts}). */
    JsonNode alerts() {
        return api("alerts").path("data").path("alerts");
    }

    /** The state ("pending", "firing") of the alert whose labels include {@code labels}, or "" if there is none. */
    String alertState(String alertname, String... labels) {
        for (JsonNode a : alerts()) {
            JsonNode l = a.path("labels");
            boolean match = alertname.equals(l.path("alertname").asText());
            for (int i = 0; i + 1 < labels.length; i += 2) {
                match &= labels[i + 1].equals(l.path(labels[i]).asText());
            }
            if (match) {
                return a.path("state").asText();
            }
        }
        return "";
    }

    /** The answer of {@code /api/v1/<path>}, an empty object while Prometheus does not listen yet. */
    JsonNode api(String path) {
        try {
            return JSON.readTree(http.send(HttpRequest.newBuilder(base.resolve("api/v1/" + path)).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
        } catch (IOException e) {
            return JSON.createObjectNode();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return JSON.createObjectNode();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
