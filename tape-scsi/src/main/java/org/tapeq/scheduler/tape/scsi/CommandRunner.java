package org.tapeq.scheduler.tape.scsi;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.time.EventLoop;
import org.tapeq.scheduler.time.Threads;

/**
 * Runs shell command lines ({@code mtx}, {@code mt}, {@code dd}) on the tape host: locally through
 * {@code sh -c}, or through a command prefix such as {@code ssh tapehost}, which receives the line as its last
 * argument and runs it in the remote shell. Data of a tape file streams through the same channel (the
 * command's standard input or output).
 *
 * <p>Design notes. Jobs run on a bounded pool of named threads ({@code tapeq-scsi-N}), never on the event
 * loop; a job is a sequence of blocking commands and its result or fault is handed to the loop with
 * {@code loop.execute}. The pipes of each command (standard input, output, error) are served on a second
 * bounded pool ({@code tapeq-scsi-io-N}), so that the job can give up on them: behind an ssh ControlMaster the
 * pipes stay open while a killed command's remote side hangs (a drive that went away). A watchdog thread kills a command whose deadline passed: a fixed deadline for
 * commands, and for a data transfer a deadline that every chunk of progress pushes forward (a stall
 * limit), so a 10 GB tape file is not cut off by a timeout sized for a rewind, capped by an overall limit the
 * caller derives from the transfer's size. Behind a prefix every command, data transfers included, runs under
 * {@code timeout} on the tape host with that limit, and the local watchdog waits for the limit plus the remote
 * kill grace plus a margin ({@link #localLimitMillis}): the tape host ends the command first. A transfer killed
 * here for a stall returns only once that local limit has passed too (the remote side may still hold the
 * drive until its own limit). A killed command
 * reports {@link Result#timedOut()}; the caller maps it to a fault.
 */
final class CommandRunner implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CommandRunner.class);
    private static final int COPY_BUFFER = 64 * 1024;
    private static final int MAX_CAPTURE = 4 << 20;
    private static final long WATCHDOG_PERIOD_MILLIS = 200;
    /** How long the pipes of a killed command may stay open before their I/O is abandoned. */
    private static final long ABANDON_GRACE_MILLIS = 2_000;
    /** {@code timeout -k}: seconds between the remote TERM and KILL of a command past its limit. */
    private static final int REMOTE_KILL_AFTER_SECONDS = 5;
    /** The exit code of {@code timeout} when it stopped the command. */
    static final int REMOTE_TIMEOUT_EXIT = 124;
    /** The exit code of {@code timeout -k} when the command ignored TERM and was killed. */
    static final int REMOTE_KILLED_EXIT = 137;
    /**
     * How much longer the local watchdog waits than the remote limit plus its kill grace: the tape host ends a
     * command first, and the local side never gives up on one that still runs there.
     */
    static final long LOCAL_MARGIN_MILLIS = 2_000;

    /** A blocking job on a runner thread; throws the fault the operation reports. */
    @FunctionalInterface
    interface Job<T> {
        T run() throws TapeFault;
    }

    /** Writes a command's standard input. */
    @FunctionalInterface
    interface Feeder {
        void feed(OutputStream stdin) throws IOException;
    }

    /** Reads a command's standard output. */
    @FunctionalInterface
    interface Drainer {
        void drain(InputStream stdout) throws IOException;
    }

    /**
     * How a command ended.
     *
     * @param exitCode process exit code (-1 if killed)
     * @param stdout   captured standard output (empty for data reads)
     * @param stderr   captured standard error
     * @param timedOut the watchdog killed it
     * @param ioError  the feeder or drainer failed (e.g. the source file went away), or null
     */
    record Result(String line, int exitCode, String stdout, String stderr, boolean timedOut, IOException ioError) {
        boolean ok() {
            return exitCode == 0 && !timedOut && ioError == null;
        }

        /** Stopped at its limit: by the local watchdog, or by {@code timeout} on the tape host (124, or 137 after KILL). */
        boolean limitReached() {
            return timedOut || exitCode == REMOTE_TIMEOUT_EXIT || exitCode == REMOTE_KILLED_EXIT;
        }

        /** Standard error, or the exit code if it is empty, for messages. */
        String diagnostic() {
            String err = stderr.strip();
            if (timedOut) {
                return "timed out" + (err.isEmpty() ? "" : " (" + err + ")");
            }
            if (exitCode == REMOTE_TIMEOUT_EXIT && err.isEmpty()) {
                return "timed out on the tape host (exit code " + exitCode + " of timeout)";
            }
            if (exitCode == REMOTE_KILLED_EXIT && err.isEmpty()) {
                return "killed (exit code " + exitCode + ": on the tape host, timeout's KILL after the limit)";
            }
            return err.isEmpty() ? "exit code " + exitCode : err + " (exit code " + exitCode + ")";
        }
    }

    private final EventLoop loop;
    private final List<String> prefix;
    private final ThreadPoolExecutor pool;
    private final ScheduledExecutorService watchdog;
    private final ThreadPoolExecutor ioPool;

    /**
     * @param prefix  argv put before the command line (e.g. {@code ssh tapehost}); empty to run locally
     * @param threads jobs that may run at once (one per drive plus the robot and inventory)
     */
    CommandRunner(EventLoop loop, List<String> prefix, int threads) {
        this.loop = loop;
        this.prefix = List.copyOf(prefix);
        this.pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(256),
                Threads.numbered("tapeq-scsi"));
        this.pool.allowCoreThreadTimeOut(true);
        // three pipes per command; room for as many again abandoned behind a stuck remote command
        this.ioPool = new ThreadPoolExecutor(6 * threads, 6 * threads, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(256), Threads.numbered("tapeq-scsi-io"));
        this.ioPool.allowCoreThreadTimeOut(true);
        this.watchdog = Executors.newSingleThreadScheduledExecutor(Threads.named("tapeq-scsi-watchdog"));
    }


    /** Runs the job on a runner thread and completes on the loop. */
    <T> void submit(String what, Job<T> job, Completion<T> done) {
        try {
            pool.execute(() -> {
                T value;
                try {
                    value = job.run();
                } catch (TapeFault fault) {
                    loop.execute(() -> done.failed(fault));
                    return;
                } catch (RuntimeException e) {
                    LOG.error("SCSI library: {} failed internally: {}", what, e.toString(), e);
                    loop.execute(() -> done.failed(new TapeFault(FaultKind.DRIVE, what + ": internal error: " + e, e)));
                    return;
                }
                loop.execute(() -> done.succeeded(value));
            });
        } catch (RejectedExecutionException e) {
            loop.execute(() -> done.failed(new TapeFault(FaultKind.DRIVE, what + ": the SCSI command pool is "
                    + (pool.isShutdown() ? "closed" : "full"), e)));
        }
    }

    /**
     * Runs a command line to its end, capturing its output; kills it after {@code timeoutMillis}. Behind a
     * prefix the line runs under {@code timeout} on the tape host too: killing the local {@code ssh} does not
     * stop its remote side, and a remote {@code mt} left waiting on a drive acts on whatever is loaded there
     * later (an {@code mt offline} ejecting the next cartridge).
     */
    Result run(String line, long timeoutMillis) {
        return execute(line, timeoutMillis, 0, null, null);
    }

    /** The line as the tape host runs it: bounded by {@code timeout} (GNU coreutils) behind a prefix. */
    String remote(String line, long timeoutMillis) {
        if (prefix.isEmpty()) {
            return line; // local: the watchdog kills the command and its children itself
        }
        return Shell.line("timeout", "-k", REMOTE_KILL_AFTER_SECONDS, remoteSeconds(timeoutMillis), "sh", "-c", line);
    }

    private static long remoteSeconds(long timeoutMillis) {
        return Math.max(1, (timeoutMillis + 999) / 1000);
    }

    /**
     * When the local watchdog kills a command limited to {@code timeoutMillis}: at the limit when it runs here;
     * behind a prefix only after the tape host's {@code timeout} had its limit (in whole seconds, rounded up), its
     * kill grace and {@link #LOCAL_MARGIN_MILLIS} more, so the local side never returns while the command still
     * runs on the tape host (unless the connection itself hangs).
     */
    long localLimitMillis(long timeoutMillis) {
        if (prefix.isEmpty()) {
            return timeoutMillis;
        }
        return (remoteSeconds(timeoutMillis) + REMOTE_KILL_AFTER_SECONDS) * 1000 + LOCAL_MARGIN_MILLIS;
    }

    /**
     * Runs a command line that reads data from its standard input: killed when no chunk was written for
     * {@code stallMillis}, and in any case after {@code limitMillis} (on the tape host too, like {@link #run}).
     */
    Result feed(String line, long stallMillis, long limitMillis, Feeder feeder) {
        return execute(line, limitMillis, stallMillis, feeder, null);
    }

    /** Runs a command line whose standard output is data; stall and overall limit as {@link #feed}. */
    Result drain(String line, long stallMillis, long limitMillis, Drainer drainer) {
        return execute(line, limitMillis, stallMillis, null, drainer);
    }

    /** {@code stallMillis} 0: no stall limit (not a data transfer). */
    private Result execute(String line, long timeoutMillis, long stallMillis, Feeder feeder, Drainer drainer) {
        boolean stall = stallMillis > 0;
        List<String> argv = new ArrayList<>(prefix);
        if (prefix.isEmpty()) {
            argv.addAll(List.of("sh", "-c", line));
        } else {
            argv.add(remote(line, timeoutMillis));
        }
        long t0 = System.nanoTime();
        Process process;
        try {
            process = new ProcessBuilder(argv).start();
        } catch (IOException e) {
            return new Result(line, -1, "", "cannot start " + argv.get(0) + ": " + e.getMessage(), false, null);
        }
        long limit = localLimitMillis(timeoutMillis);
        Deadline deadline = stall ? new Deadline(process, stallMillis, limit) : new Deadline(process, limit, limit);
        ScheduledFuture<?> check = watchdog.scheduleWithFixedDelay(deadline::check, WATCHDOG_PERIOD_MILLIS,
                WATCHDOG_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        IOException ioError = null;
        String out;
        String err;
        try {
            Future<String> stderr = io(() -> {
                try (InputStream e = process.getErrorStream()) {
                    return capture(e);
                }
            });
            Future<Void> stdin = io(() -> {
                try (OutputStream in = process.getOutputStream()) {
                    if (feeder != null) {
                        feeder.feed(stall ? new Progress.Out(in, deadline) : in);
                    }
                } catch (IOException e) {
                    kill(process, false);
                    throw e;
                }
                return null;
            });
            Future<String> stdout = io(() -> {
                try (InputStream o = process.getInputStream()) {
                    if (drainer == null) {
                        return capture(o);
                    }
                    drainer.drain(stall ? new Progress.In(o, deadline) : o);
                    o.transferTo(OutputStream.nullOutputStream());
                    return "";
                } catch (IOException e) {
                    kill(process, false);
                    throw e;
                }
            });
            waitFor(process);
            // Normally the pipes end with the process. Behind a prefix that multiplexes (ssh ControlMaster) the
            // pipes belong to the master until the remote command ends, which after a kill may be never: then
            // the I/O is abandoned after a grace period (its late bytes go nowhere: the callers' streams refuse).
            long grace = deadline.expired ? ABANDON_GRACE_MILLIS : Long.MAX_VALUE;
            ioError = failure(stdin, grace);
            IOException readError = failure(stdout, grace);
            if (ioError == null && !deadline.expired) {
                ioError = readError;
            }
            out = readError == null ? text(stdout, grace) : "";
            err = text(stderr, grace);
        } finally {
            check.cancel(false);
        }
        if (deadline.expired && !prefix.isEmpty()) {
            awaitRemoteEnd(line, deadline);
        }
        int exit = process.exitValue();
        Result r = new Result(line, exit, out, err, deadline.expired, ioError);
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} -> {} in {} ms{}", line, exit, (System.nanoTime() - t0) / 1_000_000,
                    err.isBlank() ? "" : ": " + err.strip());
        }
        return r;
    }

    /**
     * After a stall kill behind a prefix: killing the local side (the {@code ssh}) does not stop the remote
     * command, which may still hold the drive (a {@code dd} stuck on it); its {@code timeout} ends it only at the
     * command's overall limit. The job must not hand the drive back before that, or the next command on the
     * same device runs beside it: wait until the local limit ({@link #localLimitMillis}), which lies past the
     * remote limit and its kill grace, has passed. A kill at the limit itself waits for nothing.
     */
    private static void awaitRemoteEnd(String line, Deadline deadline) {
        long left = deadline.endNanos - System.nanoTime();
        if (left <= 0) {
            return;
        }
        LOG.warn("{}: stalled and killed here; waiting {} s for the tape host's limit to end it there too", line,
                TimeUnit.NANOSECONDS.toSeconds(left) + 1);
        try {
            TimeUnit.NANOSECONDS.sleep(left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing: stop waiting
        }
    }

    /** Runs pipe I/O on the I/O pool; a full pool fails the task rather than blocking the command. */
    private <T> Future<T> io(Callable<T> task) {
        try {
            return ioPool.submit(task);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IOException("the SCSI I/O pool is full", e));
        }
    }

    /** The I/O error a pipe task ended with, or null; waits at most {@code graceMillis}, then abandons it. */
    private static IOException failure(Future<?> task, long graceMillis) {
        try {
            if (graceMillis == Long.MAX_VALUE) {
                task.get();
            } else {
                task.get(graceMillis, TimeUnit.MILLISECONDS);
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            task.cancel(true);
            return new IOException("interrupted");
        } catch (TimeoutException e) {
            task.cancel(true);
            return new IOException("abandoned: the command's pipe stayed open after it was killed");
        } catch (ExecutionException e) {
            return e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
    }

    private static void waitFor(Process process) {
        boolean interrupted = false;
        while (true) {
            try {
                process.waitFor();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
                kill(process, true);
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Signals the command and its children through their process handles: unlike {@link Process#destroy()},
     * this leaves the pipes open, so what the command wrote to standard error before it died is still read.
     */
    private static void kill(Process process, boolean forcibly) {
        process.descendants().forEach(forcibly ? ProcessHandle::destroyForcibly : ProcessHandle::destroy);
        ProcessHandle self = process.toHandle();
        if (forcibly) {
            self.destroyForcibly();
        } else {
            self.destroy();
        }
    }

    private static String capture(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        byte[] b = new byte[COPY_BUFFER];
        int n;
        while ((n = in.read(b)) >= 0) {
            if (buf.size() < MAX_CAPTURE) {
                buf.write(b, 0, Math.min(n, MAX_CAPTURE - buf.size()));
            }
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    /** Stops accepting jobs and kills running commands. */
    @Override
    public void close() {
        pool.shutdownNow();
        ioPool.shutdownNow();
        watchdog.shutdownNow();
    }

    /**
     * A command's deadline, checked by the watchdog: progress moves it {@code stepMillis} ahead, never past the
     * command's overall limit.
     */
    static final class Deadline {
        private final Process process;
        private final long stepNanos;
        final long endNanos;
        private volatile long deadlineNanos;
        volatile boolean expired;

        Deadline(Process process, long stepMillis, long limitMillis) {
            this.process = process;
            long now = System.nanoTime();
            this.stepNanos = TimeUnit.MILLISECONDS.toNanos(stepMillis);
            this.endNanos = now + TimeUnit.MILLISECONDS.toNanos(limitMillis);
            this.deadlineNanos = now + stepNanos;
        }

        void progressed() {
            deadlineNanos = System.nanoTime() + stepNanos;
        }

        void check() {
            long now = System.nanoTime();
            if (!expired && process.isAlive() && (now - deadlineNanos > 0 || now - endNanos > 0)) {
                expired = true;
                kill(process, true);
            }
        }
    }

    private static String text(Future<String> output, long graceMillis) {
        try {
            return graceMillis == Long.MAX_VALUE ? output.get() : output.get(graceMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        } catch (TimeoutException e) {
            output.cancel(true);
            return "";
        } catch (ExecutionException e) {
            return "(output unreadable: " + e.getCause() + ")";
        }
    }
}
