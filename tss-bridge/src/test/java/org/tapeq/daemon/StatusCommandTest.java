package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.cli.TapeqCommand;
import org.tapeq.daemon.config.DaemonConfig;
import picocli.CommandLine;

/**
 * {@code tapeq status} and {@code tapeq cartridge list} as an operator reads them, from a running daemon through
 * its control socket: no JSON in the text, sizes in SI units only, each reason once, user files counted.
 */
class StatusCommandTest {

    private static final String REASON = "for the status test";

    @TempDir
    Path tmp;

    private DaemonFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new DaemonFixture(tmp.resolve("daemon"), "");
        // One aggregate for the flushes below: it closes an hour of library time (1.8 s) after its first file.
        Path config = f.root.resolve("tapeq.yaml");
        Files.writeString(config, f.yaml().replace("aggregateWait: 20s", "aggregateWait: 1h"));
        f.daemon = Daemon.start(DaemonConfig.load(config));
        f.labelAll();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    /** Runs the command line as {@code tapeq ARGS --socket=...}, which prints on standard output. */
    private String tapeq(String... args) {
        CommandLine cl = TapeqCommand.commandLine();
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--socket=" + f.root.resolve("state").resolve(Daemon.CONTROL_SOCKET));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, cl.execute(all.toArray(String[]::new)), "tapeq " + all);
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void status_driveDownAndQueueWaiting_isTextWithOneUnitSystemAndEachReasonOnce() throws Exception {
        byte[] data = DaemonFixture.randomBytes(3_000_000);
        String id = f.onTape(data);
        f.daemon.scheduler().driveDown("drive0", REASON).get(30, TimeUnit.SECONDS);
        f.daemon.scheduler().driveDown("drive1", REASON).get(30, TimeUnit.SECONDS);
        f.stage(id, data.length, DaemonFixture.adler32(data), true);
        // the drive that held the cartridge unloads it before it is down: the text is read once both are
        // (in the status tapeq status reads: the scheduler's last published one)
        DaemonFixture.await("the stage queued and both drives down", () -> f.daemon.status().scheduler().queueCount()
                == 1 && f.daemon.status().scheduler().drives().stream().allMatch(d -> d.state().equals("down")));

        String text = tapeq("status");
        assertFalse(text.contains("{") || text.contains("}"), "JSON in the text:\n" + text);
        assertFalse(Pattern.compile("\\d\\s*[KMGTP]iB").matcher(text).find(), "binary units:\n" + text);
        assertFalse(Pattern.compile("\\d{4,} bytes").matcher(text).find(), "raw byte counts:\n" + text);
        assertEquals(2, count(text, REASON), "the reason once per drive:\n" + text);
        assertEquals(1, count(text, "every drive is down"), "the queue's reason once:\n" + text);
        assertTrue(text.contains("requests: 1 queued"), text);
        assertTrue(text.contains("cartridges: 4 appendable"), text);
        assertNull(f.error(id));
    }

    @Test
    void cartridgeList_threeFilesInOneAggregate_countsThreeFiles() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = DaemonFixture.newPnfsId();
            f.flush(id, DaemonFixture.randomBytes(10_000), true);
            ids.add(id);
        }
        for (String id : ids) {
            assertNull(f.awaitFlush(id), "flush of " + id);
        }
        String text = tapeq("cartridge", "list");
        Matcher row = Pattern.compile("(?m)^(\\S+)\\s+\\S+\\s+atlas\\s+\\S+\\s+(\\d+)\\s+(\\d+)\\s").matcher(text);
        long files = 0;
        long tapeFiles = 0;
        while (row.find()) {
            files += Long.parseLong(row.group(2));
            tapeFiles += Long.parseLong(row.group(3));
        }
        assertEquals(3, files, "user files:\n" + text);
        assertEquals(1, tapeFiles, "one aggregate:\n" + text);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
