package org.tapeq.simulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.tapeq.charts.LineChart;
import org.tapeq.charts.Series;

/**
 * The results of one scenario: every policy over every seed. Renders the table (mean, and min-max over seeds
 * when there are several), CSV (one row per policy and seed), the one-line JSON summary and the plots.
 */
public final class ScenarioReport {

    /** One column: table header and display value, CSV name and raw value (seconds, fractions). */
    private record Column(String header, String format, ToDoubleFunction<PolicyResult> shown, String csv,
                          ToDoubleFunction<PolicyResult> raw) {
    }

    private static final List<Column> COLUMNS = List.of(
            new Column("makespan h", "%.2f", r -> r.makespanS() / 3600, "makespan_s", PolicyResult::makespanS),
            new Column("x bound", "%.3f", PolicyResult::ratio, "ratio_to_bound", PolicyResult::ratio),
            new Column("mounts/cart", "%.2f", PolicyResult::mountsPerCartridge, "mounts_per_cartridge",
                    PolicyResult::mountsPerCartridge),
            new Column("locate h", "%.2f", r -> r.locateS() / 3600, "locate_s", PolicyResult::locateS),
            new Column("locate %", "%.1f", r -> 100 * r.locateShare(), "locate_share", PolicyResult::locateShare),
            new Column("MB/s/drive", "%.0f", PolicyResult::mbPerDrive, "mb_per_s_per_drive",
                    PolicyResult::mbPerDrive),
            new Column("eff %", "%.1f", r -> 100 * r.driveEfficiency(), "drive_efficiency",
                    PolicyResult::driveEfficiency),
            new Column("write eff %", "%.1f", r -> 100 * r.writeEfficiency(), "write_efficiency",
                    PolicyResult::writeEfficiency),
            new Column("p50 h", "%.2f", r -> r.latencyP50S() / 3600, "latency_p50_s", PolicyResult::latencyP50S),
            new Column("p99 h", "%.2f", r -> r.latencyP99S() / 3600, "latency_p99_s", PolicyResult::latencyP99S),
            new Column("idle %", "%.1f", r -> 100 * r.idleShare(), "drives_idle", PolicyResult::idleShare),
            new Column("failed", "%.0f", r -> r.failed(), "failed", r -> r.failed()));

    /** The plots' time axis ends at this many times the bound (or the longest makespan, if shorter). */
    static final double PLOT_BOUNDS = 3;

    private final String scenario;
    private final String description;
    private final String physics;
    private final List<Double> bounds = new ArrayList<>();
    private final List<Double> bestLocates = new ArrayList<>();
    private final List<Double> entryLocates = new ArrayList<>();
    private final List<Double> oracleLocates = new ArrayList<>();
    private final Map<String, List<PolicyResult>> byPolicy = new LinkedHashMap<>();

    public ScenarioReport(String scenario, String description) {
        this(scenario, description, "nominal");
    }

    /** The results of a scenario in a library with the named physics profile. */
    public ScenarioReport(String scenario, String description, String physics) {
        this.scenario = scenario;
        this.description = description;
        this.physics = physics;
    }

    public void add(PolicyResult r) {
        byPolicy.computeIfAbsent(r.name(), k -> new ArrayList<>()).add(r);
        if (byPolicy.get(r.name()).size() > bounds.size()) {
            bounds.add(r.boundS());
            bestLocates.add(r.bestLocateS());
            entryLocates.add(r.entryLocateS());
            oracleLocates.add(r.oracleLocateS());
        }
    }

    public double meanBoundS() {
        return bounds.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }

    /** Mean over seeds of the locate time of the best order of whole runs, NaN where it is not computed. */
    public double meanBestLocateS() {
        return bestLocates.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    /** Mean over seeds of the bound's locate term (each requested file's cheapest entry). */
    public double meanEntryLocateS() {
        return entryLocates.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    /** Mean over seeds of the greedy order's locate time on the true physics, NaN without reads. */
    public double meanOracleLocateS() {
        return oracleLocates.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    private static double mean(List<PolicyResult> rs, ToDoubleFunction<PolicyResult> f) {
        return rs.stream().mapToDouble(f).average().orElse(0);
    }

    private static double min(List<PolicyResult> rs, ToDoubleFunction<PolicyResult> f) {
        return rs.stream().mapToDouble(f).min().orElse(0);
    }

    private static double max(List<PolicyResult> rs, ToDoubleFunction<PolicyResult> f) {
        return rs.stream().mapToDouble(f).max().orElse(0);
    }

    /** The human-readable table: mean over seeds, and min-max below each row when there are several seeds. */
    public String table() {
        StringBuilder out = new StringBuilder();
        int seeds = bounds.size();
        out.append(String.format(Locale.ROOT, "scenario %s: %s%n", scenario, description));
        out.append(String.format(Locale.ROOT, "physics %s%n", physics));
        out.append(String.format(Locale.ROOT, "physical bound %.2f h (mean over %d seed%s)%n", meanBoundS() / 3600,
                seeds, seeds == 1 ? "" : "s"));
        if (!Double.isNaN(meanOracleLocateS())) {
            out.append(String.format(Locale.ROOT, "locate: bound %.2f h (each requested file entered once, each"
                    + " file's end before at most one), oracle %.2f h (greedy on the true physics, one mount per"
                    + " cartridge)%n",
                    meanEntryLocateS() / 3600, meanOracleLocateS() / 3600));
        }
        if (!Double.isNaN(meanBestLocateS())) {
            out.append(String.format(Locale.ROOT, "best read order %.2f h of locate with one mount per cartridge"
                    + " (whole runs, each entered at its start or a wrap turn; library physics)%n",
                    meanBestLocateS() / 3600));
        }
        out.append(String.format(Locale.ROOT, "%-20s", "policy"));
        for (Column c : COLUMNS) {
            out.append(String.format(Locale.ROOT, " %12s", c.header()));
        }
        out.append(String.format(Locale.ROOT, " %9s%n", "wall s"));
        for (Map.Entry<String, List<PolicyResult>> e : byPolicy.entrySet()) {
            List<PolicyResult> rs = e.getValue();
            out.append(String.format(Locale.ROOT, "%-20s", e.getKey()));
            for (Column c : COLUMNS) {
                out.append(String.format(Locale.ROOT, " %12s", String.format(Locale.ROOT, c.format(),
                        mean(rs, c.shown()))));
            }
            out.append(String.format(Locale.ROOT, " %9.1f%n", mean(rs, PolicyResult::wallS)));
            if (rs.size() > 1) {
                out.append(String.format(Locale.ROOT, "%-20s", "  min-max"));
                for (Column c : COLUMNS) {
                    out.append(String.format(Locale.ROOT, " %12s", String.format(Locale.ROOT, c.format() + "-"
                            + c.format(), min(rs, c.shown()), max(rs, c.shown()))));
                }
                out.append(System.lineSeparator());
            }
        }
        return out.toString();
    }

    /**
     * The figures of one scenario over several physics profiles: per policy, each column as the range (min-max)
     * of the per-profile means; then each policy's locate hours per profile.
     */
    public static String sweepTable(List<ScenarioReport> perProfile) {
        StringBuilder out = new StringBuilder();
        ScenarioReport first = perProfile.get(0);
        List<String> names = perProfile.stream().map(r -> r.physics).toList();
        out.append(String.format(Locale.ROOT, "scenario %s over %d physics profiles (%s), each the mean over %d"
                + " seed%s: min-max over the profiles%n", first.scenario, perProfile.size(), String.join(", ", names),
                first.bounds.size(), first.bounds.size() == 1 ? "" : "s"));
        out.append(String.format(Locale.ROOT, "physical bound %s h%n", range(perProfile, r -> r.meanBoundS() / 3600,
                "%.2f")));
        if (!Double.isNaN(first.meanOracleLocateS())) {
            out.append(String.format(Locale.ROOT, "locate: bound %s h, oracle %s h%n",
                    range(perProfile, r -> r.meanEntryLocateS() / 3600, "%.2f"),
                    range(perProfile, r -> r.meanOracleLocateS() / 3600, "%.2f")));
        }
        if (!Double.isNaN(first.meanBestLocateS())) {
            out.append(String.format(Locale.ROOT, "best read order %s h of locate%n",
                    range(perProfile, r -> r.meanBestLocateS() / 3600, "%.2f")));
        }
        out.append(String.format(Locale.ROOT, "%-20s", "policy"));
        for (Column c : COLUMNS) {
            out.append(String.format(Locale.ROOT, " %13s", c.header()));
        }
        out.append(System.lineSeparator());
        for (String policy : first.byPolicy.keySet()) {
            out.append(String.format(Locale.ROOT, "%-20s", policy));
            for (Column c : COLUMNS) {
                out.append(String.format(Locale.ROOT, " %13s", range(perProfile,
                        r -> mean(r.byPolicy.get(policy), c.shown()), c.format())));
            }
            out.append(System.lineSeparator());
        }
        out.append(String.format(Locale.ROOT, "%-20s", "locate h by profile"));
        for (String n : names) {
            out.append(String.format(Locale.ROOT, " %13s", n));
        }
        out.append(System.lineSeparator());
        for (String policy : first.byPolicy.keySet()) {
            out.append(String.format(Locale.ROOT, "%-20s", policy));
            for (ScenarioReport r : perProfile) {
                out.append(String.format(Locale.ROOT, " %13.2f", mean(r.byPolicy.get(policy), PolicyResult::locateS)
                        / 3600));
            }
            out.append(System.lineSeparator());
        }
        return out.toString();
    }

    private static String range(List<ScenarioReport> reports, ToDoubleFunction<ScenarioReport> f, String format) {
        double lo = reports.stream().mapToDouble(f).min().orElse(0);
        double hi = reports.stream().mapToDouble(f).max().orElse(0);
        return String.format(Locale.ROOT, format + "-" + format, lo, hi);
    }

    /** The CSV header line. */
    public static String csvHeader() {
        StringBuilder out = new StringBuilder("scenario,physics,policy,seed,bound_s,best_locate_s,"
                + "bound_locate_s,oracle_locate_s");
        for (Column c : COLUMNS) {
            out.append(',').append(c.csv());
        }
        return out.append(",mounts,cartridges_mounted,completed,preload_s,wall_s,speedup,cpu_s,cpu_speedup").toString();
    }

    /** One CSV line per policy and seed (no header). */
    public List<String> csvRows() {
        List<String> rows = new ArrayList<>();
        for (List<PolicyResult> rs : byPolicy.values()) {
            for (PolicyResult r : rs) {
                StringBuilder out = new StringBuilder();
                out.append(scenario).append(',').append(physics).append(',').append(r.name()).append(',').append(r.seed()).append(',')
                        .append(num(r.boundS())).append(',')
                        .append(Double.isNaN(r.bestLocateS()) ? "" : num(r.bestLocateS())).append(',')
                        .append(num(r.entryLocateS())).append(',')
                        .append(Double.isNaN(r.oracleLocateS()) ? "" : num(r.oracleLocateS()));
                for (Column c : COLUMNS) {
                    out.append(',').append(num(c.raw().applyAsDouble(r)));
                }
                out.append(',').append(r.mounts()).append(',').append(r.cartridgesMounted()).append(',')
                        .append(r.completed()).append(',').append(num(r.setupS())).append(',')
                        .append(num(r.wallS())).append(',')
                        .append(num(r.speedup())).append(',').append(num(r.cpuS())).append(',')
                        .append(num(r.cpuSpeedup()));
                rows.add(out.toString());
            }
        }
        return rows;
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.6g", v);
    }

    /** The one-line JSON summary: the CSV columns as means over seeds, plus the seeds and min/max makespan. */
    public String json() {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("scenario", scenario);
        root.put("physics", physics);
        root.put("bound_s", meanBoundS());
        if (!Double.isNaN(meanBestLocateS())) {
            root.put("best_locate_s", meanBestLocateS());
        }
        if (!Double.isNaN(meanOracleLocateS())) {
            root.put("bound_locate_s", meanEntryLocateS());
            root.put("oracle_locate_s", meanOracleLocateS());
        }
        ArrayNode seeds = root.putArray("seeds");
        byPolicy.values().stream().findFirst().ifPresent(rs -> rs.forEach(r -> seeds.add(r.seed())));
        ArrayNode policies = root.putArray("policies");
        for (Map.Entry<String, List<PolicyResult>> e : byPolicy.entrySet()) {
            List<PolicyResult> rs = e.getValue();
            ObjectNode p = policies.addObject();
            p.put("name", e.getKey());
            for (Column c : COLUMNS) {
                p.put(c.csv(), mean(rs, c.raw()));
            }
            p.put("makespan_s_min", min(rs, PolicyResult::makespanS));
            p.put("makespan_s_max", max(rs, PolicyResult::makespanS));
            p.put("wall_s", mean(rs, PolicyResult::wallS));
            p.put("preload_s", mean(rs, PolicyResult::setupS));
            p.put("cpu_s", mean(rs, PolicyResult::cpuS));
        }
        try {
            return mapper.writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes {@code <scenario>-queue.png} and {@code <scenario>-throughput.png} (first seed) into {@code dir}. The
     * time axis ends at {@link #PLOT_BOUNDS} times the bound, so a policy far slower than the others (fifo) does
     * not squeeze them into its first tenth: its lines leave the plot at the right.
     */
    public List<Path> plots(Path dir) throws IOException {
        double longest = 0;
        for (List<PolicyResult> rs : byPolicy.values()) {
            longest = Math.max(longest, rs.get(0).makespanS());
        }
        double xMax = Math.min(longest, PLOT_BOUNDS * bounds.get(0)) / 3600;
        LineChart queue = new LineChart(scenario + ": requests outstanding", "hours", "requests").stepped()
                .legendOutside().xMax(xMax);
        LineChart rate = new LineChart(scenario + ": throughput", "hours", "MB/s").legendOutside().xMax(xMax);
        for (List<PolicyResult> rs : byPolicy.values()) {
            PolicyResult first = rs.get(0);
            queue.add(first.queueDepth());
            rate.add(smooth(first.throughput()));
        }
        return List.of(queue.writePng(dir.resolve(scenario + "-queue.png"), 800, 400),
                rate.writePng(dir.resolve(scenario + "-throughput.png"), 800, 400));
    }

    /** A moving average over 5 points, so a plot shows the trend rather than per-interval noise. */
    private static Series smooth(Series s) {
        double[] y = new double[s.size()];
        for (int i = 0; i < y.length; i++) {
            double sum = 0;
            int n = 0;
            for (int k = Math.max(0, i - 2); k <= Math.min(y.length - 1, i + 2); k++) {
                sum += s.y()[k];
                n++;
            }
            y[i] = sum / n;
        }
        return new Series(s.name(), s.x(), y);
    }
}
