package org.tapeq.scheduler.catalog.jdbc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process as the Linux kernel names it beyond its pid: the boot it runs in, its pid namespace, and its start
 * time. A pid alone says little: seen from another pid namespace (another container) the same number is another
 * process, or none, and a pid is reused once its process is gone. A lease holder's identity is kept in its
 * holder string ({@link #holder}), so a later start can tell for sure that the holder is dead.
 *
 * <p>Design notes. The boot id is {@code /proc/sys/kernel/random/boot_id}; the pid namespace the inode that
 * {@code /proc/self/ns/pid} names; the start time field 22 of {@code /proc/<pid>/stat} (clock ticks after boot,
 * read after the last ')' so that a command name with spaces or parentheses does not shift the fields). Where
 * any of these cannot be read (not Linux, /proc hidden), nothing is claimed: the holder is then not known
 * dead, and its lease is waited out.
 */
public record ProcessIdentity(String bootId, String pidNamespace, long pid, long startTicks) {

    /** The kernel's /proc; tests pass a fake tree instead. */
    static final Path PROC = Path.of("/proc");
    private static final String MARK = " proc:";
    private static final Pattern TOKEN = Pattern.compile(
            Pattern.quote(MARK) + "boot=([0-9a-f-]+),pidns=([^,]+),pid=(\\d+),start=(\\d+)$");

    /** This process, or empty where /proc does not tell. */
    public static Optional<ProcessIdentity> current() {
        return of(ProcessHandle.current().pid());
    }

    /** The process {@code pid} of this pid namespace, or empty if there is none (or /proc does not tell). */
    static Optional<ProcessIdentity> of(long pid) {
        Optional<String> boot = readBootId(PROC);
        Optional<String> namespace = readPidNamespace(PROC);
        OptionalLong start = startTicks(PROC, pid);
        if (boot.isEmpty() || namespace.isEmpty() || start.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ProcessIdentity(boot.get(), namespace.get(), pid, start.getAsLong()));
    }

    /**
     * {@code name} with this process's identity appended (or {@code name} alone where it is not known), as a
     * lease's holder: a holder whose process is known dead on this host does not block the next one.
     */
    public static String currentHolder(String name) {
        return current().map(i -> i.holder(name)).orElse(name);
    }

    /** {@code name} with this identity appended, as a lease's holder. */
    public String holder(String name) {
        return name + MARK + "boot=" + bootId + ",pidns=" + pidNamespace + ",pid=" + pid + ",start=" + startTicks;
    }

    /** The identity a {@link #holder} string carries, or empty (a holder written without one). */
    static Optional<ProcessIdentity> inHolder(String holder) {
        Matcher m = TOKEN.matcher(holder);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new ProcessIdentity(m.group(1), m.group(2), Long.parseLong(m.group(3)),
                Long.parseLong(m.group(4))));
    }

    /**
     * Whether the process {@code holder} names is known to be gone, seen from here: same boot, same pid
     * namespace, and its pid names no process or one started at another time (reused). False whenever that
     * cannot be told (no identity in the holder, another boot or namespace, /proc unreadable).
     */
    static boolean knownDead(String holder) {
        return knownDead(holder, PROC);
    }

    /**
     * {@link #knownDead(String)} with {@code proc} as /proc. A missing {@code <pid>/stat} means "no such process"
     * only where /proc shows other users' processes: under {@code hidepid} or systemd's {@code
     * ProtectProc=invisible} a live process of another user looks just as missing. That is told by pid 1 (init,
     * always there, owned by root) being visible; if it is not, or any other error occurs, the holder is not
     * known dead and its lease is waited out.
     */
    static boolean knownDead(String holder, Path proc) {
        Optional<ProcessIdentity> theirs = inHolder(holder);
        Optional<String> boot = readBootId(proc);
        Optional<String> namespace = readPidNamespace(proc);
        if (theirs.isEmpty() || boot.isEmpty() || namespace.isEmpty()
                || !theirs.get().bootId.equals(boot.get()) || !theirs.get().pidNamespace.equals(namespace.get())) {
            return false;
        }
        String stat;
        try {
            stat = readStat(proc, theirs.get().pid);
        } catch (NoSuchFileException e) {
            return procUnfiltered(proc); // no such pid here, if /proc would show it
        } catch (IOException | RuntimeException e) {
            return false; // unreadable is not gone
        }
        OptionalLong start = startField(stat);
        return start.isPresent() && start.getAsLong() != theirs.get().startTicks;
    }

    /** Whether /proc shows all processes: pid 1 (root's) is readable, so no hidepid / ProtectProc filter. */
    private static boolean procUnfiltered(Path proc) {
        try {
            return startField(readStat(proc, 1)).isPresent();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static Optional<String> readBootId(Path proc) {
        try {
            return Optional.of(Files.readString(proc.resolve("sys/kernel/random/boot_id"), StandardCharsets.US_ASCII)
                    .strip());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> readPidNamespace(Path proc) {
        try {
            return Optional.of(Files.readSymbolicLink(proc.resolve("self/ns/pid")).toString());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Field 22 of /proc/<pid>/stat, or empty if there is no such process (or it cannot be read). */
    static OptionalLong startTicks(Path proc, long pid) {
        try {
            return startField(readStat(proc, pid));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    private static String readStat(Path proc, long pid) throws IOException {
        return Files.readString(proc.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
    }

    /** Field 22 of a /proc/<pid>/stat text, or empty if it has none. */
    private static OptionalLong startField(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return OptionalLong.empty();
        }
        String[] fields = stat.substring(close + 1).trim().split(" ");
        int index = 22 - 3; // fields[0] is field 3 (state)
        if (fields.length <= index) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(fields[index]));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
