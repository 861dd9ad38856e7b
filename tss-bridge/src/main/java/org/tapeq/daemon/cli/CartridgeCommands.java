package org.tapeq.daemon.cli;

import java.io.PrintWriter;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.config.Units;
import org.tapeq.daemon.control.AdminCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tapeq cartridge list|inventory|disable|enable|label|verify|repack|relabel}. */
@Command(name = "cartridge", mixinStandardHelpOptions = true,
        synopsisSubcommandLabel = "(list | inventory | disable | enable | label | verify | repack | relabel)",
        description = "List, inventory, disable, enable, label, verify, repack or relabel cartridges.",
        subcommands = {CartridgeCommands.ListCmd.class, CartridgeCommands.Inventory.class,
                CartridgeCommands.Disable.class, CartridgeCommands.Enable.class, CartridgeCommands.Label.class,
                CartridgeCommands.Verify.class, CartridgeCommands.Repack.class, CartridgeCommands.Relabel.class})
final class CartridgeCommands extends CommandGroup {

    @Command(name = "list", mixinStandardHelpOptions = true, description = "The catalog's cartridges.")
    static final class ListCmd extends ControlCall {
        @Override
        AdminCommand command() {
            return new AdminCommand.CartridgeList();
        }

        @Override
        void print(JsonNode list, PrintWriter out) {
            StatusText.printCartridges(list, out);
        }
    }

    @Command(name = "inventory", mixinStandardHelpOptions = true,
            description = "Compare the library's cartridges with the catalog's and add the new ones.")
    static final class Inventory extends ControlCall {
        @Override
        AdminCommand command() {
            return new AdminCommand.Inventory();
        }

        @Override
        void print(JsonNode inventory, PrintWriter out) {
            out.println("library: " + inventory.path("cartridges").asLong() + " cartridges; new to the catalog: "
                    + inventory.path("added") + "; in the catalog but not in the library: "
                    + inventory.path("absent"));
        }
    }

    @Command(name = "disable", mixinStandardHelpOptions = true,
            description = "Read nothing from and write nothing to BARCODE until it is enabled.")
    static final class Disable extends ControlCall {
        @Parameters(paramLabel = "BARCODE", description = "the cartridge")
        String barcode;

        @Option(names = "--reason", paramLabel = "REASON", defaultValue = "by administrator",
                description = "why (shown in status; default: ${DEFAULT-VALUE})")
        String reason;

        @Override
        AdminCommand command() {
            return new AdminCommand.CartridgeDisable(barcode, reason);
        }

        @Override
        void print(JsonNode result, PrintWriter out) {
            out.println("cartridge " + barcode + ": disable done");
        }
    }

    @Command(name = "enable", mixinStandardHelpOptions = true, description = "Use a disabled BARCODE again.")
    static final class Enable extends ControlCall {
        @Parameters(paramLabel = "BARCODE", description = "the cartridge")
        String barcode;

        @Override
        AdminCommand command() {
            return new AdminCommand.CartridgeEnable(barcode);
        }

        @Override
        void print(JsonNode result, PrintWriter out) {
            out.println("cartridge " + barcode + ": enable done");
        }
    }

    @Command(name = "label", mixinStandardHelpOptions = true,
            description = "Mount BARCODE and write tapeq's label for FAMILY on it.")
    static final class Label extends ControlCall {
        @Parameters(index = "0", paramLabel = "BARCODE", description = "the cartridge")
        String barcode;

        @Parameters(index = "1", paramLabel = "FAMILY", description = "the file family it is to hold")
        String family;

        @Option(names = "--force", description = "label a cartridge even if it holds tapeq data")
        boolean force;

        @Override
        AdminCommand command() {
            return new AdminCommand.CartridgeLabel(barcode, family, force);
        }

        @Override
        void print(JsonNode result, PrintWriter out) {
            out.println("cartridge " + barcode + ": label done");
        }
    }

    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = "Queue the verification of BARCODE as background work: read its aggregates and compare"
                    + " each file's checksum with the catalog's. Progress and result: tapeq status.")
    static final class Verify extends ControlCall {
        @Parameters(paramLabel = "BARCODE", description = "the cartridge")
        String barcode;

        @Option(names = "--sample", paramLabel = "N", defaultValue = "0",
                description = "read only N aggregates spread over the cartridge (default: all)")
        int sample;

        @Option(names = "--cancel", description = "cancel the cartridge's verification instead: a queued one at"
                + " once, a running one after the aggregate being read")
        boolean cancel;

        @Override
        AdminCommand command() {
            return cancel ? new AdminCommand.CartridgeVerifyCancel(barcode)
                    : new AdminCommand.CartridgeVerify(barcode, sample);
        }

        @Override
        void print(JsonNode report, PrintWriter out) {
            if (cancel) {
                out.println("cartridge " + barcode + ": verification " + ("cancelled".equals(report.path("state")
                        .asText()) ? "cancelled" : "stops after the aggregate being read") + " ("
                        + report.path("aggregatesDone").asInt() + " of " + report.path("aggregatesTotal").asInt()
                        + " aggregates read)");
                return;
            }
            out.println("cartridge " + barcode + ": verification queued, " + report.path("aggregatesTotal").asInt()
                    + " aggregate(s) to read" + (report.path("sampled").asBoolean() ? " (a sample)" : "")
                    + "; progress and result: tapeq status");
        }
    }

    @Command(name = "repack", mixinStandardHelpOptions = true,
            description = "Queue the repack of BARCODE as background work: copy its live files onto other cartridges"
                    + " of a family, then mark it EMPTY. Progress and result: tapeq status.")
    static final class Repack extends ControlCall {
        @Parameters(paramLabel = "BARCODE", description = "the cartridge to empty")
        String barcode;

        @Option(names = "--to", paramLabel = "FAMILY|MEDIA",
                description = "write to cartridges of this family (default: the cartridge's own), or, given a media"
                        + " type (LTO8, LTO9, TS1160), to cartridges of that media type of the cartridge's own family")
        String family;

        @Option(names = "--cancel", description = "cancel the cartridge's repack instead: files already moved stay"
                + " moved, the rest stay on it")
        boolean cancel;

        @Override
        AdminCommand command() {
            return cancel ? new AdminCommand.CartridgeRepackCancel(barcode)
                    : new AdminCommand.CartridgeRepack(barcode, family == null
                    ? AdminCommand.CartridgeRepack.OWN_FAMILY : family);
        }

        @Override
        void print(JsonNode report, PrintWriter out) {
            String progress = report.path("filesDone").asInt() + " of " + report.path("filesTotal").asInt()
                    + " files moved";
            if (cancel) {
                out.println("cartridge " + barcode + ": repack " + ("cancelled".equals(report.path("state").asText())
                        ? "cancelled" : "stops after the read or write in progress") + " (" + progress + ")");
                return;
            }
            String media = report.path("targetMedia").isTextual() ? " (" + report.path("targetMedia").asText()
                    + " cartridges)" : "";
            out.println("cartridge " + barcode + ": repack to family " + report.path("targetFamily").asText() + media
                    + " queued, " + report.path("filesTotal").asInt() + " files ("
                    + Units.roughSize(report.path("bytesTotal").asDouble()) + ")"
                    + (report.path("filesDone").asInt() > 0 ? ", " + progress : "")
                    + "; progress and result: tapeq status");
        }
    }

    @Command(name = "relabel", mixinStandardHelpOptions = true,
            description = "Queue the relabel of BARCODE as background work: write a new label at the start of the"
                    + " tape, forget its old tape files and make it appendable again (scratch). Refused unless the"
                    + " cartridge is EMPTY (emptied by a repack). Result: tapeq status.")
    static final class Relabel extends ControlCall {
        @Parameters(paramLabel = "BARCODE", description = "the cartridge to relabel")
        String barcode;

        @Option(names = "--family", paramLabel = "FAMILY",
                description = "label it for this family (default: the cartridge's own)")
        String family;

        @Option(names = "--force", description = "also relabel a cartridge that is not EMPTY but holds no live file")
        boolean force;

        @Override
        AdminCommand command() {
            return new AdminCommand.CartridgeRelabel(barcode, family == null
                    ? AdminCommand.CartridgeRepack.OWN_FAMILY : family, force);
        }

        @Override
        void print(JsonNode report, PrintWriter out) {
            out.println("cartridge " + barcode + ": relabel for family " + report.path("family").asText()
                    + " queued; result: tapeq status");
        }
    }
}
