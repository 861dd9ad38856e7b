package org.tapeq.tools.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.control.ControlProtocol;
import org.tapeq.tools.demo.HostsConfig.Mover;

/**
 * The processes of a multi-host run ({@code tapeq demo --hosts 3}, {@code tapeq bench-hosts}): each started from
 * a file written next to its log, all killed at the end, and the waits for a process to listen or to report its
 * site role.
 */
final class HostGroup implements AutoCloseable {

    static final Duration START_WAIT = Duration.ofSeconds(180);
    private static final long TICK_MILLIS = 200;

    private final PrintStream progress;
    private final List<HostProcess> processes = new ArrayList<>();

    HostGroup(PrintStream progress) {
        this.progress = progress;
    }

    /** Writes {@code yaml} to {@code config}; returns the process {@code tapeq COMMAND -c config}, not started. */
    synchronized HostProcess add(String name, String command, Path config, String yaml, boolean separate,
                                 List<String> jvmOptions) throws IOException {
        Files.createDirectories(config.getParent());
        Files.writeString(config, yaml);
        HostProcess p = new HostProcess(name, List.of(command, "-c", config.toString()),
                config.resolveSibling(config.getFileName().toString().replace(".yaml", ".log")), separate, jvmOptions);
        processes.add(p);
        return p;
    }

    /** Kills every process started, newest first, each on its own: one that fails does not keep the rest alive. */
    @Override
    public synchronized void close() {
        for (int i = processes.size() - 1; i >= 0; i--) {
            HostProcess p = processes.get(i);
            try {
                p.close();
            } catch (IOException | RuntimeException e) {
                progress.printf("could not stop %s: %s%n", p.name(), e.getMessage());
            }
        }
    }

    /** Waits until {@code p} accepts connections on its gRPC address. */
    static void awaitListening(HostProcess p, Mover m) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.alive()) {
                throw new IOException(p.name() + " exited; see " + p.log());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(m.host(), m.port()), 1000);
                return;
            } catch (IOException notYet) {
                Thread.sleep(TICK_MILLIS);
            }
        }
        throw new IOException(p.name() + " did not listen on " + m.address() + " within " + START_WAIT.toSeconds()
                + " s; see " + p.log());
    }

    /**
     * Waits until the daemon of {@code state} answers with {@code role} (null: any, as a daemon without a site)
     * and, when active, its scheduler up; returns that status.
     */
    static JsonNode awaitRole(HostProcess p, Path state, String role) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.alive()) {
                throw new IOException(p.name() + " exited; see " + p.log());
            }
            JsonNode s = control(state, "status", List.of());
            boolean standby = "standby".equals(role);
            if (s != null && (role == null || role.equals(s.path("site").path("role").asText()))
                    && (standby || s.path("scheduler").isObject())) {
                return s;
            }
            Thread.sleep(TICK_MILLIS);
        }
        throw new IOException(p.name() + " did not report itself " + (role == null ? "up" : role) + " within "
                + START_WAIT.toSeconds() + " s; see " + p.log());
    }

    /** The answer of the daemon of {@code state} to a control command, or null when it does not answer. */
    static JsonNode control(Path state, String command, List<String> args) {
        try {
            return ControlProtocol.call(state.resolve(Daemon.CONTROL_SOCKET), command, args);
        } catch (IOException | RuntimeException e) { // not listening yet, or killed while answering
            return null;
        }
    }
}
