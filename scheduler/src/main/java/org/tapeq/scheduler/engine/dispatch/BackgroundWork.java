package org.tapeq.scheduler.engine.dispatch;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.engine.drive.AdminTask;
import org.tapeq.scheduler.engine.drive.BackgroundTask;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The background tasks waiting for a drive and the count of drives running one, within their own cap
 * ({@code maxBackgroundDrives}). Owned by the {@link Dispatcher}, on the loop: the dispatcher offers it a free
 * drive that has nothing else to do; a task runs one slice there through the drive's admin path, and a slice
 * that yields puts its task back at the head of the list, so the oldest task resumes first.
 *
 * <p>While user work waits, background work keeps a drive only within two limits: at most {@link #allowance()}
 * drives ({@code floor(drives in service * share / (1 + share))} for {@code scheduler.backgroundShare}), and only
 * while its {@link ShareBudget} (drive time taken from user work over the current contention episode, at most
 * {@code share} times the drive time user work had) allows it. A slice over either limit gives its drive back at its
 * next safe point. After user work waited, an idle drive goes to background work only once no user work waited for
 * {@code scheduler.backgroundHoldoff} (hysteresis). Share 0 gives every drive back. Each slice started, each one
 * that mounted its cartridge and each one given back to user work is counted ({@link #slices()}, {@link
 * #mounts()}, {@link #yields()}) and a yield is logged.
 */
public final class BackgroundWork {

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundWork.class);

    private final Dispatcher dispatcher;
    private final EventLoop loop;
    private final ShareBudget budget;
    private EventLoop.Timer wake;
    private long slices;
    private long mounts;
    private long yields;
    private final int maxDrives;
    private final double share;
    private final List<BackgroundTask> waiting = new ArrayList<>();
    private int running;

    BackgroundWork(Dispatcher dispatcher, EventLoop loop, int maxDrives, double share, long holdoffMillis) {
        this.dispatcher = dispatcher;
        this.loop = loop;
        this.budget = new ShareBudget(share, holdoffMillis);
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
     * {@link #allowance()} and its budget lets it take a drive; false if not. {@code lastFree}: no other free
     * drive is left for user work, which then counts as waiting.
     */
    boolean runWithinShare(DriveRunner d, boolean lastFree) {
        if (waiting.isEmpty()) {
            return false;
        }
        long now = advance();
        if (lastFree) {
            budget.userWaiting(now);
        }
        return running < allowance() && budget.mayTake() && runOn(d);
    }

    /**
     * Runs a waiting task on a free drive no user work wants, unless user work waited for a drive less than
     * {@code backgroundHoldoff} ago (then dispatch runs again when that time is up); false if none runs.
     */
    boolean runIdle(DriveRunner d) {
        if (waiting.isEmpty()) {
            return false;
        }
        long now = advance();
        if (budget.inEpisode(now)) {
            if (wake == null) {
                wake = loop.schedule(budget.episodeEnd() - now, () -> {
                    wake = null;
                    dispatcher.requestDispatch();
                });
            }
            return false;
        }
        return runOn(d);
    }

    /** Adds the drive time since the last call to the budget (drive counts change only after it); returns now. */
    long advance() {
        long now = loop.now();
        int busy = 0;
        for (DriveRunner d : dispatcher.drives()) {
            busy += d.isDown() || d.isFree() ? 0 : 1; // user work, admin tasks or background slices
        }
        budget.advance(now, running, Math.max(0, busy - running));
        return now;
    }

    /** Slices started since the start. */
    public long slices() {
        return slices;
    }

    /** Slices that had to mount their cartridge (it was not in the drive). */
    public long mounts() {
        return mounts;
    }

    /** Slices that gave their drive back because user work waited for it. */
    public long yields() {
        return yields;
    }

    /** Drive-seconds background work held during the current or last contention episode. */
    public long episodeBackgroundSeconds() {
        return budget.backgroundMillis() / 1000;
    }

    /** Drive-seconds user work held during the current or last contention episode. */
    public long episodeUserSeconds() {
        return budget.userMillis() / 1000;
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
                advance();
                running++;
                slices++;
                mounts += task.barcode().equals(d.mounted()) ? 0 : 1;
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
            if (dispatcher.backgroundMustStop(task.barcode(), drive)) {
                return true;
            }
            boolean own = dispatcher.cartridgeWanted(drive);
            if (!own && !dispatcher.userWorkWaiting(drive)) {
                return false;
            }
            long now = advance();
            budget.userWaiting(now);
            if (!own && running <= allowance() && budget.mayKeep()) {
                return false;
            }
            yields++;
            LOG.info("Background work on {}: yielding drive {} to waiting user work ({}; this episode background {}"
                    + " drive-s, user {} drive-s, share {}, {} of {} background drives)", task.barcode(), drive.id(),
                    own ? "reads for this cartridge" : "no drive free", episodeBackgroundSeconds(),
                    episodeUserSeconds(), share, running, allowance());
            return true;
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
            advance();
            running--;
            dispatcher.requestDispatch();
        }
    }
}
