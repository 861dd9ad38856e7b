package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.testing.postgres.TestSchema;

/**
 * {@code tapeq demo --hosts 3 --json}, small, as a user runs it (the tapeq command in a JVM of its own, which starts
 * the hosts' processes): the local PostgreSQL server (TAPEQ_TEST_POSTGRES_URL, else 127.0.0.1:5432 as user
 * postgres; skipped if none answers) gets a fresh database for the run. The demo kills mover m1 with SIGKILL in the
 * middle of the flushes and the active scheduler in the middle of the stages; every file must come back byte for
 * byte, nothing may be done twice, no cartridge mounted in two drives, and the standby must have taken over.
 */
@Tag("slow")
class DemoHostsIT {

    private static final int FILES = 80;
    private static final long TIMEOUT_SECONDS = 900;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    @Test
    void threeHosts_moverAndActiveSchedulerKilled_everyFileBack_nothingTwice_aFailover() throws Exception {
        String server = System.getenv("TAPEQ_TEST_POSTGRES_URL");
        server = server == null || server.isBlank() ? TestSchema.DEFAULT_URL : server;
        assumeTrue(reachable(server), "PostgreSQL not reachable at " + server);
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path out = tmp.resolve("demo.out");
        Path err = tmp.resolve("demo.err");
        Process demo = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), "-Xmx512m",
                "org.tapeq.daemon.cli.TapeqCommand", "demo", "--hosts", "3", "--files", String.valueOf(FILES),
                "--max-size", "4000000", "--json", "--dir", tmp.resolve("demo").toString(),
                "--catalog-url", server, "--timeout", String.valueOf(TIMEOUT_SECONDS - 60)))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!demo.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            // its daemons, movers and library first: killed after the demo, they would be orphaned
            demo.descendants().forEach(ProcessHandle::destroyForcibly);
            demo.destroyForcibly();
            throw new AssertionError("the demo did not end within " + TIMEOUT_SECONDS + " s; see " + err);
        }
        List<String> lines = Files.readAllLines(out);
        System.out.println("[DemoHostsIT] " + String.join("\n[DemoHostsIT] ", lines));
        assertTrue(!lines.isEmpty() && lines.get(lines.size() - 1).startsWith("{"), "no JSON line; see " + err);
        JsonNode r = new ObjectMapper().readTree(lines.get(lines.size() - 1));
        String all = r.toString();
        assertEquals(FILES, r.path("files").asInt(), all);
        assertEquals(FILES, r.path("flushed").asInt(), all);
        assertEquals(FILES, r.path("verified").asInt(), all);
        assertEquals(0, r.path("lost").asInt(-1), all);
        assertEquals(0, r.path("checksum_errors").asInt(-1), all);
        assertEquals(0, r.path("duplicates").asInt(-1), all);
        assertEquals(0, r.path("double_mounts").asInt(-1), all);
        assertEquals(0, r.path("spi_violations").asInt(-1), all);
        assertEquals(1, r.path("mover_kills").asInt(), "m1 killed in the middle of the flushes: " + all);
        assertTrue(r.path("mover_kill_during").isTextual(), "m1 killed while a drive of it mounted or wrote: " + all);
        assertTrue(r.path("failovers").asInt() >= 1, "the standby took over: " + all);
        assertTrue(r.path("failover_s").asDouble() > 0, all);
        assertEquals(List.of("host1", "host2", "host3"), iterate(r.path("hosts")), all);
        assertEquals(0, demo.exitValue(), "the demo's exit status; see " + err);
    }

    private static List<String> iterate(JsonNode hosts) {
        List<String> names = new java.util.ArrayList<>();
        hosts.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static boolean reachable(String url) {
        try (Connection c = DriverManager.getConnection(url + (url.contains("?") ? "&" : "?") + "connectTimeout=3")) {
            return c.isValid(3);
        } catch (SQLException e) {
            return false;
        }
    }
}
