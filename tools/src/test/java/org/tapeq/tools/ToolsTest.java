package org.tapeq.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;
import org.tapeq.daemon.cli.TapeqCommand;
import picocli.CommandLine;

/** The tools reach the {@code tapeq} command through the TapeqExtension service, as in an installation. */
class ToolsTest {

    @Test
    void tapeq_withTheToolsOnTheClassPath_hasDemoSimulateLoadtestAndBenchHosts() {
        CommandLine cl = TapeqCommand.commandLine();
        for (String tool : new String[] {"demo", "simulate", "loadtest", "bench-hosts"}) {
            assertTrue(cl.getSubcommands().containsKey(tool), tool + " missing: " + cl.getSubcommands().keySet());
            Run help = run(tool, "--help");
            assertEquals(0, help.code, help.err);
            assertTrue(help.out.startsWith("Usage: tapeq " + tool), help.out);
        }
    }

    @Test
    void simulate_isASubcommand_listingScenariosAndPolicies() {
        Run list = run("simulate", "--list");
        assertEquals(0, list.code, list.err);
        assertTrue(list.out.contains("bulk-recall") && list.out.contains("tapeq-file-sequence"), list.out);
        Run bad = run("simulate", "nope");
        assertEquals(2, bad.code);
        assertTrue(bad.err.contains("bulk-recall"), bad.err);
    }

    @Test
    void demo_hostsOtherThanOneOrThree_orDrivesThatDoNotSplitOverTwoMovers_refusedNamingTheOption() {
        Run two = run("demo", "--hosts", "2");
        assertEquals(1, two.code);
        assertTrue(two.err.contains("--hosts 2: the demo runs on 1 host or on 3"), two.err);
        Run odd = run("demo", "--hosts", "3", "--drives", "3");
        assertEquals(1, odd.code);
        assertTrue(odd.err.contains("--hosts 3 --drives 3") && odd.err.contains("two movers"), odd.err);
    }

    @Test
    void benchHosts_drivesThatDoNotSplitOverTwoMovers_orABadHeap_refusedNamingTheOption() {
        Run odd = run("bench-hosts", "--drives", "3");
        assertEquals(1, odd.code);
        assertTrue(odd.err.contains("--drives 3") && odd.err.contains("two movers"), odd.err);
        Run heap = run("bench-hosts", "--heap", "lots");
        assertEquals(1, heap.code);
        assertTrue(heap.err.contains("--heap lots"), heap.err);
    }

    private record Run(int code, String out, String err) {
    }

    /** For commands that print through picocli's writers (not System.out). */
    private static Run run(String... args) {
        CommandLine cl = TapeqCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }
}
