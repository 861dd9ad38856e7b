package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
        DaemonConfig.Changes changes = f.daemon.reload(DaemonConfig.load(file));
        assertEquals(List.of("scheduler.aggregateWait", "scheduler.maxAttempts"), changes.reloaded());
        assertEquals(List.of("http.bind", "scheduler.dwell"), changes.restart());

        String said = reload.reload();
        assertTrue(said.contains("in effect scheduler.aggregateWait, scheduler.maxAttempts"), said);
        assertTrue(said.contains("need a restart) http.bind, scheduler.dwell"), said);
        Tuning t = tuning();
        assertEquals(300_000, t.aggregateWaitMillis());
        assertEquals(7, t.maxAttempts());
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
