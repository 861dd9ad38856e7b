package org.tapeq.daemon;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's chromium, headless, driven through chromedriver by Selenium, for the tests that look at a page in a real
 * browser; and where their screenshots go.
 */
final class HeadlessChromium {

    static final String CHROMIUM = System.getProperty("tapeq.chromium", "/usr/bin/chromium");
    static final String CHROMEDRIVER = System.getProperty("tapeq.chromedriver", "/usr/bin/chromedriver");
    /**
     * A directory to write the screenshots to as well, e.g. {@code docs/img} (a relative one is taken from the top of
     * the source tree); without it they go to {@code target/} only, so that a build does not rewrite the docs.
     */
    static final String SCREENSHOTS = "tapeq.screenshots";

    private HeadlessChromium() {
    }

    /** Skips the calling test unless chromium and chromedriver are installed. */
    static void assumeInstalled(String what) {
        assumeTrue(Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(CHROMEDRIVER)),
                "chromium or chromedriver is not installed (apt-get install chromium chromium-driver): " + what);
    }

    /** A headless browser with its profile and chromedriver's log in {@code tmp}; the caller quits it. */
    static ChromeDriver start(Path tmp) throws IOException {
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM).addArguments("--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1400,1300",
                "--user-data-dir=" + Files.createDirectories(tmp.resolve("chromium")));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort()
                .withLogFile(tmp.resolve("chromedriver.log").toFile()).build();
        return new ChromeDriver(service, options);
    }

    /** Saves the browser's view as {@code target/<name>}, and in the directory of {@value #SCREENSHOTS} if set. */
    static void screenshot(ChromeDriver browser, String name) throws IOException {
        byte[] png = browser.getScreenshotAs(OutputType.BYTES);
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target", name), png);
        String dir = System.getProperty(SCREENSHOTS, "");
        if (!dir.isBlank()) {
            Path top = Path.of("").toAbsolutePath().getParent(); // tests run in the module's directory
            Path out = top.resolve(dir).resolve(name);
            Files.createDirectories(out.getParent());
            Files.write(out, png);
        }
    }
}
