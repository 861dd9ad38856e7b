package org.tapeq.tools.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One process of a demo "host": {@code tapeq daemon}, {@code tapeq mover} or {@code tapeq sim-library} as a JVM of
 * its own (this JVM's java and class path), its output appended to a log file. Where the kernel allows it (root,
 * or user namespaces), it runs in a pid namespace of its own ({@code unshare --pid}), as on another host: a standby
 * cannot see that the active daemon died and waits its site lease out, as it would across machines.
 */
final class HostProcess implements AutoCloseable {

    private static final long STOP_WAIT_SECONDS = 60;
    /** The demo's processes: a small heap, the serial collector, the quick compiler (short runs, small work). */
    static final List<String> DEMO_JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private final String name;
    private final List<String> args;
    private final Path log;
    private final boolean ownPidNamespace;
    private final List<String> jvmOptions;
    private Process process;
    private int starts;

    HostProcess(String name, List<String> args, Path log, boolean ownPidNamespace) {
        this(name, args, log, ownPidNamespace, DEMO_JVM);
    }

    /** {@code jvmOptions}: heap, collector and the like, before the main class. */
    HostProcess(String name, List<String> args, Path log, boolean ownPidNamespace, List<String> jvmOptions) {
        this.name = name;
        this.args = List.copyOf(args);
        this.log = log;
        this.ownPidNamespace = ownPidNamespace;
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    /** Whether {@code unshare} can run a process in a pid namespace of its own here. */
    static boolean pidNamespacesAvailable() {
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

    String name() {
        return name;
    }

    Path log() {
        return log;
    }

    void start() throws IOException {
        if (alive()) {
            throw new IllegalStateException(name + " is already running");
        }
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>();
        if (ownPidNamespace) {
            command.addAll(List.of("unshare", "--pid", "--fork", "--mount-proc", "--kill-child=SIGKILL"));
        }
        // no perf data file: in pid namespaces of their own every JVM is pid 1, and they would share one
        command.addAll(List.of(java, "-cp", System.getProperty("java.class.path"), "-XX:-UsePerfData"));
        command.addAll(jvmOptions);
        command.add("org.tapeq.daemon.cli.TapeqCommand");
        command.addAll(args);
        starts++;
        Files.writeString(log, "==== start " + starts + ": " + String.join(" ", args) + " ====\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** The JVM: the process started, or under {@code unshare} its child. */
    private Optional<ProcessHandle> jvm() {
        if (process == null) {
            return Optional.empty();
        }
        return ownPidNamespace ? process.toHandle().children().findFirst() : Optional.of(process.toHandle());
    }

    /** The JVM's pid as this host sees it, or -1. */
    long pid() {
        return jvm().map(ProcessHandle::pid).orElse(-1L);
    }

    /**
     * CPU time the JVM has used so far (user and system, as {@code /proc/PID/stat} counts it), in seconds; -1 when
     * it is not running or the system does not say.
     */
    double cpuSeconds() {
        return jvm().flatMap(h -> h.info().totalCpuDuration()).map(d -> d.toNanos() / 1e9).orElse(-1.0);
    }

    /** SIGKILL to the JVM (a host that dies), then waits until it is gone. */
    void kill() throws IOException, InterruptedException {
        if (!alive()) {
            return;
        }
        long pid = pid();
        jvm().ifPresent(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IOException(name + " (pid " + pid + ") survived SIGKILL");
        }
        Files.writeString(log, "==== killed with SIGKILL (pid " + pid + ") ====\n", StandardOpenOption.APPEND);
    }

    /** SIGTERM to the JVM (its shutdown hook closes it); SIGKILL if it has not stopped within a minute. */
    void stop() throws IOException, InterruptedException {
        if (!alive()) {
            return;
        }
        jvm().ifPresent(ProcessHandle::destroy);
        if (!process.waitFor(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
            kill();
        }
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
