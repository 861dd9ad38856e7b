package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.scheduler.engine.Tuning;

/** SIGHUP: the reloadable scheduling keys are taken over, the others named; a bad file changes nothing. */
class HangupReloadTest {

    @TempDir
    Path tmp;

    private DaemonFixture f;
    private HangupReload reload;
    private Path file;

    @BeforeEach
    void start() throws Exception {
        f = new DaemonFixture(tmp.resolve("daemon"), "");
        f.start();
        file = f.root.resolve("tapeq.yaml");
        reload = new HangupReload(f.daemon, file);
    }

    @AfterEach
    void stop() {
        reload.close();
        f.close();
    }

    private Tuning tuning() throws Exception {
        return f.daemon.scheduler().tuning().get(30, TimeUnit.SECONDS);
    }

    /** The running file with the aggregate wait and attempts changed (reloadable), the HTTP bind and dwell too. */
    private void editFile() throws Exception {
        String yaml = Files.readString(file);
        Files.writeString(file, yaml.replace("aggregateWait: 20s", "aggregateWait: 5m\n  maxAttempts: 7")
                .replace("dwell: 10s", "dwell: 11s").replace("bind: 127.0.0.1:0", "bind: 127.0.0.1:1"));
    }

    @Test
    void reload_changedKeys_takesOverTheReloadableOnesAndNamesTheOthers() throws Exception {
        editFile();
        String said = reload.reload();
        assertTrue(said.contains("in effect scheduler.aggregateWait, scheduler.maxAttempts"), said);
        assertTrue(said.contains("need a restart) http.bind, scheduler.dwell"), said);

        // The same file again: the reloadable keys are in effect already, the others still need a restart.
        DaemonConfig.Changes changes = f.daemon.reload(DaemonConfig.load(file));
        assertEquals(List.of(), changes.reloaded());
        assertEquals(List.of("http.bind", "scheduler.dwell"), changes.restart());
        Tuning t = tuning();
        assertEquals(300_000, t.aggregateWaitMillis());
        assertEquals(7, t.maxAttempts());
    }

    @Test
    void reload_revertedAfterAReload_takesTheRevertedKeysOver() throws Exception {
        String original = Files.readString(file);
        editFile();
        assertTrue(reload.reload().contains("in effect scheduler.aggregateWait, scheduler.maxAttempts"));
        Files.writeString(file, original);
        String said = reload.reload();
        assertTrue(said.contains("in effect scheduler.aggregateWait, scheduler.maxAttempts"), said);
        assertTrue(said.contains("need a restart) none"), said);
        assertEquals(3, tuning().maxAttempts());
    }

    @Test
    void reload_aggregateBytesOverHalfTheStageBuffer_warns() throws Exception {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        ch.qos.logback.classic.Logger daemonLog = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Daemon.class);
        log.start();
        daemonLog.addAppender(log);
        try {
            // The default stage buffer is 100 GiB; an aggregate of 60 GB leaves room for one read only.
            Files.writeString(file, Files.readString(file).replace("aggregateWait: 20s",
                    "aggregateWait: 20s\n  aggregateBytes: 60GB"));
            String said = reload.reload();
            assertTrue(said.contains("in effect scheduler.aggregateBytes"), said);
            assertTrue(log.list.stream().anyMatch(e -> e.getFormattedMessage().contains(
                    "directories[0].stageBuffer") && e.getFormattedMessage().contains("twice scheduler.aggregateBytes")),
                    log.list.toString());
        } finally {
            daemonLog.detachAppender(log);
        }
    }

    @Test
    void reload_invalidFile_changesNothingAndSaysWhy() throws Exception {
        Tuning before = tuning();
        Files.writeString(file, Files.readString(file).replace("aggregateWait: 20s", "aggregateWait: 5m\n"
                + "  maxAttempts: lots"));
        String said = reload.reload();
        assertTrue(said.startsWith("Reload refused, nothing changed: "), said);
        assertTrue(said.contains("maxAttempts"), said);
        assertEquals(before, tuning());
    }

    @Test
    void sighup_installedHandler_reloadsAndTheDaemonRuns() throws Exception {
        assertTrue(reload.install(), "the SIGHUP handler is installed");
        editFile();
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start();
        assertEquals(0, kill.waitFor());
        DaemonFixture.await("the reload after SIGHUP", () -> {
            try {
                return tuning().maxAttempts() == 7;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(f.daemon.status(new org.tapeq.daemon.control.StatusPage(0, 10)).scheduler() != null,
                "the daemon still serves");
    }
}
