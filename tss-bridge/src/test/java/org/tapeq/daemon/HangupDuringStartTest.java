package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.cli.TapeqCommand;

/**
 * {@code systemctl reload} while the daemon still starts (waiting for its catalog): the hangup is refused and
 * logged, and the daemon goes on waiting. Before, the JVM's own SIGHUP handler stopped it (exit 129).
 */
class HangupDuringStartTest {

    @TempDir
    Path tmp;

    private Process daemon;

    @AfterEach
    void stop() throws Exception {
        if (daemon != null) {
            daemon.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void sighup_whileTheCatalogIsWaitedFor_isRefusedAndTheDaemonRuns() throws Exception {
        DaemonFixture f = new DaemonFixture(tmp.resolve("daemon"), String.join("\n",
                "catalog:",
                "  url: \"jdbc:postgresql://127.0.0.1:1/nothing-listens-here\""));
        Path config = Files.writeString(tmp.resolve("tapeq.yaml"), f.yaml());
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        daemon = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                TapeqCommand.class.getName(), "daemon", "--config", config.toString())).redirectErrorStream(true)
                .start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(daemon.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (Exception e) {
                lines.add("reader: " + e);
            }
        }, "test-daemon-output");
        reader.setDaemon(true);
        reader.start();

        awaitLine(lines, "Catalog unreachable at start");
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(daemon.pid())).start();
        assertEquals(0, kill.waitFor());
        awaitLine(lines, "the daemon is not started yet");
        assertTrue(daemon.isAlive(), "the daemon survived the hangup");
    }

    private void awaitLine(BlockingQueue<String> lines, String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        StringBuilder seen = new StringBuilder();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null) {
                seen.append(line).append('\n');
                if (line.contains(text)) {
                    return;
                }
            } else if (!daemon.isAlive()) {
                fail("the daemon ended (exit " + daemon.exitValue() + ") before logging '" + text + "':\n" + seen);
            }
        }
        fail("no line '" + text + "' within 60 s:\n" + seen);
    }
}
