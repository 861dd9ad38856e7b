package org.tapeq.daemon.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.tapeq.config.ConfigException;
import org.tapeq.scheduler.catalog.CatalogLeaseException;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.HangupReload;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.daemon.control.AdminCommand;
import org.tapeq.daemon.control.StatusPage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code tapeq} command line: {@code daemon}, and the admin commands that talk to a running daemon
 * ({@code status}, {@code drive ...}, {@code cartridge ...}, {@code catalog ...}), one picocli subcommand per
 * {@link AdminCommand}. Subcommands from other jars come in through {@link TapeqExtension}.
 */
@Command(name = "tapeq", mixinStandardHelpOptions = true, versionProvider = TapeqCommand.Version.class,
        description = "The tape layer between dCache pools and tape libraries.",
        subcommands = {TapeqCommand.DaemonCmd.class, MoverCommand.class, SimLibraryCommand.class, TapeqCommand.StatusCmd.class,
                DriveCommands.class, CartridgeCommands.class, MigrateCommand.class, CatalogCommands.class,
                ReclaimCommands.class})
public final class TapeqCommand extends CommandGroup {

    /** Where the daemon's configuration is looked for unless {@code --config} or TAPEQ_CONFIG says otherwise. */
    public static final String DEFAULT_CONFIG = "/etc/tapeq/tapeq.yaml";
    /**
     * How long a deposed daemon's stop may take before it exits anyway: cut off from the catalog, a stop step
     * waiting for it could last as long as the partition, and the exit lets go of its locks (the kernel releases
     * them) for the new holder. All its work is held and its catalog writes are fenced, so nothing is lost.
     */
    static final long DEPOSED_STOP_MILLIS = 5_000;
    /** Exit status of a daemon refused because another one holds its site's catalog lease (EX_TEMPFAIL). */
    public static final int EXIT_LEASE_HELD = 75;

    /** The tools add-on's commands, named when one is used without the add-on installed. */
    private static final List<String> ADD_ON_COMMANDS = List.of("demo", "simulate", "loadtest");

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
            // 78 EX_CONFIG: not restarted by the unit. 75 EX_TEMPFAIL: another daemon holds the site's catalog lease;
            // restarted, it takes the site over once that lease lapses.
            return e instanceof ConfigException ? 78 : e instanceof CatalogLeaseException ? EXIT_LEASE_HELD : 1;
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
            return DaemonConfig.load(file());
        }

        Path file() {
            if (config != null) {
                return config;
            }
            String env = System.getenv("TAPEQ_CONFIG");
            return Path.of(env != null && !env.isEmpty() ? env : DEFAULT_CONFIG);
        }
    }

    @Command(name = "daemon", mixinStandardHelpOptions = true,
            description = "Serve the configured request directories (runs until SIGTERM; SIGHUP reloads the "
                    + "scheduling keys that can change while it runs and names those that need a restart).")
    static final class DaemonCmd implements Callable<Integer> {
        @CommandLine.Mixin
        ConfigOption options = new ConfigOption();

        @Override
        public Integer call() throws Exception {
            DaemonConfig config = options.load();
            // Before the start, which may wait long for the catalog: a reload meanwhile must not stop the JVM.
            HangupReload reload = new HangupReload(options.file());
            reload.install();
            Daemon daemon;
            try {
                daemon = Daemon.start(config);
            } catch (Exception | Error e) {
                reload.close();
                throw e;
            }
            reload.serve(daemon);
            CountDownLatch stopped = new CountDownLatch(1);
            Thread hook = new Thread(() -> {
                reload.close();
                daemon.close();
                stopped.countDown();
            }, "tapeq-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            daemon.deposed().thenRun(stopped::countDown);
            stopped.await();
            if (daemon.deposed().isDone()) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook); // it would wait for a stop that hangs
                } catch (IllegalStateException e) {
                    // the JVM is shutting down already: its hook stops the daemon
                }
                closeDeposed(daemon);
                System.err.println("tapeq daemon: deposed: " + daemon.deposed().join());
                return EXIT_LEASE_HELD;
            }
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Queues per cartridge, drives, cartridges, oldest request, rates.")
    static final class StatusCmd extends ControlCall {
        @Option(names = "--json", description = "print the status as JSON")
        boolean json;

        @Option(names = "--offset", paramLabel = "N", description = "show the queues and parked flushes from the "
                + "N-th on (0 is the first; the totals are always shown)")
        int offset;

        @Option(names = "--limit", paramLabel = "N", description = "show at most N queues and N parked flushes per "
                + "directory (default ${DEFAULT-VALUE}, at most " + StatusPage.MAX_LIMIT + ")")
        int limit = StatusPage.DEFAULT_LIMIT;

        @Override
        AdminCommand command() {
            return new AdminCommand.Status(new StatusPage(offset, limit));
        }

        @Override
        void print(JsonNode status, PrintWriter out) throws Exception {
            if (json) {
                out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(status));
            } else {
                StatusText.print(status, out);
            }
        }
    }

    /** Stops a deposed daemon, waiting at most {@link #DEPOSED_STOP_MILLIS} for it. */
    private static void closeDeposed(Daemon daemon) throws InterruptedException {
        Thread stopping = new Thread(daemon::close, "tapeq-deposed-stop");
        stopping.setDaemon(true);
        stopping.start();
        stopping.join(DEPOSED_STOP_MILLIS);
        if (stopping.isAlive()) {
            System.err.println("tapeq daemon: deposed: the stop did not end within " + DEPOSED_STOP_MILLIS / 1000
                    + " s (the catalog is unreachable); exiting anyway");
        }
    }
}
