package org.tapeq.provider;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.tapeq.protocol.RequestDirectory;

/**
 * The provider's settings, parsed and validated in one place from the {@code hsm create ... -key=value}
 * options. The ENDIT provider's keys are accepted with the same meaning, so a site switches by changing
 * the provider name only. Every error names its key. Immutable; a reconfiguration makes a new instance.
 */
public final class ProviderConfig {
    /** Base of the request directory; must contain in/, out/, request/ and trash/. Required. */
    public static final String DIRECTORY = "directory";
    /** Threads that do the provider's file work (ENDIT: {@code threads}). */
    public static final String THREADS = "threads";
    /** Milliseconds between checks of staged files still being written (ENDIT: {@code period}). */
    public static final String PERIOD = "period";
    /** Milliseconds a staged file must keep its full size before it is moved in (ENDIT: {@code graceperiod}). */
    public static final String GRACE_PERIOD = "graceperiod";
    /** Seconds between full rescans of the directory; ENDIT's name for it. Same as {@link #RESCAN}. */
    public static final String WATCH_TIMEOUT = "watchtimeout";
    /** Seconds between full rescans of the directory (for changes no event reports, e.g. on NFS/GPFS). */
    public static final String RESCAN = "rescan";
    /** Allocate pool space only once the staged file starts to arrive (ENDIT: {@code lateallocate}). */
    public static final String LATE_ALLOCATE = "lateallocate";
    /** Seconds a request file, staged file or error file nobody claims is kept (e.g. after a pool restart). */
    public static final String ORPHAN_TIMEOUT = "orphantimeout";
    /** Priority handed to the daemon with every request of this instance (higher is more urgent). */
    public static final String PRIORITY = "priority";
    /** Activity name handed to the daemon with every request, e.g. {@code T0-export}. */
    public static final String ACTIVITY = "activity";
    /** Co-location hint: {@code parent} (directory of the file), {@code none}, or {@code storage-info:<key>}. */
    public static final String COLOCATION = "colocation";

    static final int DEFAULT_THREADS = 4;
    static final Duration DEFAULT_PERIOD = Duration.ofMillis(1000);
    static final Duration DEFAULT_GRACE_PERIOD = Duration.ofMillis(1000);
    static final Duration DEFAULT_RESCAN = Duration.ofSeconds(60);
    static final Duration DEFAULT_ORPHAN_TIMEOUT = Duration.ofSeconds(600);
    static final boolean DEFAULT_LATE_ALLOCATE = true;

    private static final Set<String> KEYS = Set.of(DIRECTORY, THREADS, PERIOD, GRACE_PERIOD, WATCH_TIMEOUT, RESCAN,
            LATE_ALLOCATE, ORPHAN_TIMEOUT, PRIORITY, ACTIVITY, COLOCATION);

    private final Path directory;
    private final int threads;
    private final Duration period;
    private final Duration gracePeriod;
    private final Duration rescan;
    private final boolean lateAllocate;
    private final Duration orphanTimeout;
    private final int priority;
    private final String activity;
    private final ColocationRule colocation;

    private ProviderConfig(Path directory, int threads, Duration period, Duration gracePeriod, Duration rescan,
            boolean lateAllocate, Duration orphanTimeout, int priority, String activity,
            ColocationRule colocation) {
        this.directory = directory;
        this.threads = threads;
        this.period = period;
        this.gracePeriod = gracePeriod;
        this.rescan = rescan;
        this.lateAllocate = lateAllocate;
        this.orphanTimeout = orphanTimeout;
        this.priority = priority;
        this.activity = activity;
        this.colocation = colocation;
    }

    /**
     * Parses and validates {@code properties} (keys without the leading dash).
     *
     * @throws IllegalArgumentException naming the key at fault and why
     */
    public static ProviderConfig parse(Map<String, String> properties) {
        Map<String, String> p = new HashMap<>(properties);
        Set<String> unknown = new TreeSet<>(p.keySet());
        unknown.removeAll(KEYS);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown option" + (unknown.size() > 1 ? "s " : " ")
                    + String.join(", ", unknown) + "; valid options are " + String.join(", ", new TreeSet<>(KEYS)));
        }
        Path directory = directory(p.get(DIRECTORY));
        int threads = (int) integer(p, THREADS, DEFAULT_THREADS, 1, 256);
        Duration period = Duration.ofMillis(integer(p, PERIOD, DEFAULT_PERIOD.toMillis(), 10, 3_600_000));
        Duration grace = Duration.ofMillis(integer(p, GRACE_PERIOD, DEFAULT_GRACE_PERIOD.toMillis(), 0, 3_600_000));
        Duration rescan = rescan(p);
        boolean lateAllocate = bool(p, LATE_ALLOCATE, DEFAULT_LATE_ALLOCATE);
        Duration orphanTimeout = Duration.ofSeconds(integer(p, ORPHAN_TIMEOUT, DEFAULT_ORPHAN_TIMEOUT.getSeconds(),
                0, 30L * 24 * 3600));
        int priority = (int) integer(p, PRIORITY, 0, -1000, 1000);
        String activity = p.get(ACTIVITY);
        if (activity != null && (activity.isBlank() || activity.length() > 64)) {
            throw new IllegalArgumentException(ACTIVITY + ": must be 1 to 64 characters, was '" + activity + "'");
        }
        ColocationRule colocation = ColocationRule.parse(COLOCATION, p.getOrDefault(COLOCATION, "parent"));
        return new ProviderConfig(directory, threads, period, grace, rescan, lateAllocate, orphanTimeout, priority,
                activity, colocation);
    }

    private static Path directory(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(DIRECTORY + ": required option missing (-" + DIRECTORY
                    + "=<request directory with in, out, request, trash>)");
        }
        Path directory;
        try {
            directory = Path.of(value);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(DIRECTORY + ": not a valid path: '" + value + "'", e);
        }
        if (!directory.isAbsolute()) {
            throw new IllegalArgumentException(DIRECTORY + ": must be an absolute path, was '" + value + "'");
        }
        List<String> problems = RequestDirectory.at(directory).problems();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(DIRECTORY + ": " + String.join("; ", problems));
        }
        return directory;
    }

    private static Duration rescan(Map<String, String> p) {
        long seconds = integer(p, RESCAN, DEFAULT_RESCAN.getSeconds(), 1, 86_400);
        if (p.containsKey(WATCH_TIMEOUT)) {
            long endit = integer(p, WATCH_TIMEOUT, seconds, 1, 86_400);
            if (p.containsKey(RESCAN) && endit != seconds) {
                throw new IllegalArgumentException(WATCH_TIMEOUT + " and " + RESCAN
                        + " set the same rescan period and disagree (" + endit + " and " + seconds + "); give one");
            }
            seconds = endit;
        }
        return Duration.ofSeconds(seconds);
    }

    private static long integer(Map<String, String> p, String key, long defaultValue, long min, long max) {
        String value = p.get(key);
        if (value == null) {
            return defaultValue;
        }
        long parsed;
        try {
            parsed = Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + ": not an integer: '" + value + "'");
        }
        if (parsed < min || parsed > max) {
            throw new IllegalArgumentException(key + ": must be between " + min + " and " + max + ", was " + parsed);
        }
        return parsed;
    }

    private static boolean bool(Map<String, String> p, String key, boolean defaultValue) {
        String value = p.get(key);
        if (value == null) {
            return defaultValue;
        }
        switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "true": return true;
            case "false": return false;
            default: throw new IllegalArgumentException(key + ": must be true or false, was '" + value + "'");
        }
    }

    public Path directory() {
        return directory;
    }

    public int threads() {
        return threads;
    }

    public Duration period() {
        return period;
    }

    public Duration gracePeriod() {
        return gracePeriod;
    }

    public Duration rescan() {
        return rescan;
    }

    public boolean lateAllocate() {
        return lateAllocate;
    }

    public Duration orphanTimeout() {
        return orphanTimeout;
    }

    public int priority() {
        return priority;
    }

    /** Activity name or null. */
    public String activity() {
        return activity;
    }

    public ColocationRule colocation() {
        return colocation;
    }

    @Override
    public String toString() {
        return DIRECTORY + "=" + directory + " " + THREADS + "=" + threads + " " + PERIOD + "=" + period.toMillis()
                + " " + GRACE_PERIOD + "=" + gracePeriod.toMillis() + " " + RESCAN + "=" + rescan.getSeconds() + " "
                + LATE_ALLOCATE + "=" + lateAllocate + " " + ORPHAN_TIMEOUT + "=" + orphanTimeout.getSeconds() + " "
                + PRIORITY + "=" + priority + " " + ACTIVITY + "=" + Objects.toString(activity, "") + " "
                + COLOCATION + "=" + colocation;
    }
}
