package org.tapeq.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * How long work posted to the scheduler's event loop waits while the engine does something big: the loop
 * latency (p50, p99, p99.9, max, probes later than 10 ms and 100 ms) of a real-time engine on a simulated library
 * and a catalog on a real file (or PostgreSQL), in four phases:
 * <ol>
 * <li><b>baseline</b>: the engine idle;</li>
 * <li><b>rebuild</b>: {@code rebuildCartridge} of a cartridge holding N files (default 100 000) that the catalog
 *     already lists, as an administrator's rebuild of a known cartridge;</li>
 * <li><b>flush</b>: a burst of N size-only flushes (default 100 000) spread over the cartridges' families, until
 *     every one is on tape and in the catalog (at 20 families, 5 000 per family: each family's aggregate closes
 *     after the default aggregate wait, and its commit puts 5 000 files into the catalog on the loop);</li>
 * <li><b>burst</b>: N stage requests (default 200 000) handed to {@code Scheduler.stage(List)} in batches of 512
 *     from one thread, as the daemon's bridge hands over the requests it read, as fast as that thread can; the
 *     phase lasts until the loop has admitted all of them, and then the settle time, while the drives start.</li>
 * </ol>
 * Every phase ends with a settle time (default 1 s) of probing after its work. Not a test: it checks only that
 * the work was done (every file rebuilt, flushed, admitted) and prints the figures as a table and as one JSON line.
 *
 * <p>Design notes. The probe ({@link LoopProbe}) posts from its own thread every period (default 1 ms) and
 * records run time - post time, so a stall shows as many late probes, not as one. The files are written to tape
 * beforehand in virtual time ({@link LoopBenchSetup}, which can keep them for the next run); only the phases run
 * in real time, each phase's engine built by {@link LoopBenchEngine}. The simulated
 * library runs at x1000 (a 12 s robot move takes 12 ms) so that the tape's own latency is small. The machine's
 * load average at start and end and this JVM's GC time and CPU share per phase are printed with the figures: on a
 * busy machine the baseline is not zero.
 */
public final class LoopLatencyBenchmark {

    private static final long TIMEOUT_SECONDS = 600;

    private int rebuildFiles = 100_000;
    private int burst = 200_000;
    private int flushes = 100_000;
    private int batch = 512;
    private int cartridges = 20;
    private int drives = 4;
    private long fileSize = 100_000;
    private double speed = 1000;
    private long periodMicros = 1000;
    private long baselineMillis = 5000;
    private long settleMillis = 1000;
    private long seed = 1;
    private String catalog = "sqlite";
    private String label = "";
    private Path root = Path.of(System.getProperty("java.io.tmpdir"));
    private Path prepared;
    private boolean keep;

    private final Map<String, Object> phases = new LinkedHashMap<>();
    private final List<String> rows = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        LoopLatencyBenchmark b = new LoopLatencyBenchmark();
        b.parse(args);
        b.run();
    }

    private void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rebuild-files": rebuildFiles = Integer.parseInt(args[++i]); break;
                case "--burst": burst = Integer.parseInt(args[++i]); break;
                case "--flushes": flushes = Integer.parseInt(args[++i]); break;
                case "--batch": batch = Integer.parseInt(args[++i]); break;
                case "--cartridges": cartridges = Integer.parseInt(args[++i]); break;
                case "--drives": drives = Integer.parseInt(args[++i]); break;
                case "--file-size": fileSize = Long.parseLong(args[++i]); break;
                case "--speed": speed = Double.parseDouble(args[++i]); break;
                case "--period-us": periodMicros = Long.parseLong(args[++i]); break;
                case "--baseline-ms": baselineMillis = Long.parseLong(args[++i]); break;
                case "--settle-ms": settleMillis = Long.parseLong(args[++i]); break;
                case "--seed": seed = Long.parseLong(args[++i]); break;
                case "--catalog": catalog = args[++i]; break;
                case "--label": label = args[++i]; break;
                case "--dir": root = Path.of(args[++i]); break;
                case "--prepared": prepared = Path.of(args[++i]); break;
                case "--keep": keep = true; break;
                default: throw new IllegalArgumentException("unknown argument " + args[i] + "; known: --rebuild-files N"
                        + " --burst N --flushes N (0: no flush phase) --batch N --cartridges C --drives D"
                        + " --file-size BYTES --speed S --period-us US --baseline-ms MS --settle-ms MS --seed S"
                        + " --catalog sqlite|postgres --label TEXT --dir DIR --prepared DIR --keep");
            }
        }
        if (!catalog.equals("sqlite") && !catalog.equals("postgres")) {
            throw new IllegalArgumentException("--catalog must be sqlite or postgres: " + catalog);
        }
    }

    private void run() throws Exception {
        String loadStart = loadAverage();
        Path base = Files.createTempDirectory(Files.createDirectories(root), "tapeq-bench-loop-");
        LoopBenchSetup setup = new LoopBenchSetup(rebuildFiles, burst, fileSize, cartridges, drives,
                catalog.equals("postgres"));
        System.out.printf(Locale.ROOT, "tapeq loop-latency benchmark%s: catalog %s, library x%.0f, probe every %d us,"
                        + " %d cpus, max heap %,d MB%n  directory %s (%s)%n  load average at start: %s%n",
                label.isEmpty() ? "" : " [" + label + "]", catalog, speed, periodMicros,
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20, base,
                Files.getFileStore(base).type(), loadStart);
        try {
            System.out.println("  " + (prepared != null ? setup.reuse(prepared, base) : setup.prepare(base)));
            rows.add(String.format(Locale.ROOT, "%-9s %-44s %6s %7s %8s %8s %9s %9s %6s %7s %6s", "phase", "work",
                    "s", "probes", "p50 ms", "p99 ms", "p99.9 ms", "max ms", ">10ms", ">100ms", "gc s"));
            try (LoopBenchEngine engine = LoopBenchEngine.start(setup.rebuildLibrary(base),
                    setup.catalogUrl(base, "rebuild"), speed);
                 LoopProbe probe = new LoopProbe(engine.loop(), periodMicros * 1000)) {
                phase(probe, "baseline", () -> {
                    Thread.sleep(baselineMillis);
                    return "idle";
                });
                phase(probe, "rebuild", () -> {
                    int found = engine.rebuild(0).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    if (found != rebuildFiles) {
                        throw new IllegalStateException("the rebuild found " + found + " files, not " + rebuildFiles);
                    }
                    return String.format(Locale.ROOT, "%,d files on one cartridge", found);
                });
            }
            try (LoopBenchEngine engine = LoopBenchEngine.start(setup.library(base), setup.catalogUrl(base, "main"),
                    speed);
                 LoopProbe probe = new LoopProbe(engine.loop(), periodMicros * 1000)) {
                if (flushes > 0) {
                    phase(probe, "flush", () -> flushBurst(engine));
                }
                phase(probe, "burst", () -> stageBurst(engine));
            }
        } finally {
            if (keep) {
                System.out.println("kept " + base);
            } else {
                setup.dropCatalogs();
                LoopBenchSetup.delete(base);
            }
        }
        String loadEnd = loadAverage();
        rows.forEach(System.out::println);
        System.out.println("  load average at end: " + loadEnd);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("benchmark", "loop-latency");
        json.put("label", label);
        json.put("catalog", catalog);
        json.put("speed", speed);
        json.put("probe_period_us", periodMicros);
        json.put("cpus", Runtime.getRuntime().availableProcessors());
        json.put("load_start", loadStart);
        json.put("load_end", loadEnd);
        json.put("phases", phases);
        System.out.println(toJson(json));
    }

    /** What a phase does; returns a short description of the work done. */
    private interface Work {
        String run() throws Exception;
    }

    private void phase(LoopProbe probe, String name, Work work) throws Exception {
        System.out.println("  " + name + "...");
        long gc0 = gcMillis();
        CpuShare cpu = new CpuShare();
        long t0 = System.nanoTime();
        LatencySample sample = probe.begin();
        String done = work.run();
        Thread.sleep(settleMillis);
        probe.end(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        double seconds = seconds(System.nanoTime() - t0);
        double gc = (gcMillis() - gc0) / 1e3;
        LatencySample.Summary s = sample.summarize(seconds);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("work", done);
        m.putAll(s.json());
        m.put("gc_s", gc);
        phases.put(name, m);
        rows.add(String.format(Locale.ROOT, "%-9s %-44s %6.1f %7d %8.2f %8.2f %9.2f %9.2f %6d %7d %6.2f", name, done,
                seconds, s.probes(), s.p50Nanos() / 1e6, s.p99Nanos() / 1e6, s.p999Nanos() / 1e6, s.maxNanos() / 1e6,
                s.late()[0], s.late()[1], gc));
        rows.add("          cpu: " + cpu.describe());
    }

    private String flushBurst(LoopBenchEngine engine) throws Exception {
        long t0 = System.nanoTime();
        for (int i = burst; i < burst + flushes; i++) {
            engine.flush(i, fileSize);
        }
        await(() -> engine.flushed() + engine.failed() >= flushes, "flushes");
        if (engine.flushed() != flushes) {
            throw new IllegalStateException(engine.failed() + " of " + flushes + " flushes failed");
        }
        return String.format(Locale.ROOT, "%,d flushes on tape after %.1f s", flushes, seconds(System.nanoTime() - t0));
    }

    private String stageBurst(LoopBenchEngine engine) throws Exception {
        int[] ids = new int[burst];
        for (int i = 0; i < burst; i++) {
            ids[i] = i;
        }
        Random random = new Random(seed); // the order a directory listing gives: no locality in the catalog
        for (int i = burst - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = ids[i];
            ids[i] = ids[j];
            ids[j] = t;
        }
        long failedBefore = engine.failed();
        long t0 = System.nanoTime();
        for (int from = 0; from < burst; from += batch) {
            engine.stage(ids, from, Math.min(burst, from + batch), fileSize);
        }
        long handed = System.nanoTime();
        engine.caughtUp().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        long admitted = System.nanoTime();
        if (engine.failed() != failedBefore) {
            throw new IllegalStateException((engine.failed() - failedBefore) + " stages were refused");
        }
        return String.format(Locale.ROOT, "%,d stages: handed %.1f s, admitted %.1f s", burst,
                seconds(handed - t0), seconds(admitted - t0));
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for the " + what);
            }
            Thread.sleep(10);
        }
    }

    /** "1.52 1.20 0.98" from /proc/loadavg, or the one-minute figure the JVM reports elsewhere. */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean()
                    .getSystemLoadAverage());
        }
    }

    private static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    /** Strings, numbers and nested maps as JSON on one line. */
    private static String toJson(Object v) {
        if (v instanceof Map<?, ?> m) {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (b.length() > 1) {
                    b.append(',');
                }
                b.append(toJson(String.valueOf(e.getKey()))).append(':').append(toJson(e.getValue()));
            }
            return b.append('}').toString();
        }
        if (v instanceof Number) {
            return v.toString();
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : String.valueOf(v).toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
