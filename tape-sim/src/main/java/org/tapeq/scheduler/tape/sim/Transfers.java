package org.tapeq.scheduler.tape.sim;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.time.EventLoop;

/**
 * Joins the modelled duration of an operation with its byte copy. A write's copy overlaps the model (the bytes go
 * into the drive's buffer while it writes; the tape mark comes last): without an executor it runs at once on the
 * loop thread and the operation completes at its modelled end; with one, it runs there and the operation completes
 * on the loop at max(modelled end, copy end). A read's copy runs after the model ({@link #thenCopy}): whatever a
 * sink makes of the bytes as they arrive (a stage file answered as soon as it is whole) is never earlier than the
 * modelled drive could have read it.
 */
final class Transfers {

    /** A byte copy; throws the fault the operation is to report. */
    @FunctionalInterface
    interface Copy<R> {
        R run() throws TapeFault;
    }

    /** The end of an operation, on the loop thread: the copy's result, or its fault. */
    @FunctionalInterface
    interface Finish<R> {
        void accept(R result, TapeFault fault);
    }

    private final EventLoop loop;
    private final Executor executor;

    /** @param executor where copies run, or null to run them inline on the loop thread */
    Transfers(EventLoop loop, Executor executor) {
        this.loop = loop;
        this.executor = executor;
    }

    /** Calls {@code finish} on the loop once {@code millis} have passed and {@code copy} (may be null) is done. */
    <R> void afterModelled(long millis, Copy<R> copy, Finish<R> finish) {
        if (copy == null) {
            loop.schedule(millis, () -> finish.accept(null, null));
            return;
        }
        if (executor == null) {
            Outcome<R> outcome = Outcome.of(copy);
            loop.schedule(millis, () -> finish.accept(outcome.result(), outcome.fault()));
            return;
        }
        Join<R> join = new Join<>(finish);
        loop.schedule(millis, join::modelledEnd);
        copyOffLoop(copy, join::copied);
    }

    /**
     * Runs {@code copy} (may be null: nothing to copy) once {@code millis} have passed - inline on the loop thread
     * without an executor, the operation then completing in the same task; else on the executor - and then calls
     * {@code finish} on the loop.
     */
    <R> void thenCopy(long millis, Copy<R> copy, Finish<R> finish) {
        if (copy == null) {
            afterModelled(millis, null, finish);
            return;
        }
        loop.schedule(millis, () -> {
            if (executor == null) {
                Outcome<R> outcome = Outcome.of(copy);
                finish.accept(outcome.result(), outcome.fault());
            } else {
                copyOffLoop(copy, outcome -> finish.accept(outcome.result(), outcome.fault()));
            }
        });
    }

    /** Runs {@code copy} on the executor and hands its outcome to {@code then} on the loop (a refusal: a fault). */
    private <R> void copyOffLoop(Copy<R> copy, Consumer<Outcome<R>> then) {
        try {
            executor.execute(() -> {
                Outcome<R> outcome = Outcome.of(copy);
                loop.execute(() -> then.accept(outcome));
            });
        } catch (RejectedExecutionException e) {
            then.accept(new Outcome<>(null, new TapeFault(FaultKind.DRIVE,
                    "the copy executor rejected a simulated transfer: " + e, e)));
        }
    }

    private record Outcome<R>(R result, TapeFault fault) {
        static <R> Outcome<R> of(Copy<R> copy) {
            try {
                return new Outcome<>(copy.run(), null);
            } catch (TapeFault e) {
                return new Outcome<>(null, e);
            } catch (RuntimeException e) {
                return new Outcome<>(null, new TapeFault(FaultKind.DRIVE, "simulated data transfer failed: " + e, e));
            }
        }
    }

    /** Waits, on the loop thread, for both the modelled end and the copy. */
    private static final class Join<R> {
        private final Finish<R> finish;
        private boolean ended;
        private Outcome<R> outcome;

        Join(Finish<R> finish) {
            this.finish = finish;
        }

        void modelledEnd() {
            ended = true;
            complete();
        }

        void copied(Outcome<R> copyOutcome) {
            outcome = copyOutcome;
            complete();
        }

        private void complete() {
            if (ended && outcome != null) {
                finish.accept(outcome.result(), outcome.fault());
            }
        }
    }
}
