package org.tapeq.simulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The table of a scenario with a {@code repack:}: per policy, the workload's makespan and p99 latency alone and
 * beside the engine's repack (the same seeds, the same workload), and how far the repack got: bytes moved by the
 * workload's end, in all, and when the last source was empty. Means over the seeds, min-max below with several.
 */
final class RepackSlowdown {

    private final String scenario;
    private final Map<String, List<PolicyResult[]>> byPolicy = new LinkedHashMap<>();

    RepackSlowdown(String scenario) {
        this.scenario = scenario;
    }

    /** One policy and seed: the run {@code alone} and the run {@code beside} the repack. */
    void add(PolicyResult alone, PolicyResult beside) {
        if (beside.repack() == null || alone.repack() != null) {
            throw new IllegalArgumentException("a run beside a repack and one without are needed");
        }
        byPolicy.computeIfAbsent(alone.name(), k -> new ArrayList<>()).add(new PolicyResult[] {alone, beside});
    }

    String table() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "scenario %s beside the engine's repack (tapeq cartridge repack as "
                + "background work): the workload alone and beside it%n", scenario));
        out.append(String.format(Locale.ROOT, "%-20s %9s %9s %7s %8s %8s %7s %14s %11s %9s%n", "policy",
                "makespan", "+repack", "slower", "p99", "+repack", "slower", "moved by end", "moved", "repack h"));
        for (Map.Entry<String, List<PolicyResult[]>> e : byPolicy.entrySet()) {
            List<PolicyResult[]> rs = e.getValue();
            out.append(String.format(Locale.ROOT, "%-20s %9.2f %9.2f %6.1f%% %8.2f %8.2f %6.1f%% %13.0f%% %10.0f%% "
                    + "%9.2f%n", e.getKey(), mean(rs, p -> p[0].makespanS() / 3600),
                    mean(rs, p -> p[1].makespanS() / 3600), mean(rs, RepackSlowdown::makespanSlowdown),
                    mean(rs, p -> p[0].latencyP99S() / 3600), mean(rs, p -> p[1].latencyP99S() / 3600),
                    mean(rs, RepackSlowdown::p99Slowdown), mean(rs, p -> share(p[1], p[1].repack().bytesAtRecallEnd())),
                    mean(rs, p -> share(p[1], p[1].repack().bytesDone())), mean(rs, p -> p[1].repack().endS() / 3600)));
            if (rs.size() > 1) {
                out.append(String.format(Locale.ROOT, "%-20s %9s %9s %7s %8s %8s %7s%n", "  min-max",
                        range(rs, p -> p[0].makespanS() / 3600, "%.2f"), range(rs, p -> p[1].makespanS() / 3600,
                                "%.2f"), range(rs, RepackSlowdown::makespanSlowdown, "%.0f"),
                        range(rs, p -> p[0].latencyP99S() / 3600, "%.2f"), range(rs, p -> p[1].latencyP99S() / 3600,
                                "%.2f"), range(rs, RepackSlowdown::p99Slowdown, "%.0f")));
            }
        }
        PolicyResult any = byPolicy.values().iterator().next().get(0)[1];
        out.append(String.format(Locale.ROOT, "repack: %d cartridge(s), %.0f GB live; makespan, p99 and repack h in "
                + "hours from the first request; moved: share of the live bytes on their new cartridges%n",
                any.repack().cartridges(), any.repack().bytesTotal() / 1e9));
        return out.toString();
    }

    /** The workload's makespan beside the repack over its makespan alone, in percent more. */
    static double makespanSlowdown(PolicyResult[] p) {
        return 100 * (p[1].makespanS() / p[0].makespanS() - 1);
    }

    static double p99Slowdown(PolicyResult[] p) {
        return 100 * (p[1].latencyP99S() / p[0].latencyP99S() - 1);
    }

    private static double share(PolicyResult r, long bytes) {
        return r.repack().bytesTotal() == 0 ? 100 : 100.0 * bytes / r.repack().bytesTotal();
    }

    private static double mean(List<PolicyResult[]> rs, ToDoubleFunction<PolicyResult[]> f) {
        return rs.stream().mapToDouble(f).average().orElse(Double.NaN);
    }

    private static String range(List<PolicyResult[]> rs, ToDoubleFunction<PolicyResult[]> f, String format) {
        return String.format(Locale.ROOT, format + "-" + format, rs.stream().mapToDouble(f).min().orElse(Double.NaN),
                rs.stream().mapToDouble(f).max().orElse(Double.NaN));
    }
}
