package org.tapeq.loadtest;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.daemon.rehearsal.ScratchTree;
import org.tapeq.loadtest.report.ReportWriter;
import org.tapeq.loadtest.report.Verdict;
import org.tapeq.loadtest.run.ExistingDaemon;
import org.tapeq.loadtest.run.FileList;
import org.tapeq.loadtest.run.LoadRun;
import org.tapeq.loadtest.run.Plan;
import org.tapeq.loadtest.run.StartedDaemon;
import org.tapeq.loadtest.run.Target;
import org.tapeq.workload.scenario.Activity;
import org.tapeq.workload.scenario.Scenario;
import org.tapeq.workload.scenario.ScenarioFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tapeq loadtest SCENARIO.yaml}: runs a scenario against a daemon it starts (the scenario's simulated
 * library, or {@code --daemon-config} for a site's configuration) or against a running daemon's request directory
 * ({@code --request-dir}), shows progress, and writes the report. Ctrl-C stops issuing and writes a partial report.
 */
@Command(name = "loadtest", mixinStandardHelpOptions = true,
        description = "Replay a tape-challenge, carousel, burst or mixed workload (a scenario YAML file) through the "
                + "provider and a live daemon; write a report (Markdown, PNG plots, JSON) with pass/fail.")
public final class LoadtestCommand implements Callable<Integer> {

    /** How long Ctrl-C waits for the partial report before the JVM exits anyway. */
    static final long REPORT_GRACE_SECONDS = 120;

    @Parameters(index = "0", paramLabel = "SCENARIO", description = "the scenario file (see docs/loadtest.md)")
    Path scenarioFile;

    @Option(names = "--daemon-config", paramLabel = "FILE",
            description = "start the daemon from this configuration (a site's; any backend) instead of the "
                    + "scenario's simulated library; the first request directory is driven")
    Path daemonConfig;

    @Option(names = "--request-dir", paramLabel = "DIR",
            description = "drive a daemon that is already running (tapeq or ENDIT) on this request directory")
    Path requestDir;

    @Option(names = "--inputs", paramLabel = "PATH",
            description = "every adt experiment recalls the files of its name that an earlier dt wrote: PATH is "
                    + "that run's report folder or its " + FileList.NAME + " (replaces the scenario's inputs:); the "
                    + "daemon must still hold them (--daemon-config, --request-dir, or the dt's --work DIR)")
    Path inputs;

    @Option(names = "--speed", defaultValue = "1", paramLabel = "S",
            description = "with --request-dir: how much faster than real time its library runs (default 1)")
    double speed;

    @Option(names = "--pool-dir", paramLabel = "DIR", description = "the emulated pool's data directory; must be on "
            + "the request directory's filesystem (default: pool/ in the work directory of the scenario's library, "
            + "else <request directory>.loadtest-pool next to the request directory)")
    Path poolDir;

    @Option(names = {"-o", "--out"}, paramLabel = "DIR",
            description = "where the report goes (default: loadtest-<name>-<time> in the current directory)")
    Path out;

    @Option(names = "--work", paramLabel = "DIR",
            description = "work directory for the started daemon (default: a temporary one, removed at the end)")
    Path work;

    @Option(names = "--keep", description = "keep the work directory")
    boolean keep;

    @Option(names = "--verbose", description = "show the daemon's and the provider's log (INFO)")
    boolean verbose;

    private final PrintStream progress = System.err;

    @Override
    public Integer call() throws Exception {
        Scenario scenario = ScenarioFile.load(scenarioFile, inputs == null ? null : inputs.normalize());
        if (daemonConfig != null && requestDir != null) {
            throw new IllegalArgumentException("give --daemon-config or --request-dir, not both");
        }
        if (!(speed > 0)) {
            throw new IllegalArgumentException("--speed must be > 0");
        }
        if (!verbose) {
            ((Logger) LoggerFactory.getLogger("org.tapeq")).setLevel(Level.WARN);
        }
        Path report = out != null ? out : Path.of("loadtest-" + scenario.name() + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Plan plan = Plan.of(scenario);
        boolean temporary = work == null && requestDir == null && daemonConfig == null;
        Path workDir = work != null ? Files.createDirectories(work)
                : temporary ? Files.createTempDirectory("tapeq-loadtest-") : null;
        progress.printf("tapeq loadtest %s: %,d measured requests (%,d input files written first), seed %d%n",
                scenario.name(), plan.measuredCount(), plan.prepare().size(), scenario.seed());
        Target target;
        try {
            target = openTarget(scenario, plan, workDir);
        } catch (Exception e) {
            if (temporary && !keep) {
                ScratchTree.delete(workDir);
            }
            throw e;
        }
        progress.println("target: " + target.describe());
        Path pool = poolDir != null ? poolDir : requestDir != null || daemonConfig != null
                ? target.requestDirectory().resolveSibling(target.requestDirectory().getFileName() + ".loadtest-pool")
                : workDir.resolve("pool");
        LoadRun run = new LoadRun(scenario, plan, target, pool, progress, System.console() != null);
        ReportWriter.Written written = withStopHook(run, JVM_HOOKS, () -> {
            try (target) {
                return ReportWriter.write(run.run(), report);
            } finally {
                if (temporary && !keep) {
                    ScratchTree.delete(workDir);
                } else if (workDir != null) {
                    progress.println("work directory kept: " + workDir);
                }
            }
        });
        Verdict v = written.verdict();
        System.out.printf("%s%s: %s; report %s%n", scenario.name(), written.run().partial() ? " (partial)" : "",
                v.passed() ? "PASSED" : "FAILED", written.markdown());
        return v.passed() ? 0 : 1;
    }

    private Target openTarget(Scenario scenario, Plan plan, Path workDir) throws Exception {
        if (scenario.has(Activity.BURST) && (requestDir != null || daemonConfig != null)) {
            throw new IllegalArgumentException(scenario.source() + ": a burst runs only against the daemon the "
                    + "harness starts with its own size-only library (its files are put on tape before the start); "
                    + "use an adt with maxOutstanding 0 against this target");
        }
        if (requestDir != null) {
            return new ExistingDaemon(requestDir, speed);
        }
        if (daemonConfig != null) {
            return StartedDaemon.fromConfig(daemonConfig);
        }
        return StartedDaemon.simulated(scenario, plan, workDir);
    }

    /** Where the stop hook goes: the JVM's shutdown hooks (a test passes its own and plays the signal). */
    interface Hooks {
        void add(Thread hook);

        void remove(Thread hook);
    }

    static final Hooks JVM_HOOKS = new Hooks() {
        @Override
        public void add(Thread hook) {
            Runtime.getRuntime().addShutdownHook(hook);
        }

        @Override
        public void remove(Thread hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook is running and has seen the body finish
            }
        }
    };

    /**
     * Runs {@code body} (the run, its report, closing the daemon) with a stop hook installed: Ctrl-C (or SIGTERM)
     * stops the run through {@link #stopHook}, and the JVM waits until {@code body} has finished.
     */
    static <T> T withStopHook(LoadRun run, Hooks hooks, Callable<T> body) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(stopHook(run, done), "loadtest-stop");
        hooks.add(hook);
        try {
            return body.call();
        } finally {
            done.countDown();
            hooks.remove(hook);
        }
    }

    /** What Ctrl-C does: stop issuing, then wait (bounded) until the partial report is written and all is closed. */
    static Runnable stopHook(LoadRun run, CountDownLatch reported) {
        return () -> {
            run.stop("interrupted (Ctrl-C or SIGTERM)");
            try {
                reported.await(REPORT_GRACE_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

}
