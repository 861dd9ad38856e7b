package org.tapeq.tools.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@link HostsBench} measured on one setup (one host, or three), printed as lines and a table row and put
 * into the JSON line. A figure not measured (no failover on one host, no recall with --no-completion) is
 * negative and printed as "-".
 */
final class HostsBenchFigures {

    final String setup;
    final int requests;
    double prepareSeconds;
    double writeSeconds;
    double intakeSeconds;
    double intakeCpuSeconds;
    double takeoverSeconds = -1;
    double servingSeconds = -1;
    double rebuildCpuSeconds = -1;
    double recallSeconds = -1;
    double recallCpuSeconds = -1;
    long mounts = -1;
    long remounts = -1;
    int cartridgesRead;
    long libraryMounts = -1;
    long doubleMounts = -1;
    final Map<String, String> load = new LinkedHashMap<>();

    HostsBenchFigures(String setup, int requests) {
        this.setup = setup;
        this.requests = requests;
    }

    /** The 1, 5 and 15 minute load averages now, recorded as those at the end of {@code phase}. */
    void load(String phase) {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            load.put(phase, f[0] + " " + f[1] + " " + f[2]);
        } catch (IOException | RuntimeException e) {
            load.put(phase, "unknown");
        }
    }

    double mountsPerCartridge() {
        return mounts < 0 || cartridgesRead == 0 ? -1 : mounts / (double) cartridgesRead;
    }

    private static double perRequestMicros(double cpuSeconds, int n) {
        return cpuSeconds < 0 ? -1 : cpuSeconds * 1e6 / n;
    }

    static void printTable(PrintStream out, List<HostsBenchFigures> all) {
        out.println();
        out.println("| setup | requests | intake s | intake /s | scheduler CPU per request, intake | takeover s "
                + "| serving again s | CPU per request, rebuild | recall s | CPU per request, recall | mounts "
                + "| mounts per cartridge |");
        out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (HostsBenchFigures f : all) {
            out.printf(Locale.ROOT, "| %s | %,d | %.1f | %,.0f | %s | %s | %s | %s | %s | %s | %s | %s |%n", f.setup,
                    f.requests, f.intakeSeconds, f.requests / f.intakeSeconds,
                    micros(perRequestMicros(f.intakeCpuSeconds, f.requests)), seconds(f.takeoverSeconds),
                    seconds(f.servingSeconds), micros(perRequestMicros(f.rebuildCpuSeconds, f.requests)),
                    seconds(f.recallSeconds), micros(perRequestMicros(f.recallCpuSeconds, f.requests)),
                    f.mounts < 0 ? "-" : f.mounts + " (" + f.remounts + " remounts)",
                    f.mountsPerCartridge() < 0 ? "-" : String.format(Locale.ROOT, "%.2f", f.mountsPerCartridge()));
        }
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("requests", requests);
        m.put("prepare_s", round(prepareSeconds));
        m.put("write_s", round(writeSeconds));
        m.put("intake_s", round(intakeSeconds));
        m.put("intake_per_s", Math.round(requests / intakeSeconds));
        m.put("intake_cpu_s", round(intakeCpuSeconds));
        m.put("intake_cpu_us_per_request", round(perRequestMicros(intakeCpuSeconds, requests)));
        m.put("takeover_s", round(takeoverSeconds));
        m.put("serving_s", round(servingSeconds));
        m.put("rebuild_cpu_s", round(rebuildCpuSeconds));
        m.put("recall_s", round(recallSeconds));
        m.put("recall_cpu_us_per_request", round(perRequestMicros(recallCpuSeconds, requests)));
        m.put("mounts", mounts);
        m.put("remounts", remounts);
        m.put("cartridges_read", cartridgesRead);
        m.put("mounts_per_cartridge", round(mountsPerCartridge()));
        m.put("library_mounts", libraryMounts);
        m.put("double_mounts", doubleMounts);
        m.put("load_average", load);
        return m;
    }

    private static double round(double v) {
        return v < 0 ? -1 : Math.round(v * 100) / 100.0;
    }

    private static String seconds(double s) {
        return s < 0 ? "-" : String.format(Locale.ROOT, "%.1f", s);
    }

    private static String micros(double us) {
        return us < 0 ? "-" : String.format(Locale.ROOT, "%.1f us", us);
    }
}
