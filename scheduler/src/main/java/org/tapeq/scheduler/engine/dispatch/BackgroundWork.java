package org.tapeq.scheduler.engine.dispatch;

import java.util.ArrayList;
import java.util.List;

import org.tapeq.scheduler.engine.drive.AdminTask;
import org.tapeq.scheduler.engine.drive.BackgroundTask;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.model.TapeFault;

/**
 * The background tasks waiting for a drive and the count of drives running one, within their own cap
 * ({@code maxBackgroundDrives}). Owned by the {@link Dispatcher}, on the loop: the dispatcher offers it a free
 * drive that has nothing else to do; a task runs one slice there through the drive's admin path, and a slice
 * that yields puts its task back at the head of the list, so the oldest task resumes first.
 *
 * <p>While user work waits, background work keeps at most {@link #allowance()} drives: {@code floor(drives in
 * service * share / (1 + share))} for {@code scheduler.backgroundShare}, so user work that needs every drive runs
 * on at least {@code 1 / (1 + share)} of them and takes at most {@code 1 + share} times its time alone, plus one
 * cartridge's time (work comes in whole cartridges) and the time a drive over the allowance takes to be given
 * back (the slice in progress, unloading its cartridge). Share 0 gives every drive back.
 */
public final class BackgroundWork {

    private final Dispatcher dispatcher;
    private final int maxDrives;
    private final double share;
    private final List<BackgroundTask> waiting = new ArrayList<>();
    private int running;

    BackgroundWork(Dispatcher dispatcher, int maxDrives, double share) {
        this.dispatcher = dispatcher;
        this.maxDrives = maxDrives;
        this.share = share;
    }

    /** Drives background work may keep while user work waits (see the class comment). */
    public int allowance() {
        return Math.min(maxDrives, (int) Math.floor(dispatcher.drivesInService() * share / (1 + share) + 1e-9));
    }

    /** The configured share ({@code scheduler.backgroundShare}). */
    public double share() {
        return share;
    }

    /**
     * Runs a waiting task on a free drive that user work would take, if background work is below its
     * {@link #allowance()}; false if not.
     */
    boolean runWithinShare(DriveRunner d) {
        return running < allowance() && runOn(d);
    }

    /** Queues a background task; it runs when a drive is free with nothing else to do. */
    public void submit(BackgroundTask task) {
        waiting.add(task);
        dispatcher.requestDispatch();
    }

    /** Background tasks waiting for a drive. */
    public int waiting() {
        return waiting.size();
    }

    /** Drives running a background slice now. */
    public int running() {
        return running;
    }

    /** Drives background work may use at once (0: none runs). */
    public int maxDrives() {
        return maxDrives;
    }

    /** Takes a waiting task off the queue; false if it is not waiting (running a slice, or ended). */
    public boolean remove(BackgroundTask task) {
        return waiting.remove(task);
    }

    /**
     * Starts the first waiting task this free drive can run (its cartridge here or in no drive); false if none.
     * A task whose cartridge is no longer known ends here.
     */
    boolean runOn(DriveRunner d) {
        for (var it = waiting.iterator(); it.hasNext(); ) {
            BackgroundTask task = it.next();
            if (!dispatcher.knownCartridge(task.barcode())) {
                it.remove();
                task.dropped("cartridge " + task.barcode() + " is no longer in the catalog");
            }
        }
        if (waiting.isEmpty() || running >= maxDrives || !dispatcher.catalogReachable()) {
            return false;
        }
        for (var it = waiting.iterator(); it.hasNext(); ) {
            BackgroundTask task = it.next();
            if (dispatcher.usableForBackground(task.barcode(), d)) {
                it.remove();
                running++;
                d.runAdmin(new SliceRun(task, d));
                return true;
            }
        }
        return false;
    }

    /** One slice of a background task, run through the drive's admin path. */
    private final class SliceRun implements AdminTask, BackgroundTask.Slice {
        private final BackgroundTask task;
        private final DriveRunner drive;
        private boolean ended;

        SliceRun(BackgroundTask task, DriveRunner drive) {
            this.task = task;
            this.drive = drive;
        }

        @Override
        public String barcode() {
            return task.barcode();
        }

        @Override
        public void run(DriveRunner d) {
            task.runSlice(d, this);
        }

        @Override
        public void failed(TapeFault fault) {
            end();
            task.failed(fault);
        }

        @Override
        public boolean shouldYield() {
            return dispatcher.backgroundMustStop(task.barcode(), drive) || dispatcher.cartridgeWanted(drive)
                    || (running > allowance() && dispatcher.userWorkWaiting(drive));
        }

        @Override
        public void yielded() {
            end();
            waiting.add(0, task);
        }

        @Override
        public void finished() {
            end();
        }

        private void end() {
            if (ended) {
                throw new IllegalStateException("background slice on " + task.barcode() + " ended twice");
            }
            ended = true;
            running--;
            dispatcher.requestDispatch();
        }
    }
}
