package org.tapeq.daemon.cli;

import java.io.PrintWriter;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.config.Units;
import org.tapeq.daemon.control.AdminCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tapeq migrate --from MEDIA --to MEDIA [--family F] | --cancel}. */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = "Migrate every cartridge of one media type (of one family, or all) onto cartridges of another"
                + " media type of the same family, one background repack after another. Progress, estimated end and"
                + " result: tapeq status.")
final class MigrateCommand extends ControlCall {
    @Option(names = "--from", paramLabel = "MEDIA", description = "the media type to empty, e.g. LTO8")
    String from;

    @Option(names = "--to", paramLabel = "MEDIA", description = "the media type to write to, e.g. LTO9")
    String to;

    @Option(names = "--family", paramLabel = "FAMILY", description = "migrate this family only (default: all)")
    String family;

    @Option(names = "--cancel", description = "cancel the running migration instead: the repacks under way stop"
            + " after their current read or write, files already moved stay moved")
    boolean cancel;

    @Override
    AdminCommand command() {
        if (cancel) {
            return new AdminCommand.MigrateCancel();
        }
        if (from == null || to == null) {
            throw new IllegalArgumentException("tapeq migrate needs --from MEDIA and --to MEDIA (or --cancel)");
        }
        return new AdminCommand.Migrate(from, to, family == null ? AdminCommand.Migrate.ALL_FAMILIES : family);
    }

    @Override
    void print(JsonNode report, PrintWriter out) {
        String progress = report.path("cartridgesDone").asInt() + " of " + report.path("cartridgesTotal").asInt()
                + " cartridges emptied";
        if (cancel) {
            out.println("migration " + report.path("id").asText() + ": " + ("cancelled".equals(report.path("state")
                    .asText()) ? "cancelled" : "stops after the read or write in progress") + " (" + progress + ")");
            return;
        }
        out.println("migration " + report.path("id").asText() + " started: " + report.path("cartridgesTotal").asInt()
                + " " + report.path("fromMedia").asText() + " cartridges ("
                + Units.roughSize(report.path("bytesTotal").asDouble()) + ") onto "
                + report.path("toMedia").asText() + "; progress, estimated end and result: tapeq status");
    }
}
