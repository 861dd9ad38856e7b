package org.tapeq.simulator;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.tapeq.simulator.workload.Workload;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tapeq simulate}: policies side by side on a scenario, in virtual time, against the physical bound. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = {"Runs the real scheduler in virtual time on a simulated library, each policy on the same "
                + "seeded workload, and prints a table with each policy's ratio to the physical lower bound.",
                "Scenarios: bulk-recall, bulk-recall-scattered, carousel, dt-write, dt-write-100mb, mixed, trickle "
                        + "(--list describes them)."})
public final class SimulateCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "SCENARIO", description = "scenario(s) to run (all if none)")
    List<String> scenarios = new ArrayList<>();

    @Option(names = "--policies", split = ",", paramLabel = "NAME",
            description = "policies to compare (default: fifo,endit,cta,tapeq; also tapeq-file-sequence)")
    List<String> policies;

    @Option(names = "--seed", paramLabel = "N", description = "first seed (default: ${DEFAULT-VALUE})")
    long seed = 1;

    @Option(names = "--seeds", paramLabel = "N",
            description = "number of seeds, seed .. seed+N-1; the table shows mean and min-max (default: 1)")
    int seeds = 1;

    @Option(names = "--scale", paramLabel = "F",
            description = "multiply files, cartridges and durations (default: 1 = full size)")
    double scale = 1;

    @Option(names = "--csv", paramLabel = "FILE", description = "write one CSV row per scenario, policy and seed")
    Path csv;

    @Option(names = "--plots", paramLabel = "DIR", description = "write queue-depth and throughput PNGs here")
    Path plots;

    @Option(names = "--json", description = "print one JSON object per scenario as the last line(s)")
    boolean json;

    @Option(names = "--list", description = "list the scenarios and policies, and exit")
    boolean list;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        if (list) {
            for (String name : Scenarios.names()) {
                out.printf(Locale.ROOT, "%-22s %s%n", name, Scenarios.get(name).description());
            }
            out.println("policies: " + String.join(", ", SimPolicies.names()));
            out.flush();
            return 0;
        }
        List<String> names = scenarios.isEmpty() ? List.copyOf(Scenarios.names()) : scenarios;
        List<String> policyNames = policies == null || policies.isEmpty() ? policyDefaults(names) : policies;
        validate(names, policyNames);
        List<ScenarioReport> reports = new ArrayList<>();
        for (String name : names) {
            Scenario scenario = Scenarios.get(name);
            ScenarioReport report = new ScenarioReport(name, scenario.description());
            for (long s = seed; s < seed + seeds; s++) {
                Workload w = scenario.build(s, scale);
                for (String p : policyNames) {
                    PolicyResult r = SimulationRun.run(w, SimPolicies.get(p));
                    report.add(r);
                    spec.commandLine().getErr().printf(Locale.ROOT, "%s seed %d %s: %.2f h virtual in %.1f s"
                            + " (%.0fx real time), %.1f s CPU (%.0fx); preload %.1f s%n", name, s, p,
                            r.makespanS() / 3600, r.wallS(), r.speedup(), r.cpuS(), r.cpuSpeedup(), r.setupS());
                }
            }
            out.print(report.table());
            out.println();
            out.flush();
            if (plots != null) {
                for (Path png : report.plots(plots)) {
                    out.println("plot: " + png);
                }
            }
            reports.add(report);
        }
        if (csv != null) {
            List<String> lines = new ArrayList<>();
            lines.add(ScenarioReport.csvHeader());
            for (ScenarioReport r : reports) {
                lines.addAll(r.csvRows());
            }
            Path parent = csv.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.write(csv, lines, StandardCharsets.UTF_8);
            out.println("csv: " + csv);
        }
        if (json) {
            for (ScenarioReport r : reports) {
                out.println(r.json());
            }
        }
        out.flush();
        return 0;
    }

    /** The bulk recalls also run tapeq with file-sequence order, the reference for the locate time saved. */
    private static List<String> policyDefaults(List<String> names) {
        List<String> p = new ArrayList<>(SimPolicies.defaults());
        if (names.stream().anyMatch(n -> n.startsWith("bulk-recall"))) {
            p.add(SimPolicies.TAPEQ_FILE_SEQUENCE);
        }
        return p;
    }

    private void validate(List<String> names, List<String> policyNames) {
        try {
            names.forEach(Scenarios::get);
            policyNames.forEach(SimPolicies::get);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (seeds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--seeds must be at least 1: " + seeds);
        }
        if (!(scale > 0) || scale > 10) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--scale must be in (0, 10]: " + scale);
        }
    }

    /** Runs the command on its own (the packaged {@code tapeq simulate} runs it as a subcommand). */
    public static void main(String[] args) {
        System.exit(new CommandLine(new SimulateCommand()).execute(args));
    }
}
