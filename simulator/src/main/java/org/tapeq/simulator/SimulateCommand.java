package org.tapeq.simulator;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.tapeq.config.ConfigException;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.sim.PhysicsProfile;
import org.tapeq.workload.Workload;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tapeq simulate}: policies side by side on a scenario, in virtual time, against the physical bound. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = {"Runs the real scheduler in virtual time on a simulated library, each policy on the same "
                + "seeded workload, and prints a table with each policy's ratio to the physical lower bound.",
                "Scenarios: bulk-recall, bulk-recall-scattered, carousel, dt-write, dt-write-100mb, mixed, trickle, "
                        + "small-files, many-datasets, recall-beside-repack, recall-stage-buffer, "
                        + "recall-drive-failures "
                        + "(--list describes them), or scenario files (FILE.yaml, the format of tapeq loadtest)."})
public final class SimulateCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "SCENARIO",
            description = "built-in scenario(s) by name or scenario file(s) FILE.yaml to run (all built-in ones if none)")
    List<String> scenarios = new ArrayList<>();

    @Option(names = "--policies", split = ",", paramLabel = "NAME",
            description = "policies to compare (default: dcache,endit,cta,tapeq; also fifo, tapeq-file-sequence)")
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

    @Option(names = "--physics", paramLabel = "NAME|FILE",
            description = "physics profile of the simulated library: a built-in name or a profile file FILE.yaml "
                    + "(all its profiles); default: nominal")
    String physics;

    @Option(names = "--physics-sweep",
            description = "run every built-in physics profile and report each figure as a range over them")
    boolean physicsSweep;

    @Option(names = "--media", paramLabel = "TYPE",
            description = "cartridge media of every scenario (LTO8, LTO9, TS1160) in place of its library.media")
    String media;

    @Option(names = "--drive-failures", paramLabel = "N@H[+R]",
            description = "the first N drives fail H hours into each run and are repaired and put back R hours"
                    + " later (default 2)")
    String driveFailures;

    @Option(names = "--list", description = "list the scenarios and policies, and exit")
    boolean list;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        if (list) {
            for (String name : Scenarios.names()) {
                out.printf(Locale.ROOT, "%-22s %s%n", name, Scenarios.get(name).description());
            }
            out.println("or a scenario file: NAME.yaml (docs/simulator.md)");
            out.println("policies: " + String.join(", ", SimPolicies.names()) + ", " + SimPolicies.REMOUNT_GUARD_PREFIX
                    + "<minutes>m");
            out.println("physics: " + String.join(", ",
                    PhysicsProfiles.family().stream().map(PhysicsProfile::name).toList()));
            out.flush();
            return 0;
        }
        List<String> names = scenarios.isEmpty() ? List.copyOf(Scenarios.names()) : scenarios;
        List<Scenarios.Sim> chosen = validate(names);
        List<String> policyNames = policies == null || policies.isEmpty() ? policyDefaults(chosen) : policies;
        validatePolicies(policyNames);
        List<PhysicsProfile> profiles = profiles();
        DriveFailures failures = failures(chosen);
        List<ScenarioReport> reports = new ArrayList<>();
        for (Scenarios.Sim scenario : chosen) {
            String name = scenario.name();
            List<ScenarioReport> perProfile = new ArrayList<>();
            boolean repack = scenario.scenario().options().repack() != null;
            for (PhysicsProfile profile : profiles) {
                ScenarioReport report = new ScenarioReport(name, scenario.description(), profile.name());
                RepackSlowdown slowdown = new RepackSlowdown(name);
                for (long s = seed; s < seed + seeds; s++) {
                    Workload w = scenario.build(s, scale);
                    Map<PhysicsProfile, PhysicalBound> bounds = new HashMap<>();
                    for (String p : policyNames) {
                        PolicyResult r = SimulationRun.run(w, SimPolicies.get(p), profile, bounds, failures);
                        report.add(r);
                        progress(name + (repack ? " (beside the repack)" : ""), profile, s, p, r);
                        if (repack) {
                            PolicyResult alone = SimulationRun.run(w, SimPolicies.get(p), profile, bounds, failures,
                                    false);
                            progress(name + " (alone)", profile, s, p, alone);
                            slowdown.add(alone, r);
                        }
                    }
                }
                out.print(report.table());
                out.println();
                if (repack) {
                    out.print(slowdown.table());
                    out.println();
                }
                out.flush();
                if (plots != null && perProfile.isEmpty()) {
                    for (Path png : report.plots(plots)) {
                        out.println("plot: " + png);
                    }
                }
                perProfile.add(report);
            }
            if (perProfile.size() > 1) {
                out.print(ScenarioReport.sweepTable(perProfile));
                out.println();
                out.flush();
            }
            reports.addAll(perProfile);
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

    private void progress(String name, PhysicsProfile profile, long s, String p, PolicyResult r) {
        spec.commandLine().getErr().printf(Locale.ROOT, "%s [%s] seed %d %s: %.2f h virtual in %.1f s (%.0fx real"
                + " time), %.1f s CPU (%.0fx); preload %.1f s%n", name, profile.name(), s, p, r.makespanS() / 3600,
                r.wallS(), r.speedup(), r.cpuS(), r.cpuSpeedup(), r.setupS());
    }

    /** The physics profiles to run: the whole family with --physics-sweep, else the one named (nominal). */
    private List<PhysicsProfile> profiles() {
        try {
            if (physicsSweep && physics != null) {
                throw new IllegalArgumentException("--physics and --physics-sweep exclude each other");
            }
            if (physicsSweep) {
                return PhysicsProfiles.family();
            }
            return physics == null ? List.of(PhysicsProfile.NOMINAL) : PhysicsProfiles.get(physics);
        } catch (IllegalArgumentException | ConfigException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The bulk recalls also run tapeq with file-sequence order, the reference for the locate time saved. */
    private static List<String> policyDefaults(List<Scenarios.Sim> chosen) {
        List<String> p = new ArrayList<>(SimPolicies.defaults());
        if (chosen.stream().anyMatch(s -> s.name().startsWith("bulk-recall"))) {
            p.add(SimPolicies.TAPEQ_FILE_SEQUENCE);
        }
        return p;
    }

    /** The scenarios named (built-in names or files); any usage error names the choices or the file and key. */
    private List<Scenarios.Sim> validate(List<String> names) {
        if (seeds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--seeds must be at least 1: " + seeds);
        }
        try {
            Scenarios.checkScale(scale);
            MediaType type = null;
            if (media != null) {
                type = MediaType.byName(media).orElseThrow(() -> new IllegalArgumentException("--media: \""
                        + media + "\" is not a known media type; known: " + String.join(", ",
                        MediaType.KNOWN.stream().map(MediaType::name).toList())));
            }
            List<Scenarios.Sim> chosen = new ArrayList<>();
            for (String n : names) {
                Scenarios.Sim sim = Scenarios.get(n);
                chosen.add(type == null ? sim : sim.withMedia(type));
            }
            return chosen;
        } catch (IllegalArgumentException | ConfigException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The drive failures of every run, or null; a bad form or more drives than a scenario has is a usage error. */
    private DriveFailures failures(List<Scenarios.Sim> chosen) {
        if (driveFailures == null) {
            return null;
        }
        try {
            DriveFailures f = DriveFailures.parse(driveFailures);
            for (Scenarios.Sim s : chosen) {
                f.driveIds(s.scenario().library().drives());
            }
            return f;
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private void validatePolicies(List<String> policyNames) {
        try {
            policyNames.forEach(SimPolicies::get);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** Runs the command on its own (the packaged {@code tapeq simulate} runs it as a subcommand). */
    public static void main(String[] args) {
        System.exit(new CommandLine(new SimulateCommand()).execute(args));
    }
}
