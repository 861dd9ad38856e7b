package org.tapeq.it;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.daemon.control.ControlProtocol;
import org.tapeq.testing.support.Poll;
import org.tapeq.tools.demo.HostProcess;

/**
 * The real daemon as a separate JVM ({@link HostProcess}: started as the launcher starts it, with this JVM's class
 * path and java binary), so that it can be killed with SIGKILL, and what the tests ask of it through its control
 * socket. Its output is appended to the site's log ({@link Site#log()}).
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
    /** Whether the daemon runs in a pid namespace of its own ({@link #ownPidNamespace}). */
    private boolean ownPidNamespace;
    /** Made at the first start, once the namespaces are known. */
    private HostProcess process;

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
        return HostProcess.pidNamespacesAvailable();
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
        if (process == null) {
            process = new HostProcess(subcommand, List.of(subcommand, "-c", config.toString()), log, ownPidNamespace)
                    .jvmOption("-Dtapeq.log.level=" + System.getProperty("tapeq.it.daemon.log.level", "INFO"));
            if (netns != null) {
                process.inNetworkNamespace(netns);
            }
        }
        process.start();
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process != null && process.alive();
    }

    /** Waits up to {@code timeout} for the process to end by itself: its exit status, or null if it still runs. */
    Integer awaitExit(Duration timeout) throws InterruptedException {
        return process.awaitExit(timeout);
    }

    /** SIGKILL (what {@link Process#destroyForcibly()} sends on Linux), then waits for the process to be gone. */
    void kill() throws InterruptedException, IOException {
        process.kill();
    }

    /** SIGTERM: the daemon's shutdown hook closes it; returns its exit code. */
    int stop() throws InterruptedException, IOException {
        if (process == null) {
            return 0;
        }
        Integer exit = process.stop();
        if (exit == null) {
            throw new IllegalStateException("the daemon did not stop within a minute of SIGTERM; killed");
        }
        return exit;
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
                throw new IllegalStateException("the daemon exited with " + awaitExit(Duration.ZERO) + "; see " + log);
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
        if (process != null) {
            process.close();
        }
    }
}
