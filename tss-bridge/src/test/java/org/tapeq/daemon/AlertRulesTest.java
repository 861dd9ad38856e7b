package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped alert rules ({@code etc/prometheus/tapeq-alerts.yml}) pass {@code promtool check rules} and their
 * unit tests ({@code promtool test rules}): a drive down, every drive down, a stuck queue, an old request, the
 * catalog lost, the daemon gone, a slow loop, errors and failures fire, and a moving queue does not. Skipped
 * when promtool (Debian's package {@code prometheus}) is not installed.
 */
class AlertRulesTest {

    static final Path RULES = Path.of("src/main/dist/etc/prometheus/tapeq-alerts.yml");
    private static final Path TESTS = Path.of("src/test/resources/prometheus/tapeq-alerts-test.yml");

    @TempDir
    Path tmp;

    @Test
    void alertRules_passPromtoolCheckAndTheirUnitTests() throws Exception {
        String promtool = onPath("promtool");
        assumeTrue(promtool != null, "promtool is not installed (apt-get install prometheus); alert rules not tested");
        Files.copy(RULES, tmp.resolve("tapeq-alerts.yml"));
        Files.copy(TESTS, tmp.resolve("tapeq-alerts-test.yml"));
        run(List.of(promtool, "check", "rules", "tapeq-alerts.yml"));
        run(List.of(promtool, "test", "rules", "tapeq-alerts-test.yml"));
    }

    private void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(tmp.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        System.out.println(String.join(" ", command) + ":\n" + out);
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
    }

    /** The executable's path if it is on the PATH, else null. */
    static String onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
