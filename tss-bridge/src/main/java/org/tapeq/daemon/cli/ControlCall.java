package org.tapeq.daemon.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.control.AdminCommand;
import org.tapeq.daemon.control.ControlProtocol;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * A subcommand that sends one {@link AdminCommand} to the running daemon through its control socket and prints
 * the answer. Each admin subcommand only says which command its arguments make and how its answer reads.
 */
abstract class ControlCall implements Callable<Integer> {

    /** Where the control socket is: {@code --socket}, or control.sock in the configured state directory. */
    static final class ControlOptions {
        @CommandLine.Mixin
        TapeqCommand.ConfigOption config = new TapeqCommand.ConfigOption();

        @Option(names = "--socket", paramLabel = "PATH", description = "the daemon's control socket "
                + "(default: control.sock in the configured state directory)")
        Path socket;

        Path socket() {
            return socket != null ? socket : config.load().state().resolve(Daemon.CONTROL_SOCKET);
        }
    }

    @CommandLine.Mixin
    ControlOptions options = new ControlOptions();

    /** The admin command these arguments make. */
    abstract AdminCommand command();

    /** Prints the daemon's answer. */
    abstract void print(JsonNode result, PrintWriter out) throws Exception;

    @Override
    public Integer call() throws Exception {
        JsonNode result = ControlProtocol.call(options.socket(), command());
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        print(result, out);
        out.flush();
        return 0;
    }
}
