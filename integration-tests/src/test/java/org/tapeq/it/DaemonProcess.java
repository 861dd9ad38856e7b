package org.tapeq.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.daemon.control.ControlProtocol;
import org.tapeq.testing.support.Poll;

/**
 * The real daemon as a separate JVM, started the way the launcher starts it
 * ({@code java -cp ... org.tapeq.daemon.cli.TapeqCommand daemon -c tapeq.yaml}) with this JVM's class path and
 * java binary, so that it can be killed with SIGKILL. Its output is appended to the site's log ({@link Site#log()}).
 */
final class DaemonProcess implements AutoCloseable {

    /** The daemon's site (its control socket); null for a mover. */
    private final Site site;
    private final Path config;
    private final Path log;
    /** The launcher's subcommand: {@code daemon} or {@code mover}. */
    private final String subcommand;
    /** The network namespace it runs in ({@link #inNetworkNamespace}), or null. */
    private String netns;
    private Process process;
    private int starts;
    /** Whether the daemon runs in a pid namespace of its own ({@link #ownPidNamespace}). */
    private boolean ownPidNamespace;

    DaemonProcess(Site site) throws IOException {
        this(site, site.writeConfig(), site.log(), "daemon");
    }

    private DaemonProcess(Site site, Path config, Path log, String subcommand) {
        this.site = site;
        this.config = config;
        this.log = log;
        this.subcommand = subcommand;
    }

    /** A data mover ({@code tapeq mover -c config}) as a separate JVM, its output appended to {@code log}. */
    static DaemonProcess mover(Path config, Path log) {
        return new DaemonProcess(null, config, log, "mover");
    }

    /**
     * Runs the process in the network namespace {@code name} ({@code ip netns exec}, which enters it and executes
     * the command in place: {@link #pid()} stays the JVM's).
     */
    DaemonProcess inNetworkNamespace(String name) {
        this.netns = name;
        return this;
    }

    Path log() {
        return log;
    }

    /**
     * Whether {@code unshare} can run a process in a pid namespace of its own here (root, or user namespaces
     * allowed with a {@code /proc} to mount).
     */
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

    /**
     * Runs the daemon in a pid namespace of its own ({@code unshare --pid --fork --mount-proc}), as in a container
     * or on another host: a daemon of this host cannot tell from its pid whether it is alive, so its site lease is
     * waited out when it dies instead of being taken at once. {@link #pid()} is then the daemon's pid as this host
     * sees it; the lease records the pid in its namespace.
     */
    DaemonProcess ownPidNamespace() {
        this.ownPidNamespace = true;
        return this;
    }

    /** Starts a new daemon JVM; does not wait for it to be ready. */
    void start() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the daemon is already running (pid " + process.pid() + ")");
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
        command.addAll(List.of(java,
                "-cp", System.getProperty("java.class.path"),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dtapeq.log.level=" + System.getProperty("tapeq.it.daemon.log.level", "INFO"),
                "org.tapeq.daemon.cli.TapeqCommand", subcommand, "-c", config.toString()));
        starts++;
        Files.writeString(log, "==== start " + starts + " ====\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    long pid() {
        return daemonProcess().pid();
    }

    /** The daemon's JVM: the process started, or in a pid namespace of its own the child of {@code unshare}. */
    private ProcessHandle daemonProcess() {
        if (!ownPidNamespace) {
            return process.toHandle();
        }
        try {
            return Poll.value("the daemon's JVM under unshare", Duration.ofSeconds(10),
                    () -> process.toHandle().children().findFirst().orElse(null));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Waits up to {@code timeout} for the process to end by itself: its exit status, or null if it still runs. */
    Integer awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : null;
    }

    /** SIGKILL (what {@link Process#destroyForcibly()} sends on Linux), then waits for the process to be gone. */
    void kill() throws InterruptedException, IOException {
        if (ownPidNamespace && process.isAlive()) {
            daemonProcess().destroyForcibly(); // unshare (--kill-child) goes with it
        }
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the daemon (pid " + process.pid() + ") survived SIGKILL");
        }
        Files.writeString(log, "==== killed with SIGKILL (pid " + process.pid() + ", exit " + process.exitValue()
                + ") ====\n", StandardOpenOption.APPEND);
    }

    /** SIGTERM: the daemon's shutdown hook closes it; returns its exit code. */
    int stop() throws InterruptedException, IOException {
        if (process == null) {
            return 0;
        }
        if (ownPidNamespace && process.isAlive()) {
            daemonProcess().destroy(); // unshare does not pass SIGTERM on; it exits with its child's status
        } else {
            process.destroy();
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            kill();
            throw new IllegalStateException("the daemon did not stop within 60 s of SIGTERM; killed");
        }
        return process.exitValue();
    }

    /** Calls the control socket; null while the daemon is not (yet) answering. */
    JsonNode control(String command, List<String> args) {
        try {
            return ControlProtocol.call(site.controlSocket(), command, args);
        } catch (IOException | RuntimeException e) { // not listening yet, or killed while answering
            return null;
        }
    }

    /**
     * Waits until the daemon answers {@code status} on its control socket with its scheduler up (the socket answers
     * status while the daemon still starts, and refuses other commands until then) and returns that status.
     */
    JsonNode awaitStatus(Duration timeout) throws InterruptedException {
        return Poll.value("the daemon answers on " + site.controlSocket() + " with its scheduler up (see " + log
                + ")", timeout, () -> {
            if (!isAlive()) {
                throw new IllegalStateException("the daemon exited with " + process.exitValue() + "; see " + log);
            }
            JsonNode status = control("status", List.of());
            return status == null || status.path("scheduler").isMissingNode() || status.path("scheduler").isNull()
                    ? null : status;
        });
    }

    /**
     * Labels the cartridges, in barcode order, as {@link Site#familyOfCartridge} says (a fresh library is blank).
     * Waits for the list to name every cartridge of the site: right after the start it may come before the
     * library's inventory is complete (seen: an empty list, and with a data mover one cartridge of four; the others
     * stayed blank and their families' flushes failed).
     */
    void labelAll() throws InterruptedException {
        int count = site.cartridgeCount();
        JsonNode list = Poll.value("the daemon lists its " + count + " cartridges", Duration.ofSeconds(30), () -> {
            JsonNode l = control("cartridge-list", List.of());
            return l != null && l.isArray() && l.size() >= count ? l : null;
        });
        List<String> barcodes = new ArrayList<>();
        list.forEach(c -> barcodes.add(c.path("barcode").asText()));
        Collections.sort(barcodes);
        for (int i = 0; i < barcodes.size(); i++) {
            JsonNode done = control("cartridge-label", List.of(barcodes.get(i),
                    Site.familyOfCartridge(i, barcodes.size()), "false"));
            if (done == null) {
                throw new AssertionError("labelling " + barcodes.get(i) + " failed");
            }
        }
    }

    @Override
    public void close() throws IOException {
        if (isAlive()) {
            try {
                kill();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while killing the daemon", e);
            }
        }
    }
}
