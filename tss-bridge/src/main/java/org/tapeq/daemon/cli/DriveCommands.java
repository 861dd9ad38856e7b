package org.tapeq.daemon.cli;

import java.io.PrintWriter;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.daemon.control.AdminCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tapeq drive down|up|unload-idle}. */
@Command(name = "drive", mixinStandardHelpOptions = true, synopsisSubcommandLabel = "(down | up | unload-idle)",
        description = "Take a drive out of or into service, or unload every idle drive.",
        subcommands = {DriveCommands.Down.class, DriveCommands.Up.class, DriveCommands.UnloadIdle.class})
final class DriveCommands extends CommandGroup {

    @Command(name = "down", mixinStandardHelpOptions = true,
            description = "Take DRIVE out of service: it finishes the file it is on and takes no new work.")
    static final class Down extends ControlCall {
        @Parameters(paramLabel = "DRIVE", description = "the drive's name, as status shows it")
        String drive;

        @Option(names = "--reason", paramLabel = "REASON", description = "why (shown in status; default: ${DEFAULT-VALUE})",
                defaultValue = "maintenance")
        String reason;

        @Override
        AdminCommand command() {
            return new AdminCommand.DriveDown(drive, reason);
        }

        @Override
        void print(JsonNode result, PrintWriter out) {
            out.println("drive " + drive + " down");
        }
    }

    @Command(name = "up", mixinStandardHelpOptions = true, description = "Put DRIVE back into service.")
    static final class Up extends ControlCall {
        @Parameters(paramLabel = "DRIVE", description = "the drive's name, as status shows it")
        String drive;

        @Override
        AdminCommand command() {
            return new AdminCommand.DriveUp(drive);
        }

        @Override
        void print(JsonNode result, PrintWriter out) {
            out.println("drive " + drive + " up");
        }
    }

    @Command(name = "unload-idle", mixinStandardHelpOptions = true,
            description = "Drives holding a cartridge they have nothing to do with give it back now.")
    static final class UnloadIdle extends ControlCall {
        @Override
        AdminCommand command() {
            return new AdminCommand.DriveUnloadIdle();
        }

        @Override
        void print(JsonNode unloading, PrintWriter out) {
            if (unloading.isEmpty()) {
                out.println("no idle drive holds a cartridge");
            }
            unloading.fields().forEachRemaining(e -> out.println("drive " + e.getKey() + ": unloading "
                    + e.getValue().asText()));
        }
    }
}
