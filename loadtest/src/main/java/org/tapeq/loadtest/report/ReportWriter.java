package org.tapeq.loadtest.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.tapeq.charts.LineChart;
import org.tapeq.charts.Series;
import org.tapeq.config.Units;
import org.tapeq.loadtest.run.FileList;
import org.tapeq.loadtest.run.Format;
import org.tapeq.loadtest.run.RequestLog.End;
import org.tapeq.loadtest.run.RequestLog.Kind;
import org.tapeq.loadtest.run.RunRecord;
import org.tapeq.loadtest.run.Sample;
import org.tapeq.loadtest.run.Target;
import org.tapeq.workload.scenario.Activity;
import org.tapeq.workload.scenario.Experiment;
import org.tapeq.workload.scenario.Scenario;

/**
 * Writes a run's report into a directory: {@code report.md} (Markdown, the plots linked), {@code summary.json}
 * and four PNG plots (throughput, queue depth and outstanding requests, mounts, latency CDF per request kind); for a
 * run that writes (a DT), also the list of files it wrote ({@link FileList}), which a later A-DT recalls.
 * Every time and rate is in library time.
 */
public final class ReportWriter {

    public static final String MARKDOWN = "report.md";
    public static final String JSON = "summary.json";
    static final String THROUGHPUT_PNG = "throughput.png";
    static final String QUEUE_PNG = "queue.png";
    static final String MOUNTS_PNG = "mounts.png";
    static final String LATENCY_PNG = "latency.png";
    private static final int WIDTH = 800;
    private static final int HEIGHT = 400;
    /** Throughput is drawn as rates over about this many points. */
    private static final int RATE_POINTS = 150;

    private ReportWriter() {
    }

    /** What {@link #write} wrote: the run it reports, the Markdown file, and the verdict it states. */
    public record Written(RunRecord run, Path markdown, Verdict verdict) {
    }

    /** Writes the report; returns the Markdown file and the verdict, judged once for the report and the caller. */
    public static Written write(RunRecord run, Path dir) throws IOException {
        Files.createDirectories(dir);
        Summary s = Summary.of(run);
        Verdict v = Verdict.of(run, s);
        plots(run, s, dir);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve(JSON).toFile(),
                json(run, s, v));
        if (run.scenario().has(Activity.DT)) {
            FileList.write(dir.resolve(FileList.NAME), run.written());
        }
        Path md = dir.resolve(MARKDOWN);
        Files.writeString(md, markdown(run, s, v));
        return new Written(run, md, v);
    }

    static Map<String, Object> json(RunRecord run, Summary s, Verdict v) {
        Map<String, Object> m = new LinkedHashMap<>();
        Scenario sc = run.scenario();
        m.put("scenario", sc.name());
        m.put("type", sc.type());
        m.put("seed", sc.seed());
        m.put("target", run.target());
        m.put("started", run.started().toString());
        m.put("speed", run.speed());
        m.put("partial", run.partial());
        m.put("passed", v.passed());
        m.put("duration_s", round(s.durationMillis() / 1000));
        m.put("wall_s", round(run.wallNanos() / 1e9));
        m.put("requests", s.requests());
        Map<String, Object> outcomes = new LinkedHashMap<>();
        s.outcomes().forEach((k, byEnd) -> {
            Map<String, Long> o = new LinkedHashMap<>();
            for (End e : End.values()) {
                o.put(e.name().toLowerCase(Locale.ROOT), byEnd.getOrDefault(e, 0L));
            }
            outcomes.put(k.name().toLowerCase(Locale.ROOT), o);
        });
        m.put("outcomes", outcomes);
        m.put("lost", s.count(End.LOST));
        m.put("failed", s.count(End.FAILED) + run.prepareFailed());
        Map<String, Long> bytes = new LinkedHashMap<>();
        s.bytes().forEach((k, b) -> bytes.put(k.name().toLowerCase(Locale.ROOT), b));
        m.put("bytes", bytes);
        m.put("sustained_rate_bytes_per_s", s.sustainedRate() < 0 ? null : Math.round(s.sustainedRate()));
        m.put("sustained_window_s", sc.targets().windowMillis() / 1000);
        Map<String, Object> latency = new LinkedHashMap<>();
        s.latencyMillis().forEach((k, p) -> latency.put(k.name().toLowerCase(Locale.ROOT),
                Map.of("p50_s", round(p[0] / 1000), "p99_s", round(p[1] / 1000), "max_s", round(p[2] / 1000))));
        m.put("latency", latency);
        m.put("mounts", s.mounts() < 0 ? null : s.mounts());
        m.put("mounts_per_cartridge", run.mountsPerCartridge());
        m.put("prepared_files", run.prepared());
        m.put("prepare_failed", run.prepareFailed());
        m.put("drives_emptied", run.emptied() == null ? null : run.emptied().empty());
        m.put("unloaded_before_measuring", run.emptied() == null ? null : run.emptied().unloaded());
        if (run.scenario().has(Activity.DT)) {
            m.put("files_written", run.written().size());
        }
        m.put("spi_violations", run.spiViolations());
        List<Map<String, Object>> checks = new ArrayList<>();
        for (Verdict.Check c : v.checks()) {
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("check", c.name());
            cm.put("required", c.required());
            cm.put("measured", c.measured());
            cm.put("passed", c.passed());
            checks.add(cm);
        }
        m.put("checks", checks);
        m.put("problems", run.problems());
        return m;
    }

    static String markdown(RunRecord run, Summary s, Verdict v) {
        Scenario sc = run.scenario();
        StringBuilder b = new StringBuilder();
        b.append("# tapeq loadtest: ").append(sc.name()).append(run.partial() ? " (PARTIAL)" : "").append("\n\n");
        b.append("**").append(v.passed() ? "PASSED" : "FAILED").append("**. Scenario `").append(sc.source())
                .append("` (type ").append(sc.type()).append(", seed ").append(sc.seed()).append("), started ")
                .append(run.started()).append(".\n\n");
        b.append("Target: ").append(run.target()).append(".\n\n");
        b.append(String.format(Locale.ROOT, "Times and rates are library time (x%s): the measured phase took %s of "
                + "library time, %s of wall time.%n%n", Units.plainNumber(run.speed()), Format.duration(s.durationMillis()),
                Format.duration(run.wallNanos() / 1e6)));
        b.append("| experiment | activity | share | workload |\n| --- | --- | --- | --- |\n");
        for (Experiment e : sc.experiments()) {
            b.append("| ").append(e.name()).append(" | ").append(e.activity().name().toLowerCase(Locale.ROOT))
                    .append(" | ").append(Units.plainNumber(e.share())).append(" | ").append(workload(e)).append(" |\n");
        }
        if (run.prepared() > 0 && run.prepareMillis() == 0) {
            b.append(String.format(Locale.ROOT, "%nInputs: %,d files, on tape before the daemon started.%n",
                    run.prepared()));
        } else if (run.prepared() > 0) {
            b.append(String.format(Locale.ROOT, "%nInputs written first through the chain (not measured): %,d files "
                    + "in %s wall time, %d failed.%n", run.prepared(), Format.duration(run.prepareMillis()),
                    run.prepareFailed()));
        }
        b.append('\n').append(drives(run.emptied())).append('\n');
        if (sc.has(Activity.DT)) {
            b.append(String.format(Locale.ROOT, "%nFiles written: %,d, listed in `%s` (an adt recalls them with "
                    + "`inputs:`).%n", run.written().size(), FileList.NAME));
        }
        b.append("\n## Verdict\n\n| check | required | measured | |\n| --- | --- | --- | --- |\n");
        for (Verdict.Check c : v.checks()) {
            b.append("| ").append(c.name()).append(" | ").append(c.required()).append(" | ").append(c.measured())
                    .append(" | ").append(c.passed() ? "pass" : "**FAIL**").append(" |\n");
        }
        b.append("\n## Requests\n\n| kind | completed | failed | lost | outstanding | bytes | p50 | p99 | max |\n")
                .append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Kind k : Kind.values()) {
            Map<End, Long> o = s.outcomes().get(k);
            if (o.isEmpty()) {
                continue;
            }
            double[] p = s.latencyMillis().get(k);
            b.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d | %s | %s | %s | %s |%n",
                    k.name().toLowerCase(Locale.ROOT), o.getOrDefault(End.COMPLETED, 0L),
                    o.getOrDefault(End.FAILED, 0L), o.getOrDefault(End.LOST, 0L), o.getOrDefault(End.OUTSTANDING, 0L),
                    Units.roughSize(s.bytes().get(k)), p == null ? "-" : Format.duration(p[0]),
                    p == null ? "-" : Format.duration(p[1]), p == null ? "-" : Format.duration(p[2])));
        }
        b.append(String.format(Locale.ROOT, "%nBest sustained rate over %s: %s. Mounts: %s.%n",
                Format.duration(sc.targets().windowMillis()),
                s.sustainedRate() < 0 ? "run shorter than the window" : Format.rate(s.sustainedRate()),
                s.mounts() < 0 ? "not known for this target" : Long.toString(s.mounts())));
        if (!run.mountsPerCartridge().isEmpty()) {
            b.append("\nMounts per cartridge: ");
            List<String> parts = new ArrayList<>();
            run.mountsPerCartridge().forEach((c, n) -> parts.add(c + " " + n));
            b.append(String.join(", ", parts)).append(".\n");
        }
        b.append("\n## Plots\n\n");
        b.append("![throughput](").append(THROUGHPUT_PNG).append(")\n\n![queue depth](").append(QUEUE_PNG)
                .append(")\n\n![mounts](").append(MOUNTS_PNG).append(")\n\n![latency](").append(LATENCY_PNG)
                .append(")\n");
        if (!run.problems().isEmpty()) {
            b.append("\n## Problems (first ").append(run.problems().size()).append(")\n\n");
            run.problems().forEach(p -> b.append("- ").append(p).append('\n'));
        }
        b.append("\nFigures: `").append(JSON).append("`.\n");
        return b.toString();
    }

    /** What the drives held when the measured phase began. */
    private static String drives(Target.Emptied emptied) {
        if (emptied == null) {
            return "Drives: not emptied (the harness cannot for this target, or the run was stopped first); the "
                    + "measured phase may have started with cartridges in the drives (a recall from them needed no "
                    + "mount).";
        }
        if (!emptied.empty()) {
            return "Drives: still holding cartridges after " + Format.duration(emptied.wallMillis()) + " of wall "
                    + "time of unloading; the measured phase started with them mounted.";
        }
        if (emptied.unloaded().isEmpty()) {
            return "Drives: all empty when the measured phase began.";
        }
        List<String> parts = new ArrayList<>();
        emptied.unloaded().forEach((drive, barcode) -> parts.add(barcode + " from " + drive));
        return "Drives: emptied before the measured phase (" + String.join(", ", parts) + ") in "
                + Format.duration(emptied.wallMillis()) + " of wall time: every cartridge the phase used was mounted "
                + "in it.";
    }

    private static String workload(Experiment e) {
        String sizes = "sizes " + e.sizes().describe();
        return switch (e.activity()) {
            case DT -> "write " + Format.rate(e.rate()) + " for " + Format.duration(e.durationMillis()) + " into "
                    + e.datasets() + " dataset(s), " + sizes;
            case ADT -> (e.inputs() != null ? "recall the files " + e.name() + " wrote in an earlier run, listed in `"
                    + FileList.file(e.inputs()) + "`" : "recall " + e.datasets() + " x " + e.filesPerDataset()
                    + " files") + " (" + e.order().name().toLowerCase(Locale.ROOT) + ")" + (e.maxOutstanding() > 0
                    ? ", at most " + e.maxOutstanding() + " outstanding" : ", all at once")
                    + (e.inputs() != null ? "" : ", " + sizes);
            case CAROUSEL -> "carousel over " + e.datasets() + " x " + e.filesPerDataset() + " files, window "
                    + Units.plainNumber(e.windowPercent()) + " %, processing " + Format.duration(e.processMillis())
                    + " per file (" + e.order().name().toLowerCase(Locale.ROOT) + "), " + sizes;
            case BURST -> String.format(Locale.ROOT, "%,d stage requests at once, %s each", e.requests(),
                    Units.roughSize(e.burstFileSize()));
        };
    }

    private static void plots(RunRecord run, Summary s, Path dir) throws IOException {
        List<Sample> samples = run.samples();
        double hours = s.durationMillis() / 3_600_000;
        boolean inHours = hours >= 3;
        double unit = inHours ? 3_600_000 : 60_000;
        String axis = "library time (" + (inHours ? "h" : "min") + ")";
        int n = samples.size();
        double[] t = new double[n];
        double[] outstanding = new double[n];
        for (int i = 0; i < n; i++) {
            t[i] = samples.get(i).wallMillis() * run.speed() / unit;
            outstanding[i] = samples.get(i).outstanding();
        }
        Throughput rates = Throughput.of(run, RATE_POINTS);
        double[] rt = new double[rates.millis().length];
        for (int i = 0; i < rt.length; i++) {
            rt[i] = rates.millis()[i] / unit;
        }
        LineChart throughput = new LineChart(rates.onTape()
                ? "Throughput on tape (each read and aggregate written spread over its transfer)"
                : "Throughput (bytes counted when their requests are answered)", axis, "MB/s");
        if (run.log().issued(Kind.FLUSH) > 0) {
            throughput.add(new Series("written (flush)", rt, rates.write()));
        }
        if (run.log().issued(Kind.STAGE) > 0) {
            throughput.add(new Series("read (stage)", rt, rates.read()));
        }
        throughput.writePng(dir.resolve(THROUGHPUT_PNG), WIDTH, HEIGHT);
        new LineChart("Queue depth", axis, "requests").stepped()
                .add(known("held by the daemon", samples, Sample::queued, run.speed() / unit))
                .add(new Series("outstanding at the pool", t, outstanding))
                .writePng(dir.resolve(QUEUE_PNG), WIDTH, HEIGHT);
        new LineChart("Mounts (since the daemon started)", axis, "mounts").stepped()
                .add(known("mounts", samples, Sample::mounts, run.speed() / unit))
                .writePng(dir.resolve(MOUNTS_PNG), WIDTH, HEIGHT);
        LineChart latency = new LineChart("Latency CDF (submission to answer)", "library time (min)",
                "% of completed requests").yPattern("0");
        s.latencyQuantiles().forEach((k, q) -> {
            double[] minutes = new double[q.length];
            for (int i = 0; i < q.length; i++) {
                minutes[i] = q[i] / 60_000;
            }
            Series cdf = Series.cdf(k.name().toLowerCase(Locale.ROOT), minutes);
            double[] percent = cdf.y().clone();
            for (int i = 0; i < percent.length; i++) {
                percent[i] *= 100;
            }
            latency.add(new Series(cdf.name(), cdf.x(), percent));
        });
        latency.writePng(dir.resolve(LATENCY_PNG), WIDTH, HEIGHT);
    }

    /** The samples where {@code value} is known (not -1), against time. */
    private static Series known(String name, List<Sample> samples, ToLongFunction<Sample> value, double scale) {
        List<Sample> known = samples.stream().filter(x -> value.applyAsLong(x) >= 0).toList();
        double[] x = new double[known.size()];
        double[] y = new double[known.size()];
        for (int i = 0; i < x.length; i++) {
            x[i] = known.get(i).wallMillis() * scale;
            y[i] = value.applyAsLong(known.get(i));
        }
        return new Series(name, x, y);
    }

    private static double round(double d) {
        return Math.round(d * 10) / 10.0;
    }
}
