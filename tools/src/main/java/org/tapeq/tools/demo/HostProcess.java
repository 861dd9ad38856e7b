package org.tapeq.tools.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One tapeq process as a JVM of its own, as on a host of its own: {@code tapeq daemon}, {@code tapeq mover} or
 * {@code tapeq sim-library} started the way the launcher starts it ({@code java -cp ... TapeqCommand <args>}) with
 * this JVM's java binary and class path, its output appended to a log file with a line at each start and kill.
 * The demo of several hosts and the integration tests that kill daemons start their processes with it.
 *
 * <p>It can run in a pid namespace of its own ({@code unshare --pid}; root, or user namespaces allowed), as on
 * another host: a standby cannot see that the active daemon died and waits its site lease out, as it would across
 * machines; and in a network namespace ({@code ip netns exec}, which executes the command in place).
 */
public final class HostProcess implements AutoCloseable {

    private static final long STOP_WAIT_SECONDS = 60;
    private static final long KILL_WAIT_SECONDS = 30;
    /** How long the JVM under {@code unshare} may take to appear as its child. */
    private static final long CHILD_WAIT_MILLIS = 10_000;
    /** The demo's processes: a small heap, the serial collector, the quick compiler (short runs, small work). */
    static final List<String> DEMO_JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private final String name;
    private final List<String> args;
    private final Path log;
    private final boolean ownPidNamespace;
    /** Heap, collector and the like (the demo's by default). */
    private final List<String> baseOptions;
    /** Options added by {@link #jvmOption}, after the base ones. */
    private final List<String> jvmOptions = new ArrayList<>();
    /** The network namespace it runs in, or null. */
    private String netns;
    private Process process;
    private int starts;

    /**
     * @param args            the launcher's arguments ({@code daemon -c tapeq.yaml})
     * @param ownPidNamespace whether it runs in a pid namespace of its own ({@link #pidNamespacesAvailable})
     */
    public HostProcess(String name, List<String> args, Path log, boolean ownPidNamespace) {
        this(name, args, log, ownPidNamespace, DEMO_JVM);
    }

    /** As above, with {@code baseOptions} (heap, collector and the like) instead of the demo's. */
    public HostProcess(String name, List<String> args, Path log, boolean ownPidNamespace, List<String> baseOptions) {
        this.name = name;
        this.args = List.copyOf(args);
        this.log = log;
        this.ownPidNamespace = ownPidNamespace;
        this.baseOptions = List.copyOf(baseOptions);
    }

    /** Runs it in the network namespace {@code name} ({@code ip netns exec}): {@link #pid} stays the JVM's. */
    public HostProcess inNetworkNamespace(String namespace) {
        this.netns = namespace;
        return this;
    }

    /** Adds an option of the JVM ({@code -Dkey=value}) for the next starts. */
    public HostProcess jvmOption(String option) {
        jvmOptions.add(option);
        return this;
    }

    /** Whether {@code unshare} can run a process in a pid namespace of its own here. */
    public static boolean pidNamespacesAvailable() {
        try {
            Process p = new ProcessBuilder("unshare", "--pid", "--fork", "--mount-proc", "true")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public String name() {
        return name;
    }

    public Path log() {
        return log;
    }

    /** Starts a new JVM; does not wait for it to be ready. */
    public void start() throws IOException {
        if (alive()) {
            throw new IllegalStateException(name + " is already running (pid " + pid() + ")");
        }
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>();
        if (netns != null) {
            command.addAll(List.of("ip", "netns", "exec", netns));
        }
        if (ownPidNamespace) {
            command.addAll(List.of("unshare", "--pid", "--fork", "--mount-proc", "--kill-child=SIGKILL"));
        }
        // no perf data file: in pid namespaces of their own every JVM is pid 1, and they would share one
        command.addAll(List.of(java, "-cp", System.getProperty("java.class.path"), "-XX:-UsePerfData"));
        command.addAll(baseOptions);
        command.addAll(jvmOptions);
        command.add("org.tapeq.daemon.cli.TapeqCommand");
        command.addAll(args);
        starts++;
        Files.writeString(log, "==== start " + starts + ": " + String.join(" ", args) + " ====\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    /** The JVM: the process started, or under {@code unshare} its child once it has appeared. */
    private Optional<ProcessHandle> jvm() {
        if (process == null) {
            return Optional.empty();
        }
        if (!ownPidNamespace) {
            return Optional.of(process.toHandle());
        }
        long deadline = System.nanoTime() + CHILD_WAIT_MILLIS * 1_000_000;
        while (true) {
            Optional<ProcessHandle> child = process.toHandle().children().findFirst();
            if (child.isPresent() || !process.isAlive() || System.nanoTime() > deadline) {
                return child;
            }
            try {
                Thread.sleep(20); // unshare forks the JVM right after its own start
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    /** The JVM's pid as this host sees it, or -1. */
    public long pid() {
        return jvm().map(ProcessHandle::pid).orElse(-1L);
    }

    /** Waits up to {@code timeout} for it to end by itself: its exit status, or null if it still runs. */
    public Integer awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : null;
    }

    /**
     * CPU time the JVM has used so far (user and system, as {@code /proc/PID/stat} counts it), in seconds; -1 when
     * it is not running or the system does not say.
     */
    double cpuSeconds() {
        return jvm().flatMap(h -> h.info().totalCpuDuration()).map(d -> d.toNanos() / 1e9).orElse(-1.0);
    }

    /** SIGKILL to the JVM (a host that dies), then waits until it is gone; nothing if it does not run. */
    public void kill() throws IOException, InterruptedException {
        if (!alive()) {
            return;
        }
        long pid = pid();
        jvm().ifPresent(ProcessHandle::destroyForcibly); // unshare (--kill-child) goes with it
        process.destroyForcibly();
        if (!process.waitFor(KILL_WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new IOException(name + " (pid " + pid + ") survived SIGKILL");
        }
        Files.writeString(log, "==== killed with SIGKILL (pid " + pid + ", exit " + process.exitValue() + ") ====\n",
                StandardOpenOption.APPEND);
    }

    /**
     * SIGTERM to the JVM (its shutdown hook closes it; {@code unshare} would not pass it on) and waits a minute:
     * its exit status, or null if it had not stopped by then and was killed.
     */
    public Integer stop() throws IOException, InterruptedException {
        if (!alive()) {
            return process == null ? null : process.exitValue();
        }
        jvm().ifPresent(ProcessHandle::destroy);
        if (!process.waitFor(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
            kill();
            return null;
        }
        return process.exitValue();
    }

    @Override
    public void close() throws IOException {
        try {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while killing " + name, e);
        }
    }
}
