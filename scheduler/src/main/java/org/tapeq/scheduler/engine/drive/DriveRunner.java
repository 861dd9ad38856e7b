package org.tapeq.scheduler.engine.drive;

import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.engine.fault.FaultReactions;
import org.tapeq.scheduler.engine.queue.WorkQueue;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.time.EventLoop;

/**
 * One drive's work, as a state machine driven by tape completions on the event loop.
 *
 * <p>Design notes. A drive is empty, mounting, busy with one operation, idle with a cartridge, dwelling
 * (keeping an emptied cartridge a little longer while its requests still arrive), waiting for stage buffer
 * space, unmounting, or down. Once it holds a cartridge, {@link #work()} repeats: check the label once per
 * mount ({@link LabelCheck}); write the aggregates bound to the cartridge or, if it is an appendable cartridge
 * of a family with waiting aggregates, those ({@link WriteStep}; with buffered tape marks the drive flushes
 * before it reads, idles or unloads, so no written aggregate waits behind a read: {@link HeldWrites}); then
 * read the next unit of the planned pass once the {@code StageSpace} grants room for its files
 * ({@link ReadPass}). When a pass ends the dispatcher
 * decides whether the drive keeps the cartridge.
 *
 * <p>A refused unit goes back to the head of the pass, its reads stay queued, and the drive waits with its
 * cartridge, still counted as in use and out of dispatch's reach, with no timer running. It runs
 * {@link #work()} again ({@link #retryIfWaiting()}, coalesced) when space is freed, when one of its queue's
 * reads is cancelled, or when a write for the cartridge arrives; taken down, it unloads and the reads go to
 * another drive; an admin task on its cartridge may take it.
 *
 * <p>Every fault is answered as {@link FaultReactions} says; this class applies the drive's part (error
 * count, unload, out of service).
 */
public final class DriveRunner implements WorkQueue.Holder {

    private static final Logger LOG = LoggerFactory.getLogger(DriveRunner.class);

    /** Bytes read at block 0 for the label. */
    public static final int LABEL_BYTES = 64 * 1024;
    /** Bytes read at the head of a tape file for its manifest. */
    public static final long MANIFEST_BYTES = 64L * 1024 * 1024;

    /** What a drive is doing. */
    public enum State { EMPTY, MOUNTING, BUSY, IDLE, DWELL, WAITING_SPACE, UNMOUNTING, DOWN }

    final DriveContext context;
    final DriveLog log;
    private final String id;
    private final ReadPass reads;
    private final WriteStep writes;
    private final LabelCheck label;
    private State state = State.EMPTY;
    private String mounted;
    private WorkQueue queue;
    private boolean down;
    private String downReason;
    /** Why the drive cannot be reached now (its data mover lost), or null: neither persisted nor a fault. */
    private String unreachable;
    /** The queue reserved for the mount after the unload in progress, or null. */
    /** A failed unload waiting to be tried again (not cancelled by {@link #cancelTimer}), and what gives it up. */
    private EventLoop.Timer unloadRetry;
    private Runnable unloadGiveUp;
    private int errors;
    private String lastError;
    /** Why the drive asks for a routine cleaning (it stays in service), until an operator's drive up; or null. */
    private String cleaningDue;
    private String activity = "empty";
    private long since;
    /** Head position in blocks, or -1 when unknown. */
    private long position;
    private EventLoop.Timer timer;
    private boolean retryQueued;

    public DriveRunner(DriveContext context, String id) {
        this.context = context;
        this.id = id;
        this.since = context.loop().now();
        this.reads = new ReadPass(this);
        this.writes = new WriteStep(this);
        this.label = new LabelCheck(this);
        this.log = new DriveLog(this, context.observer());
    }

    // ------------------------------------------------------------------ state queries

    @Override
    public String id() { return id; }
    public State state() { return state; }
    /** The cartridge in the drive, or null. */
    public String mounted() { return mounted; }
    /** The cartridge queue it serves, or null. */
    public WorkQueue queue() { return queue; }
    /** Out of service: taken down (by an administrator or its faults) or unreachable. */
    public boolean isDown() { return down || unreachable != null; }
    /** Why it is out of service: the unreachable reason, after the administrator's or fault's if both. */
    public String downReason() {
        return unreachable == null ? downReason : down ? downReason + "; " + unreachable : unreachable;
    }
    /** Why the drive cannot be reached now ({@link #markUnreachable}), or null. */
    public String unreachable() { return unreachable; }
    /** Consecutive errors. */
    public int errors() { return errors; }
    public String lastError() { return lastError; }
    /** Why the drive asks for a routine cleaning, or null. */
    public String cleaningDue() { return cleaningDue; }
    @Override
    public String activity() { return activity; }
    /** Loop time of the last state change. */
    public long since() { return since; }

    public boolean isFree() { return !isDown() && (state == State.EMPTY || state == State.IDLE); }

    /** Whether the cartridge in this drive has work this drive can do now. */
    public boolean hasWork(long now) {
        return mounted != null && queue != null && state != State.DOWN
                && (writes.available() != null || reads.anyReadyHere(now));
    }

    /** Whether reads of this cartridge are ready but must be retried on another drive. */
    public boolean holdsWorkForOthers(long now) {
        return mounted != null && queue != null && reads.anyForOthers(now);
    }

    void set(State s, String what) {
        if (s == State.EMPTY || s == State.IDLE || s == State.DOWN) {
            context.unaccount(this); // a free or broken drive is nobody's
        }
        state = s;
        activity = what;
        since = context.loop().now();
    }

    long position() { return position; }

    void position(long block) { position = block; }

    ReadPass reads() { return reads; }

    WriteStep writes() { return writes; }

    /** A tape operation succeeded: consecutive errors start again from zero. */
    void succeeded() { errors = 0; }

    // ------------------------------------------------------------------ start-up and admin state

    /** The drive holds this cartridge at start. */
    public void adoptLoaded(String barcode) {
        adopt(barcode, "holding " + barcode + " found at start");
    }

    private void adopt(String barcode, String activity) {
        mounted = barcode;
        WorkQueue q = context.queues().cartridgeQueue(barcode, "");
        q.claim(this);
        queue = q;
        label.forget();
        position = -1;
        driveReports(barcode, q);
        set(isDown() ? State.DOWN : State.IDLE, activity);
    }

    /** What the drive reported about the cartridge it now holds: its capacity, its end-of-wrap positions. */
    private void driveReports(String barcode, WorkQueue q) {
        context.library().capacity(id).ifPresent(cap -> context.queues().capacityRead(barcode, cap));
        if (q.media() != null) {
            context.library().wrapEnds(id).ifPresent(ends -> context.wrapEndsReported(barcode, q.media(), ends));
        }
    }

    /**
     * Takes the drive out of service (after its current operation); {@code persist}: in the catalog too;
     * {@code fault}: because of errors (logged at ERROR), not by an administrator or as recorded (INFO).
     */
    public void markDown(String reason, boolean persist, boolean fault) {
        down = true;
        downReason = reason;
        context.unaccount(this);
        cancelTimer();
        if ((state == State.IDLE || state == State.DWELL || state == State.WAITING_SPACE) && mounted != null) {
            unmount(() -> { }, false); // a drive out of service gives its cartridge back
        } else if (state != State.BUSY && state != State.MOUNTING && state != State.UNMOUNTING) {
            set(State.DOWN, "down: " + reason);
        }
        if (persist) {
            context.saveDrive(new DriveRecord(id, false, reason, errors, context.loop().now()));
        }
        log.down(reason, fault);
    }

    /**
     * The drive cannot be reached (its data mover is lost): out of service with {@code reason} until
     * {@link #markReachable}, not in the catalog and not counted as an error. A cartridge in it stays there and
     * stays this drive's: the robot cannot take it out before the drive ejects it, so no other drive mounts it.
     */
    public void markUnreachable(String reason) {
        boolean first = unreachable == null;
        unreachable = reason;
        writes.moverLost(reason); // held tape files: not flushed by the mover's next session
        if (!first) {
            return;
        }
        context.unaccount(this);
        cancelTimer();
        if (unloadRetry != null) { // a failed unload waits to be tried again: it cannot be now, give it up
            unloadRetry.cancel();
            unloadRetry = null;
            unloadGiveUp.run();
        } else if (state != State.BUSY && state != State.MOUNTING && state != State.UNMOUNTING) {
            set(State.DOWN, unreachableActivity());
        }
        if (mounted != null && queue != null) {
            // its bound writes go back to the family; its reads wait for the drive
            context.queues().stuck(mounted, queue, mounted + " is in drive " + id + ": " + reason);
        }
        log.down(reason, false);
    }

    /** Reachable again: back in the state it was in (an administrator's drive down stays); the label is checked again. */
    public void markReachable() {
        if (unreachable == null) {
            return;
        }
        LOG.info("Drive {} reachable again (was: {})", id, unreachable);
        unreachable = null;
        label.forget();
        position = -1;
        if (mounted != null && queue != null) {
            queue.blocked(null);
        }
        if (state == State.DOWN) {
            if (down && mounted != null) {
                unmount(() -> { }, false); // taken down meanwhile: the cartridge goes back now it can
            } else if (!down) {
                set(mounted == null ? State.EMPTY : State.IDLE, mounted == null ? "empty" : "holding " + mounted);
            }
        }
        context.requestDispatch();
    }

    /**
     * Reachable again, its mover reporting {@code holding} in it (null: none). Where that differs from what this
     * drive thought, and no operation of its own is still to complete, the mover's view is taken: the cartridge
     * thought here is given up (its queue free for any drive), the one found is adopted (label unchecked, position
     * unknown). Then as {@link #markReachable}.
     */
    public void markReturned(String holding) {
        boolean ours = state == State.BUSY || state == State.MOUNTING || state == State.UNMOUNTING;
        if (unreachable != null && !java.util.Objects.equals(mounted, holding)) {
            String seen = holding == null ? "no cartridge" : holding;
            String thought = mounted == null ? "none" : mounted;
            if (ours) {
                LOG.warn("Drive {}: its mover reports {} in it, this scheduler thought {}; its operation in "
                        + "progress will tell", id, seen, thought);
            } else {
                LOG.warn("Drive {}: its mover reports {} in it, this scheduler thought {}: taking the mover's view "
                        + "(an operation in flight when the mover was lost did happen)", id, seen, thought);
                if (mounted != null) {
                    WorkQueue q = queue;
                    writes.releasePool();
                    if (q != null) {
                        q.blocked(null);
                    }
                    cartridgeGone(q, false);
                }
                if (holding != null) {
                    adopt(holding, "holding " + holding + " as its mover reports");
                } else {
                    set(State.DOWN, unreachableActivity());
                }
            }
        }
        markReachable();
    }

    /**
     * The cartridge has left this drive (unloaded here, or gone as its returning mover reports): it and its read
     * plan are forgotten and its queue {@code q} (may be null) is free for any drive; {@code unloadedHere} also
     * tells the queue that this drive unloaded it (the queue's remount guard).
     */
    private void cartridgeGone(WorkQueue q, boolean unloadedHere) {
        mounted = null;
        label.forget();
        reads.forgetPlan();
        if (q != null) {
            q.release(this);
            if (unloadedHere) {
                q.unmounted(context.loop().now());
            }
            q.refresh(context.loop().now());
            context.queues().index().update(q);
        }
        if (queue == q) {
            queue = null;
        }
    }

    private String unreachableActivity() {
        return mounted == null ? "unavailable: " + unreachable : "holding " + mounted + ", unavailable: " + unreachable;
    }

    /** The library reports a request for routine cleaning: the drive stays in service; status and metrics show it. */
    public void cleaningDue(String reason) {
        cleaningDue = reason;
    }

    /** Back into service (after a cleaning too: a routine cleaning request is cleared). */
    public void markUp() {
        cleaningDue = null;
        down = false;
        downReason = null;
        errors = 0;
        context.saveDrive(new DriveRecord(id, true, null, 0, context.loop().now()));
        if (state == State.DOWN) {
            set(mounted == null ? State.EMPTY : State.IDLE, mounted == null ? "empty" : "holding " + mounted);
        }
        context.requestDispatch();
    }

    /**
     * An administrator's unload: a drive in service holding a cartridge it has nothing to do with (idle, or
     * dwelling for more requests) gives it back now instead of after the idle time. Not a scheduling decision,
     * so no remount guard follows. Returns whether the unload started.
     */
    public boolean unloadIfIdle() {
        if (down || mounted == null || (state != State.IDLE && state != State.DWELL)) {
            return false;
        }
        LOG.info("Drive {}: unloading {} on request", id, mounted);
        context.unaccount(this); // a dwelling drive counted for its group
        unmount(() -> { }, false);
        return true;
    }

    // ------------------------------------------------------------------ assignment

    /** Dispatch gave this drive a cartridge queue (and, for family writes, the family). */
    public void serve(WorkQueue q, String pool) {
        cancelTimer();
        writes.releasePool();
        if (q.barcode().equals(mounted)) {
            writes.claimPool(pool);
            attach(q);
            work();
        } else if (mounted != null) {
            // The old queue is re-filed by the unmount; the new one is reserved so no other drive takes it.
            String group = context.accountedGroup(this);
            boolean write = context.accountedWrite(this);
            reserve(q);
            Runnable free = () -> {
                q.release(this);
                context.queues().index().update(q);
            };
            unmount(() -> {
                if (isDown()) {
                    free.run();
                    return;
                }
                context.account(this, group, write);
                writes.claimPool(pool);
                mount(q);
            }, fault -> free.run(), true); // not unloaded: the reserved queue goes back to dispatch
        } else {
            writes.claimPool(pool);
            mount(q);
        }
    }

    /** Dispatch lets the drive go on with its own cartridge. */
    public void continueWork() {
        cancelTimer();
        context.account(this, queue.group(), writes.available() != null);
        work();
    }

    /** A request for the cartridge in this drive arrived. */
    @Override
    public void workArrived() {
        if (state == State.DWELL) {
            cancelTimer();
            set(State.IDLE, "holding " + mounted);
            context.requestDispatch();
        } else if (state == State.IDLE) {
            context.requestDispatch();
        } else if (state == State.WAITING_SPACE && writes.available() != null) {
            retryIfWaiting(); // a write needs no stage buffer space
        }
    }

    /** A drive waiting for stage buffer space tries its next unit again (once for a burst of calls). */
    @Override
    public void retryIfWaiting() {
        if (state != State.WAITING_SPACE || retryQueued) {
            return;
        }
        retryQueued = true;
        context.loop().execute(() -> {
            retryQueued = false;
            if (state == State.WAITING_SPACE) {
                long waitingSince = since;
                work();
                if (state == State.WAITING_SPACE) {
                    since = waitingSince;
                }
            }
        });
    }

    /** Nothing for this drive now: an idle cartridge is unloaded after the idle time. */
    public void idle() {
        if (state == State.IDLE && mounted != null && timer == null) {
            long idleMillis = context.settings().idleUnmountMillis();
            timer = context.loop().schedule(idleMillis, () -> {
                timer = null;
                if (state == State.IDLE && mounted != null && !isDown()) {
                    LOG.info("Drive {}: unloading {} after {} s idle", id, mounted, idleMillis / 1000);
                    unmount(context::requestDispatch, true);
                }
            });
        }
    }

    void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void attach(WorkQueue q) {
        if (queue != null && queue != q) {
            queue.release(this);
        }
        queue = q;
        if (q != null) {
            q.claim(this);
            context.queues().index().remove(q);
        }
        reads.forgetPlan();
    }

    /** Claims a queue before its cartridge is mounted here, so no other drive takes it meanwhile. */
    private void reserve(WorkQueue q) {
        q.claim(this);
        context.queues().index().remove(q);
    }

    // ------------------------------------------------------------------ mount and unmount

    private void mount(WorkQueue q) {
        load(q, "mounting " + q.barcode(), true, this::work, fault -> {
            context.fault(fault.kind(), id, q.barcode(), "mount failed: " + fault.getMessage());
            LOG.warn("Drive {}: mount of {} failed: {}", id, q.barcode(), fault.toString());
            FaultReactions.Reaction r = FaultReactions.of(FaultReactions.Operation.MOUNT, fault.kind());
            q.avoid(id);
            writes.releasePool();
            set(State.EMPTY, "empty");
            if (r.robotError()) {
                context.robotFailed(fault);
            }
            if (r.driveError()) {
                driveError(fault);
            }
            if (r.then() == FaultReactions.Then.REFILE_AFTER_BACKOFF) {
                q.retryNotBefore(context.loop().now() + context.settings().retryBackoffMillis());
            } else {
                reads.failAll(q, fault, FaultReactions.Operation.MOUNT);
            }
            context.queues().index().update(q);
            context.requestDispatch();
        });
    }

    /**
     * Mounts the queue's cartridge, reserving the queue meanwhile; then {@code loaded} runs, or on a fault the
     * queue is released and {@code failed} runs. Only a {@code scheduled} mount clears the robot's errors.
     */
    void load(WorkQueue q, String what, boolean scheduled, Runnable loaded, Consumer<TapeFault> failed) {
        reserve(q);
        queue = q;
        reads.newMount();
        String barcode = q.barcode();
        set(State.MOUNTING, what);
        log.mountStarted();
        context.library().mount(id, barcode, new Completion<>() {
            @Override
            public void succeeded(Void value) {
                if (scheduled) {
                    context.robotSucceeded();
                }
                mounted = barcode;
                log.mounted(barcode);
                label.forget();
                position = 0;
                context.mounted(barcode);
                driveReports(barcode, q);
                attach(q);
                loaded.run();
            }

            @Override
            public void failed(TapeFault fault) {
                queue = null;
                q.release(DriveRunner.this);
                failed.accept(fault);
            }
        });
    }

    /** Unloads; {@code guard} false for an unload after an error, which must not delay the retry elsewhere. */
    public void unmount(Runnable then, boolean guard) {
        unmount(then, fault -> { }, guard);
    }

    /**
     * Unloads, then runs {@code then}; if the unload fails for good (the drive goes out of service, or its mover
     * was lost) {@code failed} runs instead, so whatever waited for the drive is given back.
     */
    public void unmount(Runnable then, Consumer<TapeFault> failed, boolean guard) {
        cancelTimer();
        String barcode = mounted;
        WorkQueue q = queue;
        writes.releasePool();
        log.unmountStarted();
        set(State.UNMOUNTING, "unmounting " + barcode);
        context.library().unmount(id, new Completion<>() {
            @Override
            public void succeeded(Void value) {
                context.robotSucceeded();
                context.unmounted();
                log.unmounted(barcode);
                cartridgeGone(q, guard);
                set(isDown() ? State.DOWN : State.EMPTY, isDown() ? "down: " + downReason() : "empty");
                then.run();
                context.requestDispatch();
            }

            @Override
            public void failed(TapeFault fault) {
                if (unreachable != null) {
                    unloadNotDone(barcode, q, () -> failed.accept(fault));
                    return;
                }
                context.fault(fault.kind(), id, barcode, "unload failed: " + fault.getMessage());
                LOG.warn("Drive {}: unload of {} failed: {}", id, barcode, fault.toString());
                String reason = "cannot unload " + barcode + ": " + fault.getMessage();
                if (q != null) {
                    context.queues().stuck(barcode, q, "cartridge stuck in drive " + id + ": " + fault.getMessage());
                }
                FaultReactions.Reaction r = FaultReactions.of(FaultReactions.Operation.UNMOUNT, fault.kind());
                if (r.robotError()) {
                    context.robotFailed(fault);
                }
                if (r.then() == FaultReactions.Then.RETRY_UNLOAD) {
                    set(State.UNMOUNTING, "unload of " + barcode + " failed (" + fault.getMessage()
                            + "); retrying after the backoff");
                    unloadGiveUp = () -> unloadNotDone(barcode, q, () -> failed.accept(fault));
                    unloadRetry = context.loop().schedule(context.settings().retryBackoffMillis(), () -> {
                        unloadRetry = null;
                        unloadGiveUp = null;
                        if (state == State.UNMOUNTING && mounted != null) {
                            unmount(then, failed, guard);
                        }
                    });
                } else {
                    errors = Math.max(errors, context.settings().driveErrorLimit());
                    markDown(reason, true, true);
                    set(State.DOWN, "down: " + reason);
                    failed.accept(fault);
                }
                context.requestDispatch();
            }
        });
    }

    /**
     * An unload not done because the drive's mover is lost: not the drive's fault; the cartridge stays loaded and
     * this drive's until the mover answers again, and {@code giveBack} frees what waited for the unload.
     */
    private void unloadNotDone(String barcode, WorkQueue q, Runnable giveBack) {
        LOG.warn("Drive {}: unload of {} not done: {}", id, barcode, unreachable);
        unloadGiveUp = null;
        set(State.DOWN, unreachableActivity());
        if (q != null) {
            context.queues().stuck(barcode, q, barcode + " is in drive " + id + ": " + unreachable);
        }
        giveBack.run();
        context.requestDispatch();
    }

    // ------------------------------------------------------------------ the work loop

    void work() {
        if (unreachable != null) {
            writes.abandonHeld(); // never flushed: written again
            context.unaccount(this);
            set(State.DOWN, unreachableActivity()); // its mover was lost during the last operation
            return;
        }
        if (down && writes.holding()) {
            writes.flushNow(); // then commits them and comes back here
            return;
        }
        if (down) {
            context.unaccount(this);
            unmount(() -> { }, false); // taken out of service during the last operation
            return;
        }
        set(State.BUSY, "working on " + mounted);
        if (context.settings().checkLabels() && !label.checked()) {
            label.check(mounted);
            return;
        }
        if (writes.next()) {
            return;
        }
        if (reads.readNext()) {
            return;
        }
        passEnded();
    }

    /** The pass is over: let dispatch decide what this drive does next. */
    private void passEnded() {
        long now = context.loop().now();
        log.passEnded(mounted);
        reads.forgetPlan();
        writes.releasePool();
        WorkQueue q = queue;
        q.refresh(now);
        context.unaccount(this);
        if (holdsWorkForOthers(now)) {
            // Reads that must be retried on another drive: give the cartridge back.
            q.avoid(id);
            unmount(() -> { }, false);
            return;
        }
        long dwell = context.settings().dwellMillis();
        if (!hasWork(now) && q.isEmpty() && q.lastArrival() != Long.MIN_VALUE && now - q.lastArrival() < dwell) {
            set(State.DWELL, "holding " + mounted + " for more requests");
            context.account(this, q.group(), false);
            timer = context.loop().schedule(q.lastArrival() + dwell - now, () -> {
                timer = null;
                if (state == State.DWELL) {
                    set(State.IDLE, "holding " + mounted);
                    context.requestDispatch();
                }
            });
            return;
        }
        if (q.retryNotBefore() > now) {
            long wait = q.retryNotBefore() - now;
            context.loop().schedule(wait, context::requestDispatch);
        }
        set(State.IDLE, "holding " + mounted);
        context.requestDispatch();
    }

    private void release() {
        if (unreachable != null) {
            set(State.DOWN, unreachableActivity());
            context.requestDispatch();
            return;
        }
        set(down ? State.DOWN : mounted == null ? State.EMPTY : State.IDLE,
                down ? "down: " + downReason : mounted == null ? "empty" : "holding " + mounted);
        context.requestDispatch();
    }

    /** The drive's part of a fault reaction that counts a drive error. */
    void driveError(TapeFault fault) {
        if (unreachable != null || fault.refusal()) {
            return; // the mover was lost or refused the command (fenced), not the drive's fault: nothing counted
        }
        errors++;
        lastError = fault.getMessage();
        log.error();
        if (FaultReactions.takesDriveOut(fault.kind()) && !down) {
            markDown(fault.getMessage(), true, true);
        } else if (errors >= context.settings().driveErrorLimit() && !down) {
            markDown("taken out of service after " + errors + " consecutive errors; last: " + fault.getMessage(), true, true);
        }
    }

    /** After a fault: the drive goes on, or gives the cartridge back (preferring another drive for it). */
    void afterFault(FaultReactions.Then then) {
        switch (then) {
            case UNLOAD_AVOID -> {
                if (queue != null) {
                    queue.avoid(id);
                }
                unmount(() -> { }, false);
            }
            case UNLOAD -> unmount(() -> { }, false);
            default -> work();
        }
    }

    // ------------------------------------------------------------------ admin

    /** Runs an admin task on this free drive, mounting its cartridge first if needed ({@link AdminRun}). */
    public void runAdmin(AdminTask task) {
        cancelTimer();
        context.unaccount(this);
        new AdminRun(this, task).start();
    }

    /** What a background task does on this drive now, for status (the drive is busy until {@link #adminDone}). */
    public void backgroundActivity(String what) {
        set(State.BUSY, what);
    }

    /**
     * Whether the label of the cartridge in the drive was checked since it was mounted, or labels are not checked
     * at all ({@code checkLabels} off: a size-only simulation, whose tapes hold no label bytes).
     */
    public boolean labelChecked() {
        return label.checked() || !context.settings().checkLabels();
    }

    /**
     * A label is about to be written on the mounted cartridge (which overwrites it from block 0): the layout the
     * drive reported for its old data at the mount, and what was learnt from its locates, no longer hold.
     */
    public void labelWriting() {
        if (mounted != null) {
            context.layoutGone(mounted);
        }
    }

    /**
     * Ends an admin task: the drive keeps the cartridge and is free again; taken out of service meanwhile, it
     * gives the cartridge back, so another drive can mount it.
     */
    public void adminDone(boolean labelNowChecked) {
        label.done(labelNowChecked);
        position = -1;
        if (down && unreachable == null && mounted != null) {
            unmount(() -> { }, false);
            return;
        }
        release();
    }
}
