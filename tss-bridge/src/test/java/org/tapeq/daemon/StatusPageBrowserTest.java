package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;

/**
 * The status page in a real browser: Debian's chromium, headless, driven through chromedriver by Selenium. A
 * daemon on the simulated library serves the page; the test stages a file whose tape copy reads back with a wrong
 * byte, takes the drives down (one with a reason that looks like HTML), queues a stage, and waits until the page,
 * by its own refresh and without being reloaded, shows the checksum fault with its time, drive and cartridge, the
 * drive down with its reason as plain text and the queue with the reason it waits. A library with more cartridges
 * than the page lists says how many it shows of how many. A repack asked for while the drives are down is listed
 * under background work waiting, with nothing done, then done, with nothing left, beside a verification. Skipped
 * only when chromium or chromedriver is not installed ({@code apt-get install chromium chromium-driver};
 * {@code .ci/run} does). Leaves a screenshot in
 * {@code target/status-page.png}; with {@code -Dtapeq.screenshots=docs/img} it rewrites docs/img/status-page.png.
 */
class StatusPageBrowserTest {

    /**
     * A reason a browser would render as bold text and an image whose error handler runs if the page took it as
     * HTML (a {@code <script>} inserted as HTML is never run, so it would prove nothing).
     */
    static final String HTML_REASON = "<b>robot arm</b> & <img src=x onerror=\"window.injected=1\">";

    @TempDir
    Path tmp;

    private DaemonFixture f;
    private ChromeDriver browser;

    @BeforeEach
    void start() throws Exception {
        HeadlessChromium.assumeInstalled("the status page is not tested in a browser");
        f = new DaemonFixture(tmp.resolve("daemon"), "");
    }

    private void open(String query) throws Exception {
        f.start();
        browser = HeadlessChromium.start(tmp);
        browser.get("http://127.0.0.1:" + f.daemon.httpAddress().getPort() + "/" + query);
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (f != null) {
            f.close();
        }
    }

    @Test
    void statusPage_faultDriveDownAndQueueWaiting_showsThemAfterItsOwnRefresh() throws Exception {
        OffsetDateTime started = OffsetDateTime.now().minusSeconds(2); // the page's times are whole seconds
        open("?refresh=1");
        f.labelAll();
        byte[] data = DaemonFixture.randomBytes(100_000);
        String id = f.onTape(data);
        DaemonFixture.await("the page shows drive0", () -> cell("drives", "drive0", 0) != null);
        assertTrue(!"down".equals(driveCell("drive0", 1)), "drive0 is in service at first");
        assertEquals(List.of(List.of("none")), rows("recent-faults").subList(1, 2), "no fault yet");

        // A file whose tape copy reads back with one byte inverted: each read of it is a checksum fault.
        byte[] other = DaemonFixture.randomBytes(100_000);
        String bad = f.onTape(other);
        FileRecord where = f.daemon.catalog().file(bad).orElseThrow();
        ((SimulatedLibrary) f.daemon.library()).faults().corruptByte(where.cartridge(), where.tapeFile(),
                where.offset() + 500);
        f.stage(bad, other.length, DaemonFixture.adler32(other), true);
        DaemonFixture.await("the page lists the checksum fault", () -> rows("recent-faults").stream()
                .anyMatch(r -> r.size() == 5 && r.get(1).equals("checksum")));
        List<String> fault = rows("recent-faults").stream().filter(r -> r.size() == 5 && r.get(1).equals("checksum"))
                .findFirst().orElseThrow();
        OffsetDateTime at = OffsetDateTime.parse(fault.get(0)); // ISO 8601 with the zone offset
        assertFalse(at.isBefore(started) || at.isAfter(OffsetDateTime.now().plusSeconds(1)),
                "the fault's time " + at + " is when it happened (after " + started + ", not in the future)");
        assertTrue(fault.get(2).matches("drive[01]"), "the drive that read it: " + fault);
        assertEquals(where.cartridge(), fault.get(3), "the cartridge: " + fault);
        assertTrue(fault.get(4).contains(bad) && fault.get(4).contains("catalog has"), "the reason: " + fault);
        assertTrue(browser.findElement(By.id("recent-faults-note")).getText().contains("newest first"));
        assertTrue(f.awaitStageError(bad) != null, "the stage failed after its attempts");
        String firstRefresh = browser.findElement(By.id("updated")).getText();

        f.daemon.scheduler().driveDown("drive0", HTML_REASON).get(30, TimeUnit.SECONDS);
        f.daemon.scheduler().driveDown("drive1", "cleaning").get(30, TimeUnit.SECONDS);
        f.stage(id, data.length, DaemonFixture.adler32(data), true);

        DaemonFixture.await("the page shows drive0 down", () -> "down".equals(driveCell("drive0", 1)));
        DaemonFixture.await("the page shows the stage's queue waiting because every drive is down", () ->
                queueRows().stream().anyMatch(r -> r.contains("every drive is down")));
        assertNotEquals(firstRefresh, browser.findElement(By.id("updated")).getText(), "the page refreshed");
        // The reason is text: no element was made from it and its handler did not run (taken as HTML, the image
        // fails to load at once and its onerror sets window.injected; the queue's wait above spans a refresh).
        assertTrue(browser.findElements(By.cssSelector("#drives b, #drives img")).isEmpty(),
                "markup from a reason became elements");
        assertNull(browser.executeScript("return window.injected;"), "a script from a reason ran");
        assertTrue(driveCell("drive0", 3).contains(HTML_REASON), "the reason as text: " + driveCell("drive0", 3));
        assertEquals(1, String.join(" ", rows("drives").stream().filter(r -> r.get(0).equals("drive0")).findFirst()
                .orElseThrow()).split(java.util.regex.Pattern.quote(HTML_REASON), -1).length - 1, "the reason once");
        assertTrue(browser.findElement(By.id("load")).getText().contains("atlas"), "the family's waiting work");
        assertTrue(browser.findElement(By.id("cartridges")).getText().contains("atlas"), "the cartridges");
        assertTrue(browser.findElement(By.id("cartridges-note")).getText().startsWith("showing 4 of 4 cartridge(s)"),
                browser.findElement(By.id("cartridges-note")).getText());

        HeadlessChromium.screenshot(browser, "status-page.png");
        assertNull(f.error(id), "the stage waits, it did not fail");
    }

    @Test
    void statusPage_moreCartridgesThanItLists_saysHowManyItShowsOfHowMany() throws Exception {
        f.cartridges = 130;
        open("?refresh=1");
        DaemonFixture.await("the page lists the cartridges", () -> rows("cartridges").size() > 1);
        assertEquals("showing 100 of 130 cartridge(s) (130 unknown)",
                browser.findElement(By.id("cartridges-note")).getText());
        assertEquals(101, rows("cartridges").size(), "a header and the first 100");
        assertTrue(browser.findElement(By.id("queues-note")).getText().startsWith("showing 0 of 0 queue(s) with work"),
                browser.findElement(By.id("queues-note")).getText());
    }

    @Test
    void statusPage_repackWaitingThenDone_listedWithItsProgress_thenAVerification() throws Exception {
        open("?refresh=1");
        f.labelAll();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(f.onTape(DaemonFixture.randomBytes(200_000 + i)));
        }
        String source = f.daemon.catalog().file(ids.get(0)).orElseThrow().cartridge();
        List<String> onSource = ids.stream().filter(id -> f.daemon.catalog().file(id).orElseThrow().cartridge()
                .equals(source)).toList();
        long bytes = onSource.stream().mapToLong(id -> f.daemon.catalog().file(id).orElseThrow().size()).sum();
        int n = onSource.size();
        DaemonFixture.await("the page lists no background job yet", () -> rows("background").size() == 2
                && rows("background").get(1).equals(List.of("none")));

        // Queued with every drive down, the repack waits for one: the page shows it waiting, nothing done.
        f.drivesDown();
        f.control("cartridge-repack", List.of(source, "-"));
        DaemonFixture.await("the page lists the repack waiting for a drive", () -> {
            List<String> r = row("background", "repack");
            return r != null && r.get(2).equals("queued");
        });
        assertEquals(List.of("repack", source, "queued", "0.0 %", "0 files of " + n + " files, 0 B of " + size(bytes),
                n + " files, " + size(bytes), "to family atlas"), row("background", "repack"));
        DaemonFixture.await("the note counts it waiting", () -> browser.findElement(By.id("background-note"))
                .getText().contains("1 waiting for a drive"));

        // With the drives back it runs to its end: everything moved, nothing left, the source emptied.
        f.drivesUp();
        DaemonFixture.await("the page shows the repack done", () -> {
            List<String> r = row("background", "repack");
            return r != null && r.get(2).equals("done");
        });
        List<String> done = row("background", "repack");
        assertEquals(List.of("repack", source, "done", "100.0 %", n + " files of " + n + " files, " + size(bytes)
                + " of " + size(bytes), "0 files, 0 B"), done.subList(0, 6));
        // its mean rate from the request to the end, in whatever unit suits it
        assertTrue(done.get(6).matches("to family atlas; [0-9.]+ [kMG]?B/s since asked for; source EMPTY"),
                done.toString());

        // A verification is listed beside it, with its own counts.
        String target = f.daemon.catalog().file(onSource.get(0)).orElseThrow().cartridge();
        f.control("cartridge-verify", List.of(target, "0"));
        DaemonFixture.await("the page shows the verification done", () -> {
            List<String> r = row("background", "verification");
            return r != null && r.get(2).equals("done");
        });
        List<String> verify = row("background", "verification");
        assertEquals(target, verify.get(1), verify.toString());
        assertTrue(verify.get(4).matches("(\\d+) aggregates of \\1 aggregates"), verify.toString());
        assertEquals("0 aggregates", verify.get(5), verify.toString());
        assertTrue(verify.get(6).matches("\\d+ good, 0 unchecked, 0 bad, 0 unreadable"), verify.toString());
        assertTrue(Integer.parseInt(verify.get(6).split(" ")[0]) >= n, "the moved files verified: " + verify);
        assertEquals(3, rows("background").size(), "a header, the repack and the verification");
        HeadlessChromium.screenshot(browser, "status-page-background.png");
    }

    /** Bytes under a megabyte as the page writes them (decimal units, one decimal). */
    private static String size(long bytes) {
        return bytes < 1000 ? bytes + " B" : String.format(java.util.Locale.ROOT, "%.1f kB", bytes / 1000.0);
    }

    /** The cells of the first row of a table whose first cell is {@code first}, or null. */
    private List<String> row(String table, String first) {
        return rows(table).stream().filter(r -> !r.isEmpty() && r.get(0).equals(first)).findFirst().orElse(null);
    }

    /** The text of column {@code col} in the drives table's row of {@code drive}, or "" if there is none. */
    private String driveCell(String drive, int col) {
        String text = cell("drives", drive, col);
        return text == null ? "" : text;
    }

    private String cell(String table, String first, int col) {
        for (List<String> row : rows(table)) {
            if (row.size() > col && first.equals(row.get(0))) {
                return row.get(col);
            }
        }
        return null;
    }

    private List<String> queueRows() {
        return rows("queues").stream().map(r -> String.join(" | ", r)).toList();
    }

    /**
     * The cells' text of each row of a table, read in one script: the page replaces its rows at each refresh, so
     * elements found one call earlier may be gone.
     */
    @SuppressWarnings("unchecked")
    private List<List<String>> rows(String table) {
        return (List<List<String>>) browser.executeScript("return Array.from(document.querySelectorAll('#' + "
                + "arguments[0] + ' tr')).map(r => Array.from(r.cells).map(c => c.textContent));", table);
    }
}
