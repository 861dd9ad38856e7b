package org.tapeq.daemon.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.protocol.RequestDirectory;
import picocli.CommandLine;

/** The command line against a running daemon: status, drives, cartridges, catalog export and import. */
class TapeqCommandTest {

    @TempDir
    Path tmp;

    @Test
    void adminCommands_talkToTheRunningDaemon() throws Exception {
        Path endit = RequestDirectory.create(tmp.resolve("endit")).base();
        Path config = tmp.resolve("tapeq.yaml");
        Files.writeString(config, String.join("\n",
                "directories:", "  - path: " + endit,
                "state: " + tmp.resolve("state"),
                "library:", "  simulated:", "    speed: 1000", "    drives: 2", "    cartridges: 3",
                "http:", "  bind: off", ""));
        Daemon daemon = Daemon.start(DaemonConfig.load(config));
        try {
            String c = config.toString();
            Run label = run("cartridge", "label", "TQ0000L9", "atlas", "-c", c);
            assertEquals(0, label.code, label.err);

            Run status = run("status", "-c", c);
            assertEquals(0, status.code, status.err);
            assertTrue(status.out.contains("directory endit"), status.out);
            assertTrue(status.out.contains("drive0"), status.out);

            assertEquals(0, run("drive", "down", "drive1", "--reason", "cleaning", "-c", c).code);
            assertTrue(run("status", "--json", "-c", c).out.contains("cleaning"));
            assertEquals(0, run("drive", "up", "drive1", "-c", c).code);
            // the unload itself is the scheduler's (SchedulerUnloadTest); whether the label's cartridge is still
            // in a drive by now depends on timing, so either answer is right
            Run unload = run("drive", "unload-idle", "-c", c);
            assertEquals(0, unload.code, unload.err);
            assertTrue(unload.out.matches("drive drive\\d: unloading TQ0000L9\n|no idle drive holds a cartridge\n"),
                    unload.out);
            Run noDrive = run("drive", "up", "-c", c);
            assertEquals(1, noDrive.code);
            assertTrue(noDrive.err.contains("up takes a DRIVE"), noDrive.err);
            Run extra = run("drive", "unload-idle", "drive0", "-c", c);
            assertEquals(1, extra.code);
            assertTrue(extra.err.contains("unload-idle takes no DRIVE"), extra.err);

            assertEquals(0, run("cartridge", "disable", "TQ0001L9", "--reason", "broken case", "-c", c).code);
            Run list = run("cartridge", "list", "-c", c);
            assertTrue(list.out.contains("TQ0000L9") && list.out.contains("atlas"), list.out);
            assertTrue(list.out.contains("disabled"), list.out);
            assertEquals(0, run("cartridge", "enable", "TQ0001L9", "-c", c).code);

            Run unknown = run("drive", "down", "drive7", "-c", c);
            assertEquals(1, unknown.code);
            assertTrue(unknown.err.contains("drive7"), unknown.err);

            Path hints = Files.writeString(tmp.resolve("hints.json"),
                    "{\"00001111222233334444555566667777AAAA\": {\"volid\": \"V00001\", \"order\": 3, \"size\": 42}}");
            Run imported = run("catalog", "import-hints", hints.toString(), "-c", c);
            assertEquals(0, imported.code, imported.err);
            assertTrue(imported.out.contains("1 imported"), imported.out);
            Path export = tmp.resolve("export.jsonl");
            assertEquals(0, run("catalog", "export", "-o", export.toString(), "-c", c).code);
            String exported = Files.readString(export);
            assertTrue(exported.contains("00001111222233334444555566667777AAAA") && exported.contains("V00001"),
                    exported);
        } finally {
            daemon.close();
        }
        Run down = run("status", "-c", config.toString());
        assertEquals(1, down.code);
        assertTrue(down.err.contains("cannot reach the tapeq daemon"), down.err);
    }

    @Test
    void configErrors_nameTheKey_andExit78() throws Exception {
        Path config = Files.writeString(tmp.resolve("bad.yaml"), "directories:\n  - path: /x\nscheduler:\n  quietTme: 5s\n");
        Run r = run("daemon", "-c", config.toString());
        assertEquals(78, r.code);
        assertTrue(r.err.contains("scheduler.quietTme"), r.err);
    }

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cl = TapeqCommand.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            int code = cl.execute(args);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(saved);
        }
    }
}
