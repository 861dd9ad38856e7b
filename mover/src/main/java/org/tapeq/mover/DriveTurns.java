package org.tapeq.mover;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commands on a mover's drives: each drive runs one at a time, in the order they were admitted, and a newer
 * lease epoch stops every command of an older one. Any thread.
 *
 * <p>Design notes. A drive's library operation is never started while another runs on it, whatever the
 * scheduler believes: after a failover the new scheduler's first command to a drive waits here until the deposed
 * scheduler's command has stopped, and after a call the scheduler gave up on (its deadline passed) the next one
 * waits for the abandoned operation too. When {@link EpochFence} raises the epoch, {@link #fence} marks each
 * running command of an older epoch fenced and runs its cancel action (a transfer's byte stream is failed, so the
 * library aborts it and keeps no partial file; a write whose bytes had all arrived completes all the same); a
 * command that only waited is refused at once. A fenced command is answered as fenced however its operation
 * ended ({@link Turn#fenced}). Mount, unmount and locate have no cancel
 * action (the library interface offers none): they end within the library's own limits. All state is guarded by
 * this object's monitor; starts and refusals run outside it.
 */
final class DriveTurns {

    private static final Logger LOG = LoggerFactory.getLogger(DriveTurns.class);

    /** One admitted command on one drive. */
    static final class Turn {
        final String drive;
        final long epoch;
        final String what;
        private final Consumer<Turn> start;
        private final Runnable cancel;
        private final Consumer<String> refuse;
        private final BooleanSupplier abandoned;
        private volatile String fenced;

        /**
         * @param start     starts the library operation (hands it to the library's loop); its completion must
         *                  call {@link #ended}
         * @param cancel    stops the operation early (fails its byte stream), or does nothing
         * @param refuse    answers the caller with a refusal (a turn fenced before it started)
         * @param abandoned whether the caller has gone (its call cancelled): the turn is then skipped
         */
        Turn(String drive, long epoch, String what, Consumer<Turn> start, Runnable cancel, Consumer<String> refuse,
             BooleanSupplier abandoned) {
            this.drive = drive;
            this.epoch = epoch;
            this.what = what;
            this.start = start;
            this.cancel = cancel;
            this.refuse = refuse;
            this.abandoned = abandoned;
        }

        /**
         * Why the command was stopped (by a newer epoch, or the mover stopping), or null: its answer must then be
         * this refusal.
         */
        String fenced() {
            return fenced;
        }
    }

    private final String mover;
    private final LongSupplier newestEpoch;
    private final Map<String, Turn> running = new HashMap<>();
    private final Map<String, ArrayDeque<Turn>> waiting = new HashMap<>();
    /** Why the mover stops (refusing every new command), or null while it serves. */
    private String stopping;

    DriveTurns(String mover, LongSupplier newestEpoch) {
        this.mover = mover;
        this.newestEpoch = newestEpoch;
    }

    /** Starts {@code t} now if its drive is free, else once the commands before it have ended. */
    void submit(Turn t) {
        String refusal = null;
        synchronized (this) {
            long newest = newestEpoch.getAsLong();
            if (stopping != null) {
                refusal = stopping;
            } else if (t.epoch < newest) { // fenced between its admission and now
                refusal = fencedMessage(t, newest);
            } else {
                Turn before = running.get(t.drive);
                if (before != null) {
                    waiting.computeIfAbsent(t.drive, d -> new ArrayDeque<>()).add(t);
                    LOG.info("Mover {}: {} waits: drive {} is busy {} ({})", mover, t.what, t.drive,
                            before.fenced != null ? "finishing a fenced command" : "with an earlier command",
                            before.what);
                    return;
                }
                running.put(t.drive, t);
            }
        }
        if (refusal != null) {
            t.refuse.accept(refusal);
        } else {
            t.start.accept(t);
        }
    }

    /** {@code t}'s operation has ended (answered): the drive's next waiting command starts. */
    void ended(Turn t) {
        Turn next;
        synchronized (this) {
            if (running.get(t.drive) != t) {
                return;
            }
            running.remove(t.drive);
            notifyAll();
            next = nextWaiting(t.drive);
            if (next != null) {
                running.put(next.drive, next);
            }
        }
        if (next != null) {
            next.start.accept(next);
        }
    }

    private Turn nextWaiting(String drive) {
        ArrayDeque<Turn> q = waiting.get(drive);
        while (q != null && !q.isEmpty()) {
            Turn t = q.poll();
            if (!t.abandoned.getAsBoolean()) {
                return t;
            }
            LOG.info("Mover {}: {} on drive {} dropped: its caller gave up while it waited", mover, t.what, drive);
        }
        waiting.remove(drive);
        return null;
    }

    /**
     * Epoch {@code epoch} has taken the site over: every running command of an older epoch is stopped (answered
     * as fenced when its operation ends), every waiting one refused now. Runs under {@link EpochFence}'s monitor
     * (its rise listener): the turns' {@code cancel} and {@code refuse} actions must not block and must not call
     * the fence.
     */
    void fence(long epoch) {
        stop(t -> t.epoch < epoch, t -> fencedMessage(t, epoch), "epoch " + epoch + " has taken the site over; the "
                + "drive's next command waits until it has stopped");
    }

    /**
     * The mover is stopping: every running command is stopped as a fence would stop it (answered with {@code why}
     * when its operation ends; a transfer's byte stream is failed, so the library aborts it), every waiting one is
     * refused, and nothing new starts. Without this a stopped mover's transfer would keep its drive busy in a
     * library that outlives it (the library process, or a test's shared one) until the stall timeout.
     */
    void stopAll(String why) {
        synchronized (this) {
            stopping = why;
        }
        stop(t -> true, t -> why, why);
    }

    /**
     * Stops the running commands {@code which} selects (not stopped yet) and refuses the waiting ones it selects,
     * each with {@code message}; {@code logged} says why in the log.
     */
    private void stop(Predicate<Turn> which, Function<Turn, String> message, String logged) {
        List<Turn> stop = new ArrayList<>();
        List<Turn> refuse = new ArrayList<>();
        synchronized (this) {
            for (Turn t : running.values()) {
                if (which.test(t) && t.fenced == null) {
                    t.fenced = message.apply(t);
                    stop.add(t);
                }
            }
            for (ArrayDeque<Turn> q : waiting.values()) {
                q.removeIf(t -> which.test(t) && refuse.add(t));
            }
        }
        for (Turn t : stop) {
            LOG.warn("Mover {}: stopping {} on drive {} of lease epoch {}: {}", mover, t.what, t.drive, t.epoch,
                    logged);
            t.cancel.run();
        }
        for (Turn t : refuse) {
            t.refuse.accept(message.apply(t));
        }
    }

    /**
     * Waits until no command runs any more, at most {@code millis}; returns the commands still running then (as
     * "what on drive"), an empty list when all ended.
     */
    synchronized List<String> awaitIdle(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!running.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return running.values().stream().map(t -> t.what + " on drive " + t.drive).toList();
    }

    /** Whether a command runs on {@code drive} now. */
    synchronized boolean busy(String drive) {
        return running.containsKey(drive);
    }

    /**
     * Whether a command runs on {@code drive} that no scheduler waits for any more: its caller has gone (its call
     * cancelled: a deadline passed, the connection broke) or it was fenced. What the drive holds may change when it
     * ends and no answer will tell; a command whose caller still waits will be answered.
     */
    synchronized boolean orphanRunning(String drive) {
        Turn t = running.get(drive);
        return t != null && (t.fenced != null || t.abandoned.getAsBoolean());
    }

    /** How many commands wait for {@code drive}. */
    synchronized int waiting(String drive) {
        ArrayDeque<Turn> q = waiting.get(drive);
        return q == null ? 0 : q.size();
    }

    private String fencedMessage(Turn t, long newest) {
        return "mover " + mover + " stopped " + t.what + " on drive " + t.drive + " of lease epoch " + t.epoch
                + ": epoch " + newest + " has taken the site over (fenced)";
    }
}
