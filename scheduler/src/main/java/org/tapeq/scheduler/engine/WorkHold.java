package org.tapeq.scheduler.engine;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.tape.TapeLibrary;

/**
 * The engine's brake for a daemon that may have lost its site lease: while held, no command reaches the tape
 * library (no mount, unmount, locate, read or write starts) and no outcome reaches the request listener (no
 * request is acknowledged); both wait, in order, until {@link #resume} passes them on.
 *
 * <p>Design notes. It sits between the engine and the two things that act outside the process: the
 * {@link TapeLibrary} (robot and drives) and the {@link RequestListener} (answers to the pools). The engine
 * itself goes on deciding; its commands simply wait here. A command already given to the library when the hold
 * starts runs to its end (a tape operation cannot be cut off safely); its catalog commit is fenced anyway. A
 * daemon that turns out to be deposed stops without resuming: what waited here is never done, and the requests
 * stay in their directories for the next holder. Owned by the event loop: every method runs on it.
 */
final class WorkHold {

    private static final Logger LOG = LoggerFactory.getLogger(WorkHold.class);

    private final Queue<Held> waiting = new ArrayDeque<>();
    /** Why work is held, or null. */
    private String reason;
    /** Library commands given to the library whose completion has not come back. */
    private int running;

    /** Holds all library commands and outcomes from now on (a second call only changes the reason). */
    void hold(String why) {
        if (reason == null) {
            LOG.warn("Holding all tape work and answers: {}", why);
        }
        reason = why;
    }

    /** Passes on, in order, what waited, and lets everything through again. */
    void resume() {
        if (reason == null) {
            return;
        }
        LOG.info("Resuming tape work and answers ({} waiting)", waiting.size());
        reason = null;
        while (reason == null && !waiting.isEmpty()) {
            waiting.poll().run(); // a command passed on may not hold again, but stop if it did
        }
    }

    /**
     * One command or outcome that waits: what it is (for the log) and, for a library command, the completion
     * the engine waits on. A command that throws when passed on is logged and its completion failed (a drive
     * fault: the engine frees the drive and tries again), so the engine does not wait for it forever and the
     * rest that waited still runs.
     */
    private record Held(String what, Runnable action, Given<?> done) {

        void run() {
            try {
                action.run();
            } catch (RuntimeException e) {
                LOG.error("Held {} failed when passed on", what, e);
                if (done != null) {
                    done.failed(new TapeFault(FaultKind.DRIVE, what + " failed when passed on after a hold: " + e, e));
                }
            }
        }
    }

    /**
     * The completion of one library command: answered at most once (a command may have answered before it threw),
     * and counted in {@link #running} from when it is given to the library until it is answered.
     */
    private final class Given<T> implements Completion<T> {
        private final Completion<T> done;
        private boolean answered;
        private boolean counted;

        Given(Completion<T> done) {
            this.done = done;
        }

        /** Gives the command to the library. */
        void give(Consumer<Completion<T>> command) {
            counted = true;
            running++;
            try {
                command.accept(this);
            } catch (RuntimeException e) {
                ended();
                throw e;
            }
        }

        private void ended() {
            if (counted) {
                counted = false;
                running--;
            }
        }

        @Override
        public void succeeded(T value) {
            if (!answered) {
                answered = true;
                ended();
                done.succeeded(value);
            }
        }

        @Override
        public void failed(TapeFault fault) {
            if (!answered) {
                answered = true;
                ended();
                done.failed(fault);
            }
        }
    }

    /** Why work is held now, or null. */
    String reason() {
        return reason;
    }

    /** Commands and outcomes waiting for {@link #resume}. */
    int waiting() {
        return waiting.size();
    }

    /** Library commands given and not yet answered; while held, those given before the hold began. */
    int running() {
        return running;
    }

    /** What a status shows of the hold: null while work is not held. */
    SchedulerStatus.Hold status() {
        return reason == null ? null : new SchedulerStatus.Hold(reason, waiting.size(), running);
    }

    private void pass(String what, Runnable action) {
        if (reason == null) {
            action.run();
        } else {
            waiting.add(new Held(what, action, null));
        }
    }

    /** A library command: run now, or wait with its completion (failed if it throws when passed on). */
    private <T> void pass(String what, Completion<T> done, Consumer<Completion<T>> command) {
        Given<T> given = new Given<>(done);
        if (reason == null) {
            given.give(command);
        } else {
            waiting.add(new Held(what, () -> given.give(command), given));
        }
    }

    /** The listener, behind this hold. */
    RequestListener listener(RequestListener listener) {
        return (request, outcome) -> pass("answer to request " + request.id(),
                () -> listener.completed(request, outcome));
    }

    /**
     * The library, behind this hold: its commands wait while held; its inventory, static facts and drive alerts
     * are passed on at once ({@link ForwardingLibrary}): they move nothing.
     */
    TapeLibrary library(TapeLibrary library) {
        return new ForwardingLibrary(library) {
            @Override
            public void mount(String drive, String barcode, Completion<Void> done) {
                pass("mount of " + barcode + " in " + drive, done, d -> library.mount(drive, barcode, d));
            }

            @Override
            public void unmount(String drive, Completion<Void> done) {
                pass("unmount of " + drive, done, d -> library.unmount(drive, d));
            }

            @Override
            public void locate(String drive, long block, Completion<Void> done) {
                pass("locate to block " + block + " in " + drive, done, d -> library.locate(drive, block, d));
            }

            @Override
            public void locateFile(String drive, int fileNumber, Completion<Long> done) {
                pass("locate to file " + fileNumber + " in " + drive, done,
                        d -> library.locateFile(drive, fileNumber, d));
            }

            @Override
            public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
                pass("read in " + drive, done, d -> library.read(drive, skipBytes, length, sink, d));
            }

            @Override
            public void append(String drive, TapeFileSource source, Completion<WrittenFile> done) {
                pass("append in " + drive, done, d -> library.append(drive, source, d));
            }

            @Override
            public void appendBuffered(String drive, TapeFileSource source, Completion<WrittenFile> done) {
                pass("append in " + drive, done, d -> library.appendBuffered(drive, source, d));
            }

            @Override
            public void flush(String drive, FlushCheck expected, Completion<Void> done) {
                pass("flush of " + drive, done, d -> library.flush(drive, expected, d));
            }

            @Override
            public void writeLabel(String drive, TapeFileSource label, Completion<WrittenFile> done) {
                pass("label write in " + drive, done, d -> library.writeLabel(drive, label, d));
            }

            @Override
            public void recommendAccessOrder(String drive, long[] starts, long[] ends, Completion<int[]> done) {
                pass("recommended access order in " + drive, done,
                        d -> library.recommendAccessOrder(drive, starts, ends, d));
            }
        };
    }
}
