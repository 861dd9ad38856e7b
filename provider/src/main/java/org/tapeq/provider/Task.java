package org.tapeq.provider;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import diskCacheV111.util.PnfsId;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.dcache.pool.nearline.spi.NearlineRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.ErrorReport;
import org.tapeq.protocol.ProtocolException;
import org.tapeq.protocol.ProtocolFiles;
import org.tapeq.protocol.ReturnCodes;

/**
 * One request in flight: a small state machine that advances one step at a time on the I/O pool.
 *
 * <p>Design notes. Everything that can happen to a request (its activation or allocation finishing, a
 * directory event, a rescan, a timer, a cancel) only <em>signals</em> the task; the task then looks at its
 * flags and at the directory and takes the next step. So events may be lost, duplicated or reordered
 * without harm, and a task never runs on two threads at once: {@link #signal()} queues it only when it is
 * idle (a work-in-progress counter), and a signal that arrives while it runs makes it run once more. A
 * request ends exactly once because only {@link #claim()} can set {@link #DONE}, and every ending goes
 * through {@link #settle}, which also clears all pending state. Tasks are kept small (about 56 bytes)
 * because a pool may have millions in flight.
 */
abstract class Task implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Task.class);

    static final int ACTIVATED = 1;
    static final int ALLOCATING = 1 << 1;
    static final int ALLOCATED = 1 << 2;
    static final int FAILED = 1 << 3;
    static final int CANCEL = 1 << 4;
    static final int REQUEST_WRITTEN = 1 << 5;
    static final int LINKED = 1 << 6;
    static final int DONE = 1 << 7;

    private static final VarHandle WIP;
    private static final VarHandle FLAGS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            WIP = lookup.findVarHandle(Task.class, "wip", int.class);
            FLAGS = lookup.findVarHandle(Task.class, "flags", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final ProviderRuntime rt;
    final NearlineRequest<?> request;
    final PnfsId pnfsId;
    /** Next task for the same pnfsid; guarded by the registry's map. */
    Task successor;
    /** Generation of the rescan that last saw this task's out/ link; see {@link Rescanner}. */
    int mark;
    /** When set (epoch ms), the time a waiting step may proceed (grace period). */
    long notBefore;
    /** Value of the last future (activation path) or the failure cause; published by a flag. */
    Object pending;
    @SuppressWarnings("unused") // through WIP
    private volatile int wip;
    @SuppressWarnings("unused") // through FLAGS
    private volatile int flags;

    Task(ProviderRuntime rt, NearlineRequest<?> request, PnfsId pnfsId) {
        this.rt = rt;
        this.request = request;
        this.pnfsId = pnfsId;
    }

    /** "flush" or "stage", for messages. */
    abstract String kind();

    /** Subscribes to the request's activation. */
    abstract void begin();

    /** Starts the request's life cycle; called once the task may work in the directory. Never throws. */
    final void start() {
        try {
            begin();
        } catch (RuntimeException e) {
            pending = e; // dCache refused synchronously: the next step fails the request
            setFlag(FAILED);
            signal();
        }
    }

    /** Takes the next step after activation; {@code f} is the current flag set. */
    abstract void advance(int f) throws IOException;

    /** Carries out a requested cancellation (the task may still complete if completion already won). */
    abstract void cancelNow() throws IOException;

    /** Deletes what this task put into the directory, after it failed, timed out or was cancelled. */
    abstract void withdraw();

    final String name() {
        return pnfsId.toString();
    }

    final int flags() {
        return flags;
    }

    final boolean has(int flag) {
        return (flags & flag) != 0;
    }

    final void setFlag(int flag) {
        int f;
        do {
            f = flags;
        } while (!FLAGS.compareAndSet(this, f, f | flag));
    }

    /** Takes the right to end this request; true for exactly one caller. */
    final boolean claim() {
        int f;
        do {
            f = flags;
            if ((f & DONE) != 0) {
                return false;
            }
        } while (!FLAGS.compareAndSet(this, f, f | DONE));
        return true;
    }

    /**
     * Makes the task take a step soon; cheap and safe from any thread, any number of times. True if this call
     * queued an idle task, false if it was queued or running already (it will run once more) or shutting down.
     */
    final boolean signal() {
        if ((int) WIP.getAndAdd(this, 1) == 0) {
            try {
                rt.io.execute(this);
                return true;
            } catch (java.util.concurrent.RejectedExecutionException e) {
                WIP.setVolatile(this, 0); // shutting down: shutdown() ends the request
            }
        }
        return false;
    }

    /** Asks for cancellation; non-blocking. */
    final void requestCancel() {
        setFlag(CANCEL);
        signal();
    }

    @Override
    public final void run() {
        int missed = 1;
        while (true) {
            try {
                step();
            } catch (Throwable t) {
                LOG.error("{} {} failed unexpectedly: {}", name(), kind(), t.toString(), t);
                if (claim()) {
                    withdraw();
                    settle(Ending.failed(ReturnCodes.FAILED, "tapeq provider error in " + kind() + " of " + name()
                            + ": " + t));
                }
            }
            missed = (int) WIP.getAndAdd(this, -missed) - missed;
            if (missed == 0) {
                return;
            }
        }
    }

    private void step() throws IOException {
        int f = flags;
        if ((f & DONE) != 0) {
            return;
        }
        String stopped = rt.stopped();
        if (stopped != null) {
            if (claim()) { // nothing is touched in a directory no longer served
                settle(Ending.failed(ReturnCodes.FAILED, kind() + " of " + name() + ": request directory "
                        + rt.directory + " is no longer served: " + stopped));
            }
            return;
        }
        if ((f & CANCEL) != 0) {
            cancelNow();
        } else if ((f & FAILED) != 0) {
            Throwable cause = (Throwable) pending;
            endWithdrawn(Ending.failed(cause instanceof Exception ? (Exception) cause : new Exception(cause)));
        } else if ((f & ACTIVATED) != 0 && request.getDeadline() <= rt.clock.millis()) {
            endWithdrawn(Ending.failed(new TimeoutException(kind() + " of " + name() + " passed its deadline ("
                    + request.getDeadline() + " ms since the epoch)")));
        } else {
            advance(f);
        }
    }

    /** Subscribes to a request future; its value (or failure) arrives as {@code flag} (or FAILED). */
    final void await(ListenableFuture<?> future, int flag) {
        future.addListener(() -> {
            try {
                pending = future.get();
                setFlag(flag);
            } catch (ExecutionException e) {
                pending = e.getCause();
                setFlag(FAILED);
            } catch (CancellationException e) {
                pending = e;
                setFlag(FAILED);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                pending = e;
                setFlag(FAILED);
            }
            signal();
        }, MoreExecutors.directExecutor()); // only records the result and queues the task
    }

    /** Ends the request as cancelled, deleting what it put into the directory. */
    final void cancelWithdrawn() {
        endWithdrawn(Ending.failed(new CancellationException(kind() + " of " + name() + " was cancelled")));
    }

    final void endWithdrawn(Ending ending) {
        if (claim()) {
            withdraw();
            settle(ending);
        }
    }

    /** Ends the request with the daemon's error file {@code request/<pnfsid>.err}. */
    final void endWithErrorFile(Path errorFile) {
        ErrorReport report;
        try {
            report = ErrorReport.parse(rt.held.request().readSmall(errorFile.getFileName().toString(),
                    ProtocolFiles.MAX_PROTOCOL_FILE_SIZE));
        } catch (ProtocolException e) {
            report = new ErrorReport(ReturnCodes.FAILED, "the tape daemon's error file is unusable: " + e.getMessage());
        } catch (NoSuchFileException e) {
            return; // removed under us; the next signal decides
        } catch (IOException e) {
            report = new ErrorReport(ReturnCodes.FAILED, "cannot read the tape daemon's error file " + errorFile
                    + ": " + e);
        }
        int rc = report.returnCode();
        String message = report.message();
        String unfit = ReturnCodes.unfitForFailure(rc);
        if (unfit != null) {
            message = message + " (the daemon's return code " + rc + " is reported as " + ReturnCodes.FAILED
                    + ": " + unfit + ")";
            rc = ReturnCodes.FAILED;
        }
        endWithdrawn(Ending.failed(rc, message));
    }

    /**
     * The one place a request ends: clears the pending state, hands the pnfsid to a queued successor and
     * reports to dCache. The caller must hold the claim and have put the directory in order.
     */
    final void settle(Ending ending) {
        rt.polled.remove(this);
        pending = null;
        Task next = rt.registry.retire(this);
        if (ending.success) {
            LOG.debug("{} {} completed", name(), kind());
        } else {
            LOG.info("{} {} {}", name(), kind(), ending);
        }
        try {
            report(ending);
        } catch (RuntimeException e) {
            LOG.warn("{} dCache rejected the outcome of the {}: {}", name(), kind(), e.toString());
        }
        if (next != null && !rt.io.isShutdown()) {
            next.start();
        }
    }

    @SuppressWarnings("unchecked")
    private void report(Ending ending) {
        if (ending.success) {
            ((NearlineRequest<Object>) request).completed(ending.value);
        } else if (ending.exception != null) {
            request.failed(ending.exception);
        } else {
            request.failed(ending.returnCode, ending.message);
        }
    }

    /** Whether {@code path} (in a subdirectory) is there, looked up in the directory held open. */
    final boolean exists(Path path) {
        return rt.held.holding(path).exists(path.getFileName().toString());
    }

    /** Removes {@code path} (in a subdirectory) from the directory held open, logging a failure. */
    final void deleteQuietly(Path path) {
        try {
            rt.held.holding(path).delete(path.getFileName().toString());
        } catch (IOException e) {
            LOG.warn("{}: cannot delete: {}", path, e.toString());
        }
    }

    @Override
    public String toString() {
        return kind() + " " + name() + " " + request.getId();
    }
}
