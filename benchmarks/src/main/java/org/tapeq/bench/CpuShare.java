package org.tapeq.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * CPU time of this JVM and of everything else on the machine over one phase, so that a figure measured while
 * other work ran (a build in another checkout) says so. The machine's busy time comes from {@code /proc/stat}
 * (Linux; USER_HZ taken as 100); elsewhere only this JVM's time is shown.
 */
final class CpuShare {

    private static final Path PROC_STAT = Path.of("/proc/stat");
    private static final double TICKS_PER_SECOND = 100;

    private final long wall0 = System.nanoTime();
    private final long own0 = ownNanos();
    private final long busy0 = busyTicks();

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
