package org.tapeq.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * CPU time of this JVM and of everything else on the machine over one phase, so that a figure measured while
 * other work ran (a build in another checkout) says so. The machine's busy time comes from {@code /proc/stat}
 * (Linux; USER_HZ taken as 100); elsewhere only this JVM's time is shown. {@link #daemonMillis} is the CPU time of
 * the daemon's own threads (named {@code tapeq-...}) alone, without the benchmark's threads, the JIT compiler and
 * the garbage collector: less sensitive to the machine's load than a rate. A daemon thread that ended during the
 * phase is not counted (its time is lost to the count).
 */
final class CpuShare {

    private static final Path PROC_STAT = Path.of("/proc/stat");
    private static final double TICKS_PER_SECOND = 100;
    /** The prefix of every thread the daemon names. */
    private static final String DAEMON_THREADS = "tapeq-";

    private final long wall0 = System.nanoTime();
    private final long own0 = ownNanos();
    private final long busy0 = busyTicks();
    private final Map<Long, Long> daemon0 = daemonThreads();

    /** "this JVM 81 s, other processes 12 s of 2 cpus x 60 s". */
    String describe() {
        double wall = (System.nanoTime() - wall0) / 1e9;
        double own = (ownNanos() - own0) / 1e9;
        long busy = busyTicks();
        int cpus = Runtime.getRuntime().availableProcessors();
        if (busy < 0 || busy0 < 0) {
            return String.format(Locale.ROOT, "this JVM %.0f s of %d cpus x %.0f s", own, cpus, wall);
        }
        double others = Math.max(0, (busy - busy0) / TICKS_PER_SECOND - own);
        return String.format(Locale.ROOT, "this JVM %.0f s, other processes %.0f s of %d cpus x %.0f s", own, others,
                cpus, wall);
    }

    /** CPU milliseconds of the daemon's threads since this was made. */
    double daemonMillis() {
        long sum = 0;
        for (Map.Entry<Long, Long> e : daemonThreads().entrySet()) {
            sum += e.getValue() - daemon0.getOrDefault(e.getKey(), 0L);
        }
        return sum / 1e6;
    }

    /** The daemon's threads by name (numbers left out), most CPU first: "tapeq-bench-bridge 1.2 s, ...". */
    String daemonThreadsDescribed() {
        Map<String, Long> byName = new HashMap<>();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (Map.Entry<Long, Long> e : daemonThreads().entrySet()) {
            ThreadInfo t = threads.getThreadInfo(e.getKey());
            if (t != null) {
                byName.merge(t.getThreadName().replaceAll("[0-9]+", "#"),
                        e.getValue() - daemon0.getOrDefault(e.getKey(), 0L), Long::sum);
            }
        }
        StringBuilder b = new StringBuilder();
        byName.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .filter(e -> e.getValue() >= 10_000_000L)
                .forEach(e -> b.append(b.length() == 0 ? "" : ", ").append(e.getKey())
                        .append(String.format(Locale.ROOT, " %.2f s", e.getValue() / 1e9)));
        return b.toString();
    }

    private static Map<Long, Long> daemonThreads() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new HashMap<>();
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith(DAEMON_THREADS)) {
                long nanos = threads.getThreadCpuTime(t.getThreadId());
                if (nanos >= 0) {
                    cpu.put(t.getThreadId(), nanos);
                }
            }
        }
        return cpu;
    }

    private static long ownNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Busy ticks of all cpus (user, nice, system, irq, softirq, steal), or -1. */
    private static long busyTicks() {
        try {
            String[] f = Files.readAllLines(PROC_STAT).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                busy += Long.parseLong(f[i]);
            }
            return busy;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
