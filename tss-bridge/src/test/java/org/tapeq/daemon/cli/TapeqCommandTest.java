package org.tapeq.daemon.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.daemon.control.AdminCommand;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.catalog.jdbc.ProcessIdentity;
import picocli.CommandLine;

/**
 * The command line: each admin subcommand's parsing into its {@link AdminCommand}, and the commands against a
 * running daemon (status, drives, cartridges, inventory, catalog export, import and rebuild).
 */
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
            // arity is picocli's now: a usage error (exit 2) naming what is missing or too much
            Run noDrive = run("drive", "up", "-c", c);
            assertEquals(2, noDrive.code);
            assertTrue(noDrive.err.contains("Missing required parameter: 'DRIVE'"), noDrive.err);
            Run extra = run("drive", "unload-idle", "drive0", "-c", c);
            assertEquals(2, extra.code);
            assertTrue(extra.err.contains("Unmatched argument at index 2: 'drive0'"), extra.err);

            assertEquals(0, run("cartridge", "disable", "TQ0001L9", "--reason", "broken case", "-c", c).code);
            Run list = run("cartridge", "list", "-c", c);
            assertTrue(list.out.contains("TQ0000L9") && list.out.contains("atlas"), list.out);
            assertTrue(list.out.contains("disabled"), list.out);
            assertEquals(0, run("cartridge", "enable", "TQ0001L9", "-c", c).code);
            assertFalse(run("cartridge", "list", "-c", c).out.contains("disabled"));

            Run inventory = run("cartridge", "inventory", "-c", c);
            assertEquals(0, inventory.code, inventory.err);
            assertTrue(inventory.out.startsWith("library: 3 cartridges; new to the catalog: "), inventory.out);

            Run rebuild = run("catalog", "rebuild", "TQ0000L9", "-c", c);
            assertEquals(0, rebuild.code, rebuild.err);
            assertTrue(rebuild.out.contains("TQ0000L9"), rebuild.out);

            Run unknown = run("drive", "down", "drive7", "-c", c);
            assertEquals(1, unknown.code);
            assertTrue(unknown.err.contains("drive7"), unknown.err);

            Path hints = Files.writeString(tmp.resolve("hints.json"),
                    "{\"00001111222233334444555566667777AAAA\": {\"volid\": \"V00001\", \"order\": 3, \"size\": 42}}");
            // the import writes under the site lease of its own: refused while the daemon holds the site
            Run refused = run("catalog", "import-hints", hints.toString(), "-c", c);
            assertEquals(75, refused.code, refused.err);
            assertTrue(refused.err.contains("in use by another tapeq"), refused.err);
        } finally {
            daemon.close();
        }
        Run down = run("status", "-c", config.toString());
        assertEquals(1, down.code);
        assertTrue(down.err.contains("cannot reach the tapeq daemon"), down.err);

        String c = config.toString();
        Path hints = tmp.resolve("hints.json");
        String daemonHolder = leaseHolder();
        Run imported = run("catalog", "import-hints", hints.toString(), "-c", c);
        assertEquals(0, imported.code, imported.err);
        assertTrue(imported.out.contains("1 imported"), imported.out);
        // the import's holder carries the process identity (a killed import is seen dead on this host)
        String importHolder = leaseHolder();
        assertNotEquals(daemonHolder, importHolder);
        ProcessIdentity.current().ifPresent(i -> assertTrue(importHolder.endsWith(i.holder("")), importHolder));
        Path export = tmp.resolve("export.jsonl");
        assertEquals(0, run("catalog", "export", "-o", export.toString(), "-c", c).code);
        String exported = Files.readString(export);
        assertTrue(exported.contains("00001111222233334444555566667777AAAA") && exported.contains("V00001"),
                exported);
    }

    /** The holder last written to the site lease of the test's catalog (below the state directory). */
    private String leaseHolder() throws SQLException {
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + tmp.resolve("state").resolve("catalog.db"));
             ResultSet rs = db.createStatement().executeQuery("SELECT holder FROM site_lease")) {
            assertTrue(rs.next(), "no site lease row");
            return rs.getString(1);
        }
    }

    /** Each admin subcommand's arguments make its one {@link AdminCommand}; nothing reaches a daemon here. */
    @Test
    void adminSubcommands_parseIntoTheirCommands() {
        assertEquals(new AdminCommand.Status(), parsed("status", "--json"));
        assertEquals(new AdminCommand.DriveDown("LTO9-1", "two words"),
                parsed("drive", "down", "LTO9-1", "--reason", "two words"));
        assertEquals(new AdminCommand.DriveDown("LTO9-1", "maintenance"), parsed("drive", "down", "LTO9-1"));
        assertEquals(new AdminCommand.DriveUp("LTO9-1"), parsed("drive", "up", "LTO9-1", "--socket", "/s"));
        assertEquals(new AdminCommand.DriveUnloadIdle(), parsed("drive", "unload-idle"));
        assertEquals(new AdminCommand.CartridgeList(), parsed("cartridge", "list"));
        assertEquals(new AdminCommand.Inventory(), parsed("cartridge", "inventory"));
        assertEquals(new AdminCommand.CartridgeDisable("TQ0001L9", "broken case"),
                parsed("cartridge", "disable", "TQ0001L9", "--reason", "broken case"));
        assertEquals(new AdminCommand.CartridgeDisable("TQ0001L9", "by administrator"),
                parsed("cartridge", "disable", "TQ0001L9"));
        assertEquals(new AdminCommand.CartridgeEnable("TQ0001L9"), parsed("cartridge", "enable", "TQ0001L9"));
        assertEquals(new AdminCommand.CartridgeLabel("TQ0000L9", "atlas", false),
                parsed("cartridge", "label", "TQ0000L9", "atlas"));
        assertEquals(new AdminCommand.CartridgeLabel("TQ0000L9", "atlas", true),
                parsed("cartridge", "label", "--force", "TQ0000L9", "atlas", "-c", "/etc/x.yaml"));
        assertEquals(new AdminCommand.CartridgeVerify("TQ0000L9", 0), parsed("cartridge", "verify", "TQ0000L9"));
        assertEquals(new AdminCommand.CartridgeVerify("TQ0000L9", 3),
                parsed("cartridge", "verify", "TQ0000L9", "--sample", "3"));
        assertEquals(new AdminCommand.CartridgeVerifyCancel("TQ0000L9"),
                parsed("cartridge", "verify", "--cancel", "TQ0000L9"));
        assertEquals(new AdminCommand.CatalogRebuild(List.of("A", "B")), parsed("catalog", "rebuild", "A", "B"));
    }

    @Test
    void adminSubcommands_withWrongArguments_areUsageErrorsWithTheirOwnHelp() {
        for (String[] wrong : List.of(new String[] {"drive", "down"}, new String[] {"drive", "up", "a", "b"},
                new String[] {"drive", "sideways", "a"}, new String[] {"cartridge", "label", "TQ0000L9"},
                new String[] {"cartridge", "enable"}, new String[] {"catalog", "rebuild"},
                new String[] {"status", "extra"}, new String[] {"drive"})) {
            Run r = runWriters(wrong);
            assertEquals(2, r.code, String.join(" ", wrong) + ": " + r.err);
            // the command's own usage, or (picocli's choice for an unknown word) what did not match
            assertTrue(r.err.contains("Usage: tapeq " + wrong[0]) || r.err.contains("Unmatched argument"), r.err);
        }
        Run help = runWriters("cartridge", "label", "--help");
        assertEquals(0, help.code);
        assertTrue(help.out.startsWith("Usage: tapeq cartridge label [-hV] [--force]"), help.out);
        assertTrue(help.out.contains("BARCODE") && help.out.contains("FAMILY"), help.out);
    }

    @Test
    void tools_withoutTheAddOn_areNamedWithWhereTheyComeFrom() {
        Run r = runWriters("simulate", "--list");
        assertEquals(2, r.code);
        assertTrue(r.err.contains("tapeq simulate comes with the tools add-on"), r.err);
    }

    private static AdminCommand parsed(String... args) {
        CommandLine.ParseResult result = TapeqCommand.commandLine().parseArgs(args);
        while (result.hasSubcommand()) {
            result = result.subcommand();
        }
        return ((ControlCall) result.commandSpec().userObject()).command();
    }

    /** For usage errors and help, which picocli prints through its own writers (not System.out). */
    private static Run runWriters(String... args) {
        CommandLine cl = TapeqCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void configErrors_nameTheKey_andExit78() throws Exception {
        Path config = Files.writeString(tmp.resolve("bad.yaml"), "directories:\n  - path: /x\nscheduler:\n  quietTme: 5s\n");
        Run r = run("daemon", "-c", config.toString());
        assertEquals(78, r.code);
        assertTrue(r.err.contains("scheduler.quietTme"), r.err);
    }

    @Test
    void missingRequestDirectory_isAConfigError_namingTheKey_beforeTheCatalogOpens() throws Exception {
        Path endit = tmp.resolve("no-such-endit");
        Path state = tmp.resolve("state");
        Path config = Files.writeString(tmp.resolve("tapeq.yaml"), "directories:\n  - path: " + endit + "\nstate: "
                + state + "\nhttp:\n  bind: off\n");
        Run r = run("daemon", "-c", config.toString());
        assertEquals(78, r.code, r.err);
        assertTrue(r.err.contains(config + ": directories[0].path: " + endit + " does not exist"), r.err);
        assertFalse(Files.exists(state.resolve("catalog.db")), "found before the catalog was opened");

        RequestDirectory.create(endit);
        Files.delete(endit.resolve(RequestDirectory.TRASH));
        r = run("daemon", "-c", config.toString());
        assertEquals(78, r.code, r.err);
        assertTrue(r.err.contains("directories[0].path: request directory " + endit + ": missing subdirectory "
                + endit.resolve(RequestDirectory.TRASH)), r.err);
    }

    /** The shipped example (etc/tapeq.yaml) on a host where the install guide's steps were not done yet. */
    @Test
    void shippedExample_onAHostWithoutItsDirectories_says78AndWhichDirectory() {
        Path example = Path.of("..", "docs", "tapeq.example.yaml");
        assumeFalse(Files.exists(Path.of("/pool1/endit")), "this host has the example's request directory");
        Run r = run("daemon", "-c", example.toString());
        assertEquals(78, r.code, r.err);
        assertTrue(r.err.contains(example + ": directories[0].path: /pool1/endit does not exist; create it"), r.err);
    }

    @Test
    void stateDirectoryThatCannotBeCreated_isAConfigError_sayingWhatAndWhichKey() throws Exception {
        Path endit = RequestDirectory.create(tmp.resolve("endit")).base();
        Path blocker = Files.writeString(tmp.resolve("a-file"), "");
        Path state = blocker.resolve("state");
        Path config = Files.writeString(tmp.resolve("tapeq.yaml"), "directories:\n  - path: " + endit + "\nstate: "
                + state + "\nhttp:\n  bind: off\n");
        Run r = run("daemon", "-c", config.toString());
        assertEquals(78, r.code, r.err);
        assertTrue(r.err.contains(config + ": state: the state directory " + state
                + " does not exist and cannot be created"), r.err);
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
