package org.tapeq.loadtest.run;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The chain a run drives: a request directory served by some daemon, and what can be read about that daemon.
 * {@link StartedDaemon} is a tapeq daemon the harness starts itself; {@link ExistingDaemon} any ENDIT-compatible
 * daemon already serving a directory.
 */
public interface Target extends AutoCloseable {

    /** The request directory the provider writes to. */
    Path requestDirectory();

    /** How much faster than real time the library runs (1 for a real one). */
    double speed();

    /**
     * The daemon now: requests it holds (queue depth) and mounts since it started, each -1 if unknown. May take
     * a while (it is called off the sampling thread).
     */
    Probe probe() throws IOException;

    /** What {@link #probe} found. */
    record Probe(long queued, long mounts) {
        public static final Probe UNKNOWN = new Probe(-1, -1);
    }

    /**
     * Unloads every drive in service that holds a cartridge and waits until none does, at most
     * {@code timeoutNanos}, so that the measured phase starts with empty drives and pays for its mounts. Null if
     * this target cannot (a daemon known only by its request directory: the phase may start with cartridges
     * mounted).
     */
    default Emptied emptyDrives(long timeoutNanos) throws InterruptedException {
        return null;
    }

    /**
     * What {@link #emptyDrives} did: the cartridges it unloaded (by drive), how long that took (wall time), and
     * whether every drive in service was empty at the end (false: the timeout came first).
     */
    record Emptied(Map<String, String> unloaded, long wallMillis, boolean empty) {
    }

    /** Mounts per cartridge barcode over the run, if known (empty if not). */
    Map<String, Long> mountsPerCartridge();

    /**
     * Whether the inputs of A-DT and carousel experiments are already on tape (written straight onto the started
     * size-only library); if not, the run first flushes them through the chain.
     */
    default boolean inputsOnTape() {
        return false;
    }

    /**
     * The transfers on tape since {@code t0} ({@link System#nanoTime}, the start of the measured phase), or null
     * if the daemon does not tell them (the report then plots bytes when their requests are answered).
     */
    default List<Transfer> transfers(long t0) {
        return null;
    }

    /** One line saying what this target is, for the report. */
    String describe();

    @Override
    void close();
}
