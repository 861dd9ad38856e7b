package org.tapeq.tools.demo;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.tapeq.daemon.rehearsal.ScratchTree;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tapeq bench-hosts}: the scale-out benchmark. N stage requests queued over two pools' request directories,
 * for files laid out co-located on size-only simulated cartridges, first on one host (one daemon, SQLite) and then
 * on a site of three hosts (active and standby scheduler, two movers, the library process, one PostgreSQL); the
 * active scheduler is killed with SIGKILL with N queued. Prints what it measured and a JSON line; asserts nothing
 * beyond the run completing. {@link HostsBench} runs it.
 */
@Command(name = "bench-hosts", mixinStandardHelpOptions = true,
        description = "Benchmark: N stage requests queued on one host and on three hosts (separate processes on "
                + "127.0.1.1-3, one PostgreSQL, two pools), the active scheduler killed with N queued; prints intake "
                + "rate, scheduler CPU per request, failover times and mounts per cartridge, then a JSON line.")
public final class HostsBenchCommand implements Callable<Integer> {

    @Option(names = "--requests", defaultValue = "1000000", description = "stage requests (default ${DEFAULT-VALUE})")
    int requests;

    @Option(names = "--cartridges", defaultValue = "100",
            description = "cartridges the files are spread over, one dataset each (default ${DEFAULT-VALUE})")
    int cartridges;

    @Option(names = "--drives", defaultValue = "4",
            description = "drives, half on each mover on three hosts (default ${DEFAULT-VALUE})")
    int drives;

    @Option(names = "--file-size", defaultValue = "100000", description = "bytes per file (default ${DEFAULT-VALUE})")
    long fileSize;

    @Option(names = "--speed", defaultValue = "10000",
            description = "how much faster than real tape the library runs (default ${DEFAULT-VALUE})")
    double speed;

    @Option(names = "--heap", defaultValue = "4g", description = "the schedulers' -Xmx (default ${DEFAULT-VALUE})")
    String heap;

    @Option(names = "--scheduler-jvm-option", paramLabel = "OPTION", description = "one more option for the "
            + "schedulers' JVMs, repeatable: e.g. -XX:StartFlightRecording=filename=DIR/,settings=profile to profile "
            + "the standby's takeover (with an existing directory JFR names each process's file by its pid)")
    java.util.List<String> schedulerJvmOptions = new java.util.ArrayList<>();

    @Option(names = "--catalog-url", paramLabel = "JDBC-URL", description = "the PostgreSQL server on which a fresh "
            + "database is made for the run (default: TAPEQ_DEMO_PG_URL, else an embedded PostgreSQL)")
    String catalogUrl;

    @Option(names = "--no-completion", description = "stop after the failover: no recall, so no mounts per cartridge")
    boolean noCompletion;

    @Option(names = "--no-one-host", description = "skip the one-host run")
    boolean noOneHost;

    @Option(names = "--dir", description = "work directory (default: a new temporary directory, removed at the end)")
    Path dir;

    @Option(names = "--keep", description = "keep the work directory (configurations, logs) and the run's "
            + "PostgreSQL database at the end")
    boolean keep;

    @Option(names = "--timeout", defaultValue = "3600",
            description = "give up when one phase takes longer than this many seconds (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Override
    public Integer call() throws Exception {
        if (drives < 2 || drives % 2 != 0) {
            throw new IllegalArgumentException("--drives " + drives + ": the drives are split evenly over two "
                    + "movers, so an even number of at least 2");
        }
        if (!heap.matches("[0-9]+[kKmMgG]?")) {
            throw new IllegalArgumentException("--heap " + heap + ": a size as -Xmx takes it, e.g. 4g");
        }
        if (requests < 1 || cartridges < 1 || fileSize < 1 || !(speed > 0) || timeoutSeconds < 1) {
            throw new IllegalArgumentException("need --requests >= 1, --cartridges >= 1, --file-size >= 1, "
                    + "--speed > 0 and --timeout >= 1");
        }
        // the benchmark's own lines say what happens; the daemon's log (preparing the tapes) is for operators
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("org.tapeq"))
                .setLevel(ch.qos.logback.classic.Level.WARN);
        boolean temporary = dir == null;
        Path root = temporary ? Files.createTempDirectory("tapeq-bench-hosts-") : Files.createDirectories(dir);
        PrintStream out = System.out;
        try {
            new HostsBench(this, out, System.err).run(root);
        } finally {
            if (temporary && !keep) {
                ScratchTree.delete(root);
            } else {
                out.println("kept " + root);
            }
        }
        return 0;
    }
}
