package org.tapeq.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.daemon.rehearsal.ScratchTree;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.daemon.rehearsal.SizeOnlyTapes;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;

import ch.qos.logback.classic.Level;

/**
 * A standby's rehearsal of a takeover ({@code catalog.standbyRehearsal}, off by default): while it waits for the site
 * lease, a standby serves a scratch request directory of N stage requests with a private daemon of its own, so that
 * the code a takeover runs for every queued request (reading and parsing request files, admission, the request
 * table, the catalog lookup, queueing in the scheduler) is loaded and compiled by the JVM before a takeover needs it.
 *
 * <p>Design notes. A standby's JVM has never run that code: at a takeover with a million requests queued its
 * compiler threads took about a third of the standby's CPU (docs/benchmarks.md, "A million queued: failover
 * measured"), on a host that may have two cores. The rehearsal touches nothing of the site: a new directory below
 * the system's temporary directory ({@code java.io.tmpdir}) holds a request directory, a SQLite catalog and a
 * size-only simulated library (the files are first written onto its cartridges through the scheduler, in virtual
 * time, as the load test does); the private daemon has no HTTP port and takes no site lease; it is closed once
 * every request is queued, and the directory removed. Its INFO lines are held back (it is not the site's daemon). A
 * rehearsal that fails is logged and skipped: the standby waits without it. It runs once, on a thread of its own,
 * when the standby first finds the site held; the standby goes on looking at the lease meanwhile, and a takeover
 * stops the rehearsal (and waits the moments its private daemon takes to close) before the engine starts.
 */
final class TakeoverRehearsal implements Standby.Rehearsal {

    private static final Logger LOG = LoggerFactory.getLogger(TakeoverRehearsal.class);
    private static final int CARTRIDGES = 4;
    private static final int DRIVES = 2;
    private static final long FILE_SIZE = 100_000;
    private static final long TIMEOUT_MILLIS = TimeUnit.MINUTES.toMillis(5);

    private final int requests;
    private final Path parent;
    private Thread thread;

    /**
     * A rehearsal of {@code requests} queued stages in a new directory below {@code parent}, or below the system's
     * temporary directory when it is null (the daemon's choice: a state directory's path may leave too little of the
     * 108 bytes a Unix socket's path may have).
     */
    TakeoverRehearsal(int requests, Path parent) {
        this.requests = requests;
        this.parent = parent;
    }

    @Override
    public void start() {
        thread = new Thread(() -> {
            try {
                LOG.info("Standby: {}", run(requests, parent));
            } catch (InterruptedException e) {
                LOG.info("Standby: the takeover rehearsal was stopped: the site is being taken over");
            }
        }, "tapeq-takeover-rehearsal");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void stopAndWait() throws InterruptedException {
        if (thread != null) {
            thread.interrupt();
            thread.join();
        }
    }

    /**
     * Rehearses the intake of {@code requests} queued stages below {@code parent}; returns what to log. Never throws
     * but for an interrupt (the private daemon is closed and the directory removed then too).
     */
    static String run(int requests, Path parent) throws InterruptedException {
        long started = System.nanoTime();
        Path root = null;
        ch.qos.logback.classic.Logger tapeq = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("org.tapeq");
        Level level = tapeq.getLevel();
        try {
            root = parent == null ? Files.createTempDirectory("tapeq-rehearsal-")
                    : Files.createTempDirectory(parent, "tapeq-rehearsal-");
            tapeq.setLevel(Level.WARN); // the private daemon's start and stop are not the site's
            rehearse(requests, root);
            return String.format(Locale.ROOT, "rehearsed a takeover of %,d queued stage requests in %.1f s",
                    requests, (System.nanoTime() - started) / 1e9);
        } catch (IOException | RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("stopped"); // an interrupted channel closes, which throws
            }
            return "the takeover rehearsal failed (" + e + "); waiting without it";
        } finally {
            tapeq.setLevel(level);
            if (root != null) {
                removeAll(root);
            }
        }
    }

    private static void rehearse(int n, Path root) throws IOException, InterruptedException {
        Path state = root; // short: the private daemon's control socket is a Unix socket path (108 bytes at most)
        RequestDirectory dir = RequestDirectory.create(root.resolve("r"));
        SizeOnlyTapes.write(state.resolve("catalog.db"), state.resolve("simlib"), DRIVES, SizeOnlyTapes.MEDIA,
                CARTRIDGES, n, FILE_SIZE);
        long pid = ProcessHandle.current().pid();
        for (int i = 0; i < n; i++) {
            AtomicFiles.write(dir.requestFile(SizeOnlyTapes.pnfsid(i)),
                    RequestCodec.toBytes(SizeOnlyTapes.stageRequest(i, CARTRIDGES, FILE_SIZE, pid)));
            if ((i & 1023) == 0 && Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("stopped");
            }
        }
        // speed 1, real tape time: nothing is mounted before the requests are queued
        DaemonConfig config = DaemonConfig.parse(SizeOnlyTapes.daemonYaml("rehearsal", dir.base(), state, 1, DRIVES,
                CARTRIDGES), "takeover rehearsal");
        Daemon daemon = Daemon.start(config);
        try {
            long deadline = System.currentTimeMillis() + TIMEOUT_MILLIS;
            while (queued(daemon) < n) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException("only " + queued(daemon) + " of " + n + " requests queued after "
                            + TIMEOUT_MILLIS / 1000 + " s");
                }
                Thread.sleep(20);
            }
        } finally {
            // Closed in full even when stopped: its threads end before the standby's own engine starts.
            boolean stopped = Thread.interrupted();
            daemon.close();
            if (stopped) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long queued(Daemon daemon) throws InterruptedException {
        try {
            return daemon.scheduler().status(0).get().counters().getOrDefault("stages_submitted", 0L);
        } catch (ExecutionException e) {
            throw new IllegalStateException("no status from the rehearsal's scheduler", e.getCause());
        }
    }

    private static void removeAll(Path root) {
        try {
            ScratchTree.delete(root);
        } catch (IOException e) {
            LOG.warn("Standby: cannot remove the takeover rehearsal's directory {}: {}", root, e.toString());
        }
    }
}
