package org.tapeq.scheduler.engine.dispatch;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
 * next safe point; it takes a free drive user work would take only during a contention episode (user work left
 * unserved after a dispatch pass, or found waiting by a slice, less than {@code scheduler.backgroundHoldoff} ago).
 * An idle drive goes to any waiting task except one that itself gave its drive back less than {@code
 * backgroundHoldoff} ago (hysteresis): user work merely taking drives holds nothing back. Share 0 gives every
 * drive back. Each slice started, each one
 * that mounted its cartridge and each one given back to user work is counted ({@link #slices()}, {@link
 * #mounts()}, {@link #yields()}) and a yield is logged.
 */
public final class BackgroundWork {

    private static final Logger LOG = LoggerFactory.getLogger(BackgroundWork.class);

    private final Dispatcher dispatcher;
    private final EventLoop loop;
    private final ShareBudget budget;
    private final long holdoffMillis;
    private final Map<BackgroundTask, Long> yieldedAt = new IdentityHashMap<>();
    private final Set<DriveRunner> sliceDrives = new LinkedHashSet<>();
    private EventLoop.Timer wake;
    private long wakeAt;
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
        this.holdoffMillis = holdoffMillis;
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
     * Runs a waiting task on a free drive that user work would take, if a contention episode runs (user work was
     * left unserved less than {@code backgroundHoldoff} ago), background work is below its {@link #allowance()} and
     * its budget lets it take a drive; false if not. Outside an episode user work gets every free drive first.
     */
    boolean runWithinShare(DriveRunner d) {
        if (waiting.isEmpty()) {
            return false;
        }
        long now = advance();
        return budget.inEpisode(now) && running < allowance() && budget.mayTake() && runOn(d, now, false);
    }

    /**
     * Runs a waiting task on a free drive no user work wants; false if none runs. A task that itself gave its drive
     * back to user work less than {@code backgroundHoldoff} ago is held back (dispatch runs again when that time is
     * up); user work taking drives does not hold back anything, so a trickle of it cannot keep background work off
     * idle drives.
     */
    boolean runIdle(DriveRunner d) {
        if (waiting.isEmpty()) {
            return false;
        }
        return runOn(d, advance(), true);
    }

    /**
     * Called after each dispatch pass: if user work is left unserved - a slice holds a drive that a ready queue
     * would take and no drive is free for it - the budget sees user work waiting (begins or extends an episode).
     */
    void afterDispatch() {
        if (running == 0) {
            return;
        }
        for (DriveRunner d : sliceDrives) {
            if (dispatcher.userWorkWaiting(d)) {
                budget.userWaiting(advance());
                return;
            }
        }
    }

    /** Wakes dispatch when the first held-back task may run again. */
    private void wakeAt(long at, long now) {
        if (wake != null && wakeAt <= at) {
            return;
        }
        if (wake != null) {
            wake.cancel();
        }
        wakeAt = at;
        wake = loop.schedule(Math.max(0, at - now), () -> {
            wake = null;
            dispatcher.requestDispatch();
        });
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
        yieldedAt.remove(task);
        return waiting.remove(task);
    }

    /**
     * Starts the first waiting task this free drive can run (its cartridge here or in no drive) and, if {@code
     * holdBack}, that did not yield less than {@code backgroundHoldoff} ago; false if none. A task whose cartridge
     * is no longer known ends here.
     */
    private boolean runOn(DriveRunner d, long now, boolean holdBack) {
        for (var it = waiting.iterator(); it.hasNext(); ) {
            BackgroundTask task = it.next();
            if (!dispatcher.knownCartridge(task.barcode())) {
                it.remove();
                yieldedAt.remove(task);
                task.dropped("cartridge " + task.barcode() + " is no longer in the catalog");
            }
        }
        if (waiting.isEmpty() || running >= maxDrives || !dispatcher.catalogReachable()) {
            return false;
        }
        long firstDue = Long.MAX_VALUE;
        for (var it = waiting.iterator(); it.hasNext(); ) {
            BackgroundTask task = it.next();
            Long yielded = yieldedAt.get(task);
            if (holdBack && yielded != null && now < yielded + holdoffMillis) {
                firstDue = Math.min(firstDue, yielded + holdoffMillis);
                continue;
            }
            if (dispatcher.usableForBackground(task.barcode(), d)) {
                it.remove();
                yieldedAt.remove(task);
                advance();
                running++;
                slices++;
                mounts += task.barcode().equals(d.mounted()) ? 0 : 1;
                sliceDrives.add(d);
                d.runAdmin(new SliceRun(task, d, budget.inEpisode(now) ? budget.episodes() : -1));
                return true;
            }
        }
        if (firstDue != Long.MAX_VALUE) {
            wakeAt(firstDue, now);
        }
        return false;
    }

    /** One slice of a background task, run through the drive's admin path. */
    private final class SliceRun implements AdminTask, BackgroundTask.Slice {
        private final BackgroundTask task;
        private final DriveRunner drive;
        private final long episode;
        private boolean ended;

        /** {@code episode}: the contention episode the slice started in, -1 if none ran. */
        SliceRun(BackgroundTask task, DriveRunner drive, long episode) {
            this.task = task;
            this.drive = drive;
            this.episode = episode;
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
            // a slice begun before this episode gives its drive back at once: a short campaign gets every drive
            if (!own && episode == budget.episodes() && running <= allowance() && budget.mayKeep()) {
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
            yieldedAt.put(task, loop.now());
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
            sliceDrives.remove(drive);
            dispatcher.requestDispatch();
        }
    }
}
