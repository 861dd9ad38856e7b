package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The shipped alert rules fire on a running daemon: a real Prometheus (Debian's package {@code prometheus}) scrapes
 * a daemon on the simulated library that wrote a file before, both drives are taken down and a stage of the file
 * waits, and Prometheus reports
 * {@code TapeqDriveDown} and {@code TapeqQueueStuck} firing through its HTTP API. Prometheus then evaluates a copy of
 * {@code etc/prometheus/tapeq-alerts.yml} whose {@code for:} durations are 2 s instead of minutes or an hour; the
 * test checks that the copy differs from the shipped file in those lines only, so every expression, label and
 * annotation is the shipped one. With chromium installed it opens Prometheus' own {@code /alerts} page and saves
 * {@code target/alerts-firing.png} ({@code -Dtapeq.screenshots=docs/img} rewrites docs/img/alerts-firing.png).
 * Skipped when Prometheus is not installed.
 */
class AlertsFiringTest {

    private static final Pattern FOR = Pattern.compile("^(\\s+for: )\\S+$");

    @TempDir
    Path tmp;

    private DaemonFixture f;
    private PrometheusFixture prometheus;
    private ChromeDriver browser;

    @AfterEach
    void stop() throws InterruptedException {
        if (browser != null) {
            browser.quit();
        }
        if (prometheus != null) {
            prometheus.close();
        }
        if (f != null) {
            f.close();
        }
    }

    /** The shipped rules with every {@code for:} set to {@code wait}; nothing else changed. */
    static List<String> shortened(List<String> shipped, String wait) {
        List<String> out = new ArrayList<>();
        for (String line : shipped) {
            var m = FOR.matcher(line);
            out.add(m.matches() ? m.group(1) + wait : line);
        }
        return out;
    }

    @Test
    void shippedRules_driveDownAndQueueStuck_fireInARealPrometheus() throws Exception {
        String binary = PrometheusFixture.binary();
        assumeTrue(binary != null, "prometheus is not installed (apt-get install prometheus): alerts not fired");
        List<String> shipped = Files.readAllLines(AlertRulesTest.RULES);
        List<String> copy = shortened(shipped, "2s");
        assertEquals(shipped.size(), copy.size());
        int changed = 0;
        for (int i = 0; i < shipped.size(); i++) {
            if (!shipped.get(i).equals(copy.get(i))) {
                assertTrue(FOR.matcher(shipped.get(i)).matches(), "only for: lines differ: " + shipped.get(i));
                changed++;
            }
        }
        assertTrue(changed >= 2, "the rules have for: durations to shorten: " + changed);
        Path rules = Files.write(tmp.resolve("tapeq-alerts-short.yml"), copy);

        f = new DaemonFixture(tmp.resolve("daemon"), "");
        f.start();
        f.labelAll();
        byte[] data = DaemonFixture.randomBytes(100_000);
        String id = f.onTape(data); // written before Prometheus watches: no byte moves while it does
        f.daemon.scheduler().driveDown("drive0", "robot arm jammed").get(30, TimeUnit.SECONDS);
        f.daemon.scheduler().driveDown("drive1", "cleaning").get(30, TimeUnit.SECONDS);
        prometheus = new PrometheusFixture(binary, tmp.resolve("prometheus"), rules, f.daemon.httpAddress().getPort());
        f.stage(id, data.length, DaemonFixture.adler32(data), true);

        DaemonFixture.await("TapeqDriveDown firing for drive0",
                () -> "firing".equals(prometheus.alertState("TapeqDriveDown", "drive", "drive0")));
        DaemonFixture.await("TapeqQueueStuck firing",
                () -> "firing".equals(prometheus.alertState("TapeqQueueStuck", "job", "tapeq")));
        assertNull(f.error(id), "the stage waits, it did not fail");
        assertTrue(prometheus.count("tapeq_group_queued_files{group=\"atlas\"} > 0") > 0, "the stage is queued");

        if (Files.isExecutable(Path.of(HeadlessChromium.CHROMIUM))
                && Files.isExecutable(Path.of(HeadlessChromium.CHROMEDRIVER))) {
            browser = HeadlessChromium.start(tmp);
            // Debian's package serves Prometheus' own alerts page as /classic/alerts (its build has no React UI).
            browser.get(prometheus.base.resolve("classic/alerts").toString());
            DaemonFixture.await("the alerts page lists TapeqQueueStuck active", () ->
                    browser.findElement(By.tagName("body")).getText().contains("TapeqQueueStuck (1 active)"));
            // Inactive rules hidden, the firing ones opened: their labels, state and the rule itself show.
            browser.findElement(By.cssSelector("label:has(#inactiveAlerts)")).click();
            for (var header : browser.findElements(By.cssSelector("tr.alert-danger.alert_header"))) {
                header.click();
            }
            browser.manage().window().setSize(new Dimension(1400, 2200));
            browser.executeScript("window.scrollTo(0, 0);");
            String text = browser.findElement(By.id("alertsTable")).getText();
            assertTrue(text.contains("alertname=\"TapeqQueueStuck\"") && text.contains("drive=\"drive0\""),
                    "the firing alerts opened: " + text);
            HeadlessChromium.screenshot(browser, "alerts-firing.png");
        }
    }
}
