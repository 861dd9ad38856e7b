package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.tapeq.daemon.control.ControlProtocol;
import org.tapeq.daemon.control.StatusPage;
import org.tapeq.daemon.metrics.StateMetrics;

/** What an operator alerts on and reads: the metrics a scrape shows, the log lines, the times in the status. */
class ObservabilityTest {

    @TempDir
    Path tmp;

    private DaemonFixture f;
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private ch.qos.logback.classic.Logger tapeqLogger;

    @BeforeEach
    void start() throws Exception {
        tapeqLogger = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger("org.tapeq");
        log.start();
        tapeqLogger.addAppender(log);
        f = new DaemonFixture(tmp, "");
        f.start();
        f.labelAll();
    }

    @AfterEach
    void stop() {
        f.close();
        tapeqLogger.detachAppender(log);
    }

    @Test
    void alertSeries_existAtZeroBeforeAnythingHappens() throws Exception {
        Scrape s = Scrape.of(f.daemon);
        for (String state : StateMetrics.DRIVE_STATES) {
            s.value("tapeq_drives", "state", state);
            s.value("tapeq_drive_state", "drive", "drive0", "state", state);
        }
        assertEquals(0, s.value("tapeq_drives", "state", "down"));
        assertEquals(1, s.sum("tapeq_drive_state", "drive", "drive0"));
        assertEquals(0, s.value("tapeq_drive_state", "drive", "drive0", "state", "down"));
        for (String state : StateMetrics.CARTRIDGE_STATES) {
            s.value("tapeq_cartridges", "state", state);
        }
        assertEquals(4, s.value("tapeq_cartridges", "state", "appendable"));
        assertEquals(0, s.value("tapeq_cartridges", "state", "suspect"));
        assertEquals(0, s.value("tapeq_background_tasks", "state", "running"));
        assertEquals(0, s.value("tapeq_background_tasks", "state", "waiting"));
        for (String result : List.of("good", "unchecked", "bad", "unreadable")) {
            assertEquals(0, s.value("tapeq_verify_files", "result", result));
        }
        // Labelling the cartridges mounted some; a drive's series exist whatever it did.
        s.value("tapeq_drive_mounts_total", "drive", "drive1");
        s.value("tapeq_mount_duration_seconds_count", "drive", "drive1");
        s.value("tapeq_locate_duration_seconds_count", "drive", "drive1");
        assertEquals(0, s.value("tapeq_drive_errors_total", "drive", "drive1"));
        assertEquals(0, s.value("tapeq_drive_bytes_total", "drive", "drive1", "direction", "read"));
        assertEquals(0, s.value("tapeq_directory_oldest_request_age_seconds", "directory", "test"));
        assertEquals(0, s.value("tapeq_robot_paused"));
        s.value("tapeq_rescan_duration_seconds_count", "directory", "test"); // rescans: one series per directory
        assertEquals(1, s.value("tapeq_build_info", "version", DaemonStatus.currentVersion()));
        assertTrue(s.sum("jvm_memory_used_bytes") > 0, s.text());
        assertFalse(s.find("process_cpu_seconds_total").isEmpty(), s.text());
    }

    @Test
    void flushAndStage_logOneLinePerMountPassAggregateAndUnmount_andCountPerDrive() throws Exception {
        byte[] data = DaemonFixture.randomBytes(200_000);
        String id = f.onTape(data);
        f.stage(id, data.length, DaemonFixture.adler32(data), true);
        assertNull(f.awaitStage(id));
        f.collect(id);
        f.awaitSchedulerQuiet();
        f.daemon.scheduler().unloadIdleDrives().get(30, TimeUnit.SECONDS);
        awaitLog("an unmount line", Level.INFO, "Drive drive\\d: unmounted \\w+ in \\d+\\.\\d s after "
                + "\\d+\\.\\d s in the drive \\(\\d+ files, \\d+ bytes read, \\d+ bytes written\\)");

        awaitLog("a mount line", Level.INFO, "Drive drive\\d: mounted \\w+ in \\d+\\.\\d s");
        awaitLog("the aggregate line", Level.INFO, "Drive drive\\d: wrote an aggregate of family atlas "
                + "\\(dataset \\S+\\) to \\w+ tape file \\d+: "
                + "1 files, \\d+ bytes in \\d+\\.\\d s");
        awaitLog("the pass line", Level.INFO, "Drive drive\\d: read pass on \\w+ ended: 1 files, \\d+ bytes in .*");
        for (ILoggingEvent e : events()) {
            if (e.getFormattedMessage().contains(id)) {
                assertTrue(e.getLevel().toInt() <= Level.DEBUG_INT || e.getLevel().toInt() >= Level.WARN_INT,
                        "a line about one file is DEBUG: " + e);
            }
        }

        Scrape s = Scrape.of(f.daemon);
        assertTrue(s.sum("tapeq_drive_mounts_total") >= 1, s.text());
        assertTrue(s.sum("tapeq_mount_duration_seconds_count") >= 1, s.text());
        assertTrue(s.sum("tapeq_unmount_duration_seconds_count") >= 1, s.text());
        assertTrue(s.sum("tapeq_locate_duration_seconds_count") >= 1, s.text());
        assertTrue(s.sum("tapeq_drive_bytes_total", "direction", "read") >= data.length, s.text());
        assertTrue(s.sum("tapeq_drive_bytes_total", "direction", "write") >= data.length, s.text());
    }

    @Test
    void driveDownByAnAdministrator_isInfoWithTheCaller_andAStuckQueueShowsItsAge() throws Exception {
        Path socket = tmp.resolve("state").resolve(Daemon.CONTROL_SOCKET);
        ControlProtocol.call(socket, "drive-down", List.of("drive1", "cleaning"));
        awaitLog("the control line", Level.INFO, Pattern.quote("Control: drive-down [drive1, cleaning] by user "
                + System.getProperty("user.name")));
        awaitLog("the drive line", Level.INFO, "Drive drive1 out of service: by administrator: cleaning");
        assertTrue(events().stream().noneMatch(e -> e.getLevel() == Level.ERROR), "no ERROR for an admin's down");
        awaitMetric("drive1 down", () -> Scrape.of(f.daemon).value("tapeq_drive_state", "drive", "drive1",
                "state", "down") == 1 && Scrape.of(f.daemon).value("tapeq_drives", "state", "down") == 1);

        byte[] data = DaemonFixture.randomBytes(1000);
        String id = f.onTape(data);
        f.daemon.scheduler().driveDown("drive0", "test").get(30, TimeUnit.SECONDS);
        f.stage(id, data.length, DaemonFixture.adler32(data), true);
        awaitMetric("a stage queued for group atlas", () -> Scrape.of(f.daemon).value("tapeq_group_queued_files",
                "group", "atlas") == 1);
        awaitMetric("its age growing", () -> {
            Scrape s = Scrape.of(f.daemon);
            return s.value("tapeq_group_oldest_request_age_seconds", "group", "atlas") > 0
                    && s.value("tapeq_directory_oldest_request_age_seconds", "directory", "test") > 0
                    && s.value("tapeq_drives", "state", "down") == 2;
        });
    }

    @Test
    void status_hasIsoTimesWithZone_andLoopTimesAsWallClockTimes() throws Exception {
        byte[] data = DaemonFixture.randomBytes(1000);
        f.onTape(data);
        JsonNode st = f.daemon.statusTree(StatusPage.FIRST);
        OffsetDateTime now = OffsetDateTime.parse(st.path("time").asText());
        OffsetDateTime started = OffsetDateTime.parse(st.path("started").asText());
        assertFalse(started.isAfter(now), st.toString());
        assertEquals(st.path("nowMillis").asLong() / 1000, now.toEpochSecond());
        for (JsonNode d : st.path("scheduler").path("drives")) {
            OffsetDateTime since = OffsetDateTime.parse(d.path("sinceTime").asText());
            // Loop time is the library's; 2000 times faster, it would be hours ahead of the wall clock.
            assertFalse(since.isAfter(now.plusSeconds(2)), d + " at " + now);
            assertFalse(since.isBefore(started.minusSeconds(2)), d + " started " + started);
        }
        JsonNode viaSocket = ControlProtocol.call(tmp.resolve("state").resolve(Daemon.CONTROL_SOCKET), "status",
                List.of());
        assertTrue(viaSocket.path("time").isTextual(), viaSocket.toString());
    }

    private interface Check {
        boolean ok() throws Exception;
    }

    private static void awaitMetric(String what, Check check) throws InterruptedException {
        DaemonFixture.await(what, () -> {
            try {
                return check.ok();
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
    }

    private List<ILoggingEvent> events() {
        synchronized (log) {
            return new ArrayList<>(log.list);
        }
    }

    private void awaitLog(String what, Level level, String regex) throws InterruptedException {
        Pattern p = Pattern.compile(regex);
        DaemonFixture.await(what + " (" + regex + ") at " + level, () -> events().stream().anyMatch(
                e -> e.getLevel() == level && p.matcher(e.getFormattedMessage()).matches()));
    }
}
