package org.tapeq.daemon.cli;

import java.io.PrintWriter;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.daemon.control.AdminCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tapeq reclaim pause|resume|status}: the automatic reclamation policy. */
@Command(name = "reclaim", mixinStandardHelpOptions = true, synopsisSubcommandLabel = "(pause | resume | status)",
        description = "Pause, resume or show the automatic reclamation policy (reclaim: in the configuration).",
        subcommands = {ReclaimCommands.Pause.class, ReclaimCommands.Resume.class, ReclaimCommands.Status.class})
final class ReclaimCommands extends CommandGroup {

    /** One line: the policy's state, candidates and repacks. */
    static void printStatus(JsonNode s, PrintWriter out) {
        out.println("reclaim: " + s.path("state").asText()
                + ("paused".equals(s.path("state").asText()) ? " (" + s.path("reason").asText()
                        + (s.hasNonNull("pausedSinceTime") ? ", since " + s.path("pausedSinceTime").asText() : "")
                        + ")" : "")
                + ", threshold " + s.path("threshold").asDouble() + ", " + s.path("candidates").asInt()
                + " candidate(s), " + s.path("queued").asInt() + " repack(s) queued or running, "
                + s.path("started").asInt() + " started in this run");
        if (!s.path("listed").isEmpty()) {
            out.println("  candidates: " + String.join(", ", texts(s.path("listed"))));
        }
        if (!s.path("needOperator").isEmpty()) {
            out.println("  left to the operator (last repack failed, cancelled or left unreadable files): "
                    + String.join(", ", texts(s.path("needOperator"))));
        }
    }

    private static java.util.List<String> texts(JsonNode array) {
        java.util.List<String> all = new java.util.ArrayList<>();
        array.forEach(n -> all.add(n.asText()));
        return all;
    }

    @Command(name = "pause", mixinStandardHelpOptions = true,
            description = "Start no new automatic repack until resumed, also after a restart; repacks already"
                    + " started run on (tapeq cartridge repack VID --cancel stops one).")
    static final class Pause extends ControlCall {
        @Option(names = "--reason", paramLabel = "REASON", description = "why (shown in status; default:"
                + " ${DEFAULT-VALUE})", defaultValue = "paused by the operator")
        String reason;

        @Override
        AdminCommand command() {
            return new AdminCommand.ReclaimPause(reason);
        }

        @Override
        void print(JsonNode result, PrintWriter out) {
            printStatus(result, out);
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true,
            description = "Let the policy start repacks again; it looks for candidates at once.")
    static final class Resume extends ControlCall {
        @Override
        AdminCommand command() {
            return new AdminCommand.ReclaimResume();
        }

        @Override
        void print(JsonNode result, PrintWriter out) {
            printStatus(result, out);
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Show the policy: on, off or paused, its candidates and repacks.")
    static final class Status extends ControlCall {
        @Override
        AdminCommand command() {
            return new AdminCommand.ReclaimStatus();
        }

        @Override
        void print(JsonNode result, PrintWriter out) {
            printStatus(result, out);
        }
    }
}
