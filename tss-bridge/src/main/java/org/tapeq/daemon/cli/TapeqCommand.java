package org.tapeq.daemon.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.tapeq.config.ConfigException;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.daemon.control.ControlProtocol;
import org.tapeq.scheduler.catalog.hints.EnditHints;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/** The {@code tapeq} command line. */
@Command(name = "tapeq", mixinStandardHelpOptions = true, versionProvider = TapeqCommand.Version.class,
        description = "The tape layer between dCache pools and tape libraries.",
        subcommands = {TapeqCommand.DaemonCmd.class, TapeqCommand.StatusCmd.class, TapeqCommand.DriveCmd.class,
                TapeqCommand.CartridgeCmd.class, TapeqCommand.CatalogCmd.class})
public final class TapeqCommand implements Runnable {

    /** Where the daemon's configuration is looked for unless {@code --config} or TAPEQ_CONFIG says otherwise. */
    public static final String DEFAULT_CONFIG = "/etc/tapeq/tapeq.yaml";

    /** The tools add-on's commands, named when one is used without the add-on installed. */
    private static final List<String> ADD_ON_COMMANDS = List.of("demo", "simulate", "loadtest");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new TapeqCommand());
        for (TapeqExtension extension : ServiceLoader.load(TapeqExtension.class)) {
            extension.commands().forEach(cl::addSubcommand);
        }
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getColorScheme().errorText("tapeq " + cmd.getCommandName() + ": "
                    + (e.getMessage() != null ? e.getMessage() : e.toString())));
            return e instanceof ConfigException ? 78 : 1; // EX_CONFIG, as systemd reports it
        });
        CommandLine.IParameterExceptionHandler standard = cl.getParameterExceptionHandler();
        cl.setParameterExceptionHandler((e, args) -> {
            if (e instanceof CommandLine.UnmatchedArgumentException u && e.getCommandLine() == cl
                    && !u.getUnmatched().isEmpty() && ADD_ON_COMMANDS.contains(u.getUnmatched().get(0))) {
                cl.getErr().println("tapeq " + u.getUnmatched().get(0) + " comes with the tools add-on "
                        + "(tapeq-tools-<version>.tar.gz, unpacked over this installation; see the operations "
                        + "guide, share/doc/operations.md)");
            }
            return standard.handleParseException(e, args);
        });
        return cl;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"tapeq " + org.tapeq.daemon.DaemonStatus.currentVersion()};
        }
    }

    /** Options every command that reads the configuration shares. */
    static class ConfigOption {
        @Option(names = {"-c", "--config"}, paramLabel = "FILE",
                description = "configuration file (default: $TAPEQ_CONFIG or " + DEFAULT_CONFIG + ")")
        Path config;

        DaemonConfig load() {
            Path file = config;
            if (file == null) {
                String env = System.getenv("TAPEQ_CONFIG");
                file = Path.of(env != null && !env.isEmpty() ? env : DEFAULT_CONFIG);
            }
            return DaemonConfig.load(file);
        }
    }

    /** Commands that talk to the running daemon through its control socket. */
    static class ControlOptions extends ConfigOption {
        @Option(names = "--socket", paramLabel = "PATH", description = "the daemon's control socket "
                + "(default: control.sock in the configured state directory)")
        Path socket;

        JsonNode call(String command, List<String> args) throws IOException {
            Path s = socket != null ? socket : load().state().resolve(Daemon.CONTROL_SOCKET);
            return ControlProtocol.call(s, command, args);
        }
    }

    @Command(name = "daemon", mixinStandardHelpOptions = true,
            description = "Serve the configured request directories (runs until SIGTERM).")
    static final class DaemonCmd implements Callable<Integer> {
        @CommandLine.Mixin
        ConfigOption options = new ConfigOption();

        @Override
        public Integer call() throws Exception {
            DaemonConfig config = options.load();
            Daemon daemon = Daemon.start(config);
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                daemon.close();
                stopped.countDown();
            }, "tapeq-shutdown"));
            stopped.await();
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Queues per cartridge, drives, cartridges, oldest request, rates.")
    static final class StatusCmd implements Callable<Integer> {
        @CommandLine.Mixin
        ControlOptions options = new ControlOptions();

        @Option(names = "--json", description = "print the status as JSON")
        boolean json;

        @Override
        public Integer call() throws Exception {
            JsonNode status = options.call("status", List.of());
            PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
            if (json) {
                out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(status));
            } else {
                StatusText.print(status, out);
            }
            return 0;
        }
    }

    @Command(name = "drive", mixinStandardHelpOptions = true,
            description = "Take a drive out of or into service (up|down DRIVE), or unload every idle drive "
                    + "(unload-idle: drives holding a cartridge they have nothing to do with give it back now).")
    static final class DriveCmd implements Callable<Integer> {
        @CommandLine.Mixin
        ControlOptions options = new ControlOptions();

        @Parameters(index = "0", paramLabel = "up|down|unload-idle")
        String action;

        @Parameters(index = "1", arity = "0..1", paramLabel = "DRIVE")
        String drive;

        @Option(names = "--reason", description = "why (shown in status)", defaultValue = "maintenance")
        String reason;

        @Override
        public Integer call() throws Exception {
            switch (action) {
                case "unload-idle" -> {
                    if (drive != null) {
                        throw new IllegalArgumentException("unload-idle takes no DRIVE (it unloads every idle drive)");
                    }
                    JsonNode unloading = options.call("drive-unload-idle", List.of());
                    if (unloading.isEmpty()) {
                        System.out.println("no idle drive holds a cartridge");
                    }
                    unloading.fields().forEachRemaining(e -> System.out.println("drive " + e.getKey()
                            + ": unloading " + e.getValue().asText()));
                    return 0;
                }
                case "up" -> options.call("drive-up", List.of(drive()));
                case "down" -> options.call("drive-down", List.of(drive(), reason));
                default -> throw new CommandLine.ParameterException(new CommandLine(this), "expected up, down or "
                        + "unload-idle, not " + action);
            }
            System.out.println("drive " + drive + " " + action);
            return 0;
        }

        private String drive() {
            if (drive == null) {
                throw new IllegalArgumentException(action + " takes a DRIVE");
            }
            return drive;
        }
    }

    @Command(name = "cartridge", mixinStandardHelpOptions = true,
            description = "list | inventory | disable BARCODE | enable BARCODE | label BARCODE FAMILY [--force]")
    static final class CartridgeCmd implements Callable<Integer> {
        @CommandLine.Mixin
        ControlOptions options = new ControlOptions();

        @Parameters(index = "0", paramLabel = "list|inventory|disable|enable|label")
        String action;

        @Parameters(index = "1..*", paramLabel = "ARGS")
        List<String> args = new ArrayList<>();

        @Option(names = "--reason", defaultValue = "by administrator", description = "why (for disable)")
        String reason;

        @Option(names = "--force", description = "label a cartridge even if it holds tapeq data")
        boolean force;

        @Override
        public Integer call() throws Exception {
            switch (action) {
                case "list":
                    StatusText.printCartridges(options.call("cartridge-list", List.of()),
                            new PrintWriter(System.out, true));
                    return 0;
                case "inventory":
                    JsonNode inventory = options.call("inventory", List.of());
                    System.out.println("library: " + inventory.path("cartridges").asLong() + " cartridges; new to the"
                            + " catalog: " + inventory.path("added") + "; in the catalog but not in the library: "
                            + inventory.path("absent"));
                    return 0;
                case "disable":
                    options.call("cartridge-disable", List.of(one(), reason));
                    break;
                case "enable":
                    options.call("cartridge-enable", List.of(one()));
                    break;
                case "label":
                    if (args.size() != 2) {
                        throw new IllegalArgumentException("label takes BARCODE FAMILY");
                    }
                    options.call("cartridge-label", List.of(args.get(0), args.get(1), Boolean.toString(force)));
                    break;
                default:
                    throw new IllegalArgumentException("unknown action " + action);
            }
            System.out.println("cartridge " + args.get(0) + ": " + action + " done");
            return 0;
        }

        private String one() {
            if (args.size() != 1) {
                throw new IllegalArgumentException(action + " takes one BARCODE");
            }
            return args.get(0);
        }
    }

    @Command(name = "catalog", mixinStandardHelpOptions = true,
            description = "import-hints FILE | export [-o FILE] | rebuild BARCODE...")
    static final class CatalogCmd implements Callable<Integer> {
        @CommandLine.Mixin
        ControlOptions options = new ControlOptions();

        @Parameters(index = "0", paramLabel = "import-hints|export|rebuild")
        String action;

        @Parameters(index = "1..*", paramLabel = "ARGS")
        List<String> args = new ArrayList<>();

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "export: write here, not stdout")
        Path output;

        @Override
        public Integer call() throws Exception {
            switch (action) {
                case "import-hints":
                    if (args.size() != 1) {
                        throw new IllegalArgumentException("import-hints takes the ENDIT hint FILE");
                    }
                    try (JdbcCatalog catalog = options.load().catalog().open()) {
                        EnditHints.Result r = EnditHints.importFile(Path.of(args.get(0)), catalog);
                        System.out.printf("%s: %d imported, %d already known, %d rejected%n", r.file(), r.imported(),
                                r.alreadyKnown(), r.rejectedCount());
                        r.rejected().forEach(x -> System.out.println("  rejected: " + x));
                        return r.rejectedCount() == 0 ? 0 : 1;
                    }
                case "export":
                    export();
                    return 0;
                case "rebuild":
                    if (args.isEmpty()) {
                        throw new IllegalArgumentException("rebuild takes one or more BARCODEs");
                    }
                    JsonNode reports = options.call("catalog-rebuild", args);
                    System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter()
                            .writeValueAsString(reports));
                    return 0;
                default:
                    throw new IllegalArgumentException("unknown action " + action);
            }
        }

        /** One JSON object per line per file: the catalog in a form other tools read. */
        private void export() throws IOException {
            ObjectMapper json = new ObjectMapper();
            try (JdbcCatalog catalog = options.load().catalog().open();
                 Writer w = output != null ? Files.newBufferedWriter(output, StandardCharsets.UTF_8)
                         : new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))) {
                catalog.forEachFile(f -> {
                    try {
                        w.write(json.writeValueAsString(f));
                        w.write('\n');
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
        }
    }
}
