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
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.tapeq.daemon.config.CatalogConfig;
import org.tapeq.daemon.control.AdminCommand;
import org.tapeq.scheduler.catalog.hints.EnditHints;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.catalog.jdbc.ProcessIdentity;
import org.tapeq.scheduler.time.Threads;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tapeq catalog import-hints|export|rebuild}. Import and export open the configured catalog themselves
 * (the daemon may run or not); rebuild asks the running daemon, which mounts the cartridges.
 */
@Command(name = "catalog", mixinStandardHelpOptions = true,
        synopsisSubcommandLabel = "(import-hints | export | rebuild)",
        description = "Import ENDIT hints, export the catalog, or rebuild cartridges' entries from tape.",
        subcommands = {CatalogCommands.ImportHints.class, CatalogCommands.Export.class,
                CatalogCommands.Rebuild.class})
final class CatalogCommands extends CommandGroup {

    @Command(name = "import-hints", mixinStandardHelpOptions = true,
            description = "Add the files of an ENDIT hint FILE (file id: cartridge, order, size) to the catalog.")
    static final class ImportHints implements Callable<Integer> {
        @CommandLine.Mixin
        TapeqCommand.ConfigOption options = new TapeqCommand.ConfigOption();

        @Parameters(paramLabel = "FILE", description = "ENDIT's hint file (JSON)")
        Path file;

        @Override
        public Integer call() throws Exception {
            CatalogConfig config = options.load().catalog();
            try (JdbcCatalog catalog = config.openBeforeLease()) { // migrated once the lease is held
                // Writes under a lease of its own, fenced like the daemon's: refused (CatalogLeaseException naming
                // the holder, exit 75) while a daemon holds the site; released when the catalog closes. The holder
                // carries this process's identity (a killed import does not block the daemon's start for a lease
                // timeout) and the lease is renewed, as the daemon's is, while the import runs.
                catalog.acquireLease(config.site(), ProcessIdentity.currentHolder(UUID.randomUUID().toString()),
                        hostName(), ProcessHandle.current().pid(), System.currentTimeMillis(),
                        config.leaseTimeoutMillis());
                ScheduledExecutorService renewer =
                        Executors.newSingleThreadScheduledExecutor(Threads.named("tapeq-import-lease"));
                long every = Math.max(1, config.leaseTimeoutMillis() / 3);
                renewer.scheduleWithFixedDelay(() -> renew(catalog), every, every, TimeUnit.MILLISECONDS);
                EnditHints.Result r;
                try {
                    r = EnditHints.importFile(file, catalog);
                } finally {
                    renewer.shutdownNow();
                    renewer.awaitTermination(10, TimeUnit.SECONDS);
                }
                System.out.printf("%s: %d imported, %d already known, %d rejected%n", r.file(), r.imported(),
                        r.alreadyKnown(), r.rejectedCount());
                r.rejected().forEach(x -> System.out.println("  rejected: " + x));
                return r.rejectedCount() == 0 ? 0 : 1;
            }
        }
    }

    /** Renews the import's lease; a refusal (taken over) shows in the import's next write, which is refused. */
    private static void renew(JdbcCatalog catalog) {
        try {
            catalog.renewLease(System.currentTimeMillis());
        } catch (RuntimeException e) {
            System.err.println("renewing the site lease failed: " + e.getMessage());
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = "Write the catalog as one JSON object per file per line.")
    static final class Export implements Callable<Integer> {
        @CommandLine.Mixin
        TapeqCommand.ConfigOption options = new TapeqCommand.ConfigOption();

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "write here, not to stdout")
        Path output;

        @Override
        public Integer call() throws IOException {
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
            return 0;
        }
    }

    @Command(name = "rebuild", mixinStandardHelpOptions = true,
            description = "Read each BARCODE back and rebuild its catalog entries from what is on tape.")
    static final class Rebuild extends ControlCall {
        @Parameters(paramLabel = "BARCODE", arity = "1..*", description = "the cartridges, read one after the other")
        List<String> barcodes;

        @Override
        AdminCommand command() {
            return new AdminCommand.CatalogRebuild(barcodes);
        }

        @Override
        void print(JsonNode reports, PrintWriter out) throws IOException {
            out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(reports));
        }
    }
}
