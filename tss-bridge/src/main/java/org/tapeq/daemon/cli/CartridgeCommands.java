package org.tapeq.daemon.cli;

import java.io.PrintWriter;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.daemon.control.AdminCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tapeq cartridge list|inventory|disable|enable|label}. */
@Command(name = "cartridge", mixinStandardHelpOptions = true,
        synopsisSubcommandLabel = "(list | inventory | disable | enable | label)",
        description = "List, inventory, disable, enable or label cartridges.",
        subcommands = {CartridgeCommands.ListCmd.class, CartridgeCommands.Inventory.class,
                CartridgeCommands.Disable.class, CartridgeCommands.Enable.class, CartridgeCommands.Label.class})
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
}
