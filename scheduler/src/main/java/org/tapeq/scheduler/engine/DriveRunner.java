package org.tapeq.scheduler.engine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.AggregateRecord;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.catalog.FileRecord;
import org.tapeq.scheduler.format.AggregatePlan;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.format.SourceChangedException;
import org.tapeq.scheduler.format.TapeLabel;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.policy.TapeGeometry;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.EventLoop;

/**
 * One drive's work, as a state machine driven by tape completions on the event loop.
 *
 * <p>Design notes. A drive is empty, mounting, busy with one operation, idle with a cartridge, dwelling
 * (keeping an emptied cartridge a little longer while its requests still arrive), waiting for stage buffer
 * space, unmounting, or down. Once it holds a cartridge, {@link #work()} repeats: check the label once per
 * mount; write the aggregates bound to the cartridge or, if it is an appendable cartridge of a family with
 * waiting aggregates, those; then read the next unit of the planned pass once the {@link StageSpace} grants
 * room for its files. A pass is planned over every waiting read of the cartridge in the policy's order from
 * the current head position. Under a policy that joins running passes, reads arriving during a pass join it
 * by replanning, at most every {@link #REPLAN_MILLIS} or when they are a tenth of what is left.
 * When a pass ends the engine's dispatch decides whether the drive keeps the cartridge.
 *
 * <p>A refused unit goes back to the head of the pass, its reads stay queued, and the drive waits with its
 * cartridge, still counted as in use and out of dispatch's reach, with no timer running. It runs
 * {@link #work()} again ({@link #retryIfWaiting()}, coalesced) when space is freed, when one of its queue's
 * reads is cancelled, or when a write for the cartridge arrives; taken down, it unloads and the reads go to
 * another drive; an admin task on its cartridge may take it.
 */
final class DriveRunner {

    private static final Logger LOG = LoggerFactory.getLogger(DriveRunner.class);

    static final long REPLAN_MILLIS = 60_000;
    static final int LABEL_BYTES = 64 * 1024;
    static final long MANIFEST_BYTES = 64L * 1024 * 1024;

    enum State { EMPTY, MOUNTING, BUSY, IDLE, DWELL, WAITING_SPACE, UNMOUNTING, DOWN }

    final Engine engine;
    final String id;
    State state = State.EMPTY;
    String mounted;
    WorkQueue queue;
    boolean down;
    String downReason;
    int errors;
    String lastError;
    String activity = "empty";
    long since;
    String accountedGroup;
    boolean accountedWrite;
    private boolean labelChecked;
    private String familyPool;
    private long position;
    private ArrayDeque<ReadUnit> plan;
    private long plannedAt;
    private EventLoop.Timer timer;
    private boolean retryQueued;

    DriveRunner(Engine engine, String id) {
        this.engine = engine;
        this.id = id;
        this.since = engine.loop.now();
    }

    // ------------------------------------------------------------------ state queries

    boolean isFree() {
        return !down && (state == State.EMPTY || state == State.IDLE);
    }

    /** Whether the cartridge in this drive has work this drive can do now. */
    boolean hasWork(long now) {
        if (mounted == null || queue == null || state == State.DOWN) {
            return false;
        }
        if (writeAvailable() != null) {
            return true;
        }
        boolean othersUp = engine.otherDriveCouldServe(this);
        for (StageItem it : queue.reads) {
            if (readyHere(it, now, othersUp)) {
                return true;
            }
        }
        return false;
    }

    /** Whether reads of this cartridge are ready but must be retried on another drive. */
    boolean holdsWorkForOthers(long now) {
        if (mounted == null || queue == null) {
            return false;
        }
        boolean othersUp = engine.otherDriveCouldServe(this);
        for (StageItem it : queue.reads) {
            if (it.pending() && it.notBefore <= now && !readyHere(it, now, othersUp)) {
                return true;
            }
        }
        return false;
    }

    /** Whether this drive may read the item now; {@code othersUp}: another drive is in service. */
    private boolean readyHere(StageItem it, long now, boolean othersUp) {
        return it.pending() && it.notBefore <= now && (!id.equals(it.excludedDrive) || !othersUp);
    }

    private void set(State s, String what) {
        if (s == State.EMPTY || s == State.IDLE || s == State.DOWN) {
            engine.unaccount(this); // a free or broken drive is nobody's
        }
        state = s;
        activity = what;
        since = engine.loop.now();
    }

    // ------------------------------------------------------------------ start-up and admin state

    void adoptLoaded(String barcode) {
        mounted = barcode;
        WorkQueue q = engine.cartridgeQueue(barcode, "");
        q.drive = this;
        queue = q;
        labelChecked = false;
        position = -1;
        set(down ? State.DOWN : State.IDLE, "holding " + barcode + " found at start");
    }

    void markDown(String reason, boolean persist) {
        down = true;
        downReason = reason;
        engine.unaccount(this);
        cancelTimer();
        if ((state == State.IDLE || state == State.DWELL || state == State.WAITING_SPACE) && mounted != null) {
            unmount(() -> { }, false); // a drive out of service gives its cartridge back
        } else if (state != State.BUSY && state != State.MOUNTING && state != State.UNMOUNTING) {
            set(State.DOWN, "down: " + reason);
        }
        if (persist) {
            engine.catalog.putDrive(new DriveRecord(id, false, reason, errors, engine.loop.now()));
        }
        LOG.error("Drive {} out of service: {}", id, reason);
    }

    void markUp() {
        down = false;
        downReason = null;
        errors = 0;
        engine.catalog.putDrive(new DriveRecord(id, true, null, 0, engine.loop.now()));
        if (state == State.DOWN) {
            set(mounted == null ? State.EMPTY : State.IDLE, mounted == null ? "empty" : "holding " + mounted);
        }
        engine.requestDispatch();
    }

    /**
     * An administrator's unload: a drive in service holding a cartridge it has nothing to do with (idle, or
     * dwelling for more requests) gives it back now instead of after the idle time. Not a scheduling decision,
     * so no remount guard follows. Returns whether the unload started.
     */
    boolean unloadIfIdle() {
        if (down || mounted == null || (state != State.IDLE && state != State.DWELL)) {
            return false;
        }
        LOG.info("Drive {}: unloading {} on request", id, mounted);
        engine.unaccount(this); // a dwelling drive counted for its group
        unmount(() -> { }, false);
        return true;
    }

    // ------------------------------------------------------------------ assignment

    /** Dispatch gave this drive a cartridge queue (and, for family writes, the family). */
    void serve(WorkQueue q, String pool) {
        cancelTimer();
        releasePool();
        if (q.barcode.equals(mounted)) {
            claimPool(pool);
            attach(q);
            work();
        } else if (mounted != null) {
            // The old queue is re-filed by the unmount; the new one is reserved so no other drive takes it.
            String group = accountedGroup;
            boolean write = accountedWrite;
            reserve(q);
            unmount(() -> {
                if (down) {
                    q.drive = null;
                    engine.index.update(q);
                    return;
                }
                engine.account(this, group, write);
                claimPool(pool);
                mount(q);
            });
        } else {
            claimPool(pool);
            mount(q);
        }
    }

    /** This drive writes for a family queue until {@link #releasePool()}. */
    private void claimPool(String pool) {
        if (pool != null) {
            familyPool = pool;
            engine.familyQueue(pool, "").writers++;
        }
    }

    /** Dispatch lets the drive go on with its own cartridge. */
    void continueWork() {
        cancelTimer();
        engine.account(this, queue.group, writeAvailable() != null);
        work();
    }

    /** A request for the cartridge in this drive arrived. */
    void workArrived() {
        if (state == State.DWELL) {
            cancelTimer();
            set(State.IDLE, "holding " + mounted);
            engine.requestDispatch();
        } else if (state == State.IDLE) {
            engine.requestDispatch();
        } else if (state == State.WAITING_SPACE && writeAvailable() != null) {
            retryIfWaiting(); // a write needs no stage buffer space
        }
    }

    /** A drive waiting for stage buffer space tries its next unit again (once for a burst of calls). */
    void retryIfWaiting() {
        if (state != State.WAITING_SPACE || retryQueued) {
            return;
        }
        retryQueued = true;
        engine.loop.execute(() -> {
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
    void idle() {
        if (state == State.IDLE && mounted != null && timer == null) {
            long idleMillis = engine.config.idleUnmountMillis();
            timer = engine.loop.schedule(idleMillis, () -> {
                timer = null;
                if (state == State.IDLE && mounted != null && !down) {
                    LOG.info("Drive {}: unloading {} after {} s idle", id, mounted, idleMillis / 1000);
                    unmount(engine::requestDispatch);
                }
            });
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void attach(WorkQueue q) {
        if (queue != null && queue != q) {
            queue.drive = null;
        }
        queue = q;
        if (q != null) {
            q.drive = this;
            engine.index.remove(q);
        }
        plan = null;
    }

    /** Claims a queue before its cartridge is mounted here, so no other drive takes it meanwhile. */
    private void reserve(WorkQueue q) {
        q.drive = this;
        engine.index.remove(q);
    }

    // ------------------------------------------------------------------ mount and unmount

    private void mount(WorkQueue q) {
        reserve(q);
        queue = q;
        plan = null;
        String barcode = q.barcode;
        set(State.MOUNTING, "mounting " + barcode);
        engine.library.mount(id, barcode, new Completion<>() {
            @Override
            public void succeeded(Void value) {
                engine.robotSucceeded();
                mounted = barcode;
                labelChecked = false;
                position = 0;
                engine.noteMount(barcode);
                attach(q);
                work();
            }

            @Override
            public void failed(TapeFault fault) {
                engine.counters.fault(fault.kind());
                LOG.warn("Drive {}: mount of {} failed: {}", id, barcode, fault.toString());
                queue = null;
                q.drive = null;
                q.avoidDrive = id;
                releasePool();
                set(State.EMPTY, "empty");
                if (fault.kind() == FaultKind.ROBOT) {
                    engine.robotFailed(fault);
                    q.retryNotBefore = engine.loop.now() + engine.config.retryBackoffMillis();
                } else if (fault.kind() == FaultKind.DRIVE) {
                    driveError(fault);
                    q.retryNotBefore = engine.loop.now() + engine.config.retryBackoffMillis();
                } else {
                    failReads(q, fault);
                }
                engine.index.update(q);
                engine.requestDispatch();
            }
        });
    }

    void unmount(Runnable then) {
        unmount(then, true);
    }

    /** Unloads; {@code guard} false for an unload after an error, which must not delay the retry elsewhere. */
    void unmount(Runnable then, boolean guard) {
        cancelTimer();
        String barcode = mounted;
        WorkQueue q = queue;
        releasePool();
        set(State.UNMOUNTING, "unmounting " + barcode);
        engine.library.unmount(id, new Completion<>() {
            @Override
            public void succeeded(Void value) {
                engine.robotSucceeded();
                engine.counters.unmounts++;
                mounted = null;
                labelChecked = false;
                plan = null;
                if (q != null) {
                    if (q.drive == DriveRunner.this) {
                        q.drive = null;
                    }
                    if (guard) {
                        q.lastUnmount = engine.loop.now();
                    }
                    q.refresh(engine.loop.now());
                    engine.index.update(q);
                }
                if (queue == q) {
                    queue = null;
                }
                set(down ? State.DOWN : State.EMPTY, down ? "down: " + downReason : "empty");
                then.run();
                engine.requestDispatch();
            }

            @Override
            public void failed(TapeFault fault) {
                engine.counters.fault(fault.kind());
                String reason = "cannot unload " + barcode + ": " + fault.getMessage();
                if (q != null) {
                    q.blockedReason = "cartridge stuck in drive " + id + ": " + fault.getMessage();
                }
                if (fault.kind() == FaultKind.ROBOT) {
                    engine.robotFailed(fault);
                    set(State.UNMOUNTING, "unload of " + barcode + " failed (" + fault.getMessage()
                            + "); retrying after the backoff");
                    timer = engine.loop.schedule(engine.config.retryBackoffMillis(), () -> {
                        timer = null;
                        if (state == State.UNMOUNTING && mounted != null) {
                            unmount(then, guard);
                        }
                    });
                } else {
                    errors = Math.max(errors, engine.config.driveErrorLimit());
                    markDown(reason, true);
                    set(State.DOWN, "down: " + reason);
                }
                engine.requestDispatch();
            }
        });
    }

    // ------------------------------------------------------------------ the work loop

    void work() {
        if (down) {
            engine.unaccount(this);
            unmount(() -> { }, false); // taken out of service during the last operation
            return;
        }
        set(State.BUSY, "working on " + mounted);
        if (engine.config.checkLabels() && !labelChecked) {
            checkLabel();
            return;
        }
        PendingAggregate agg = takeWrite();
        if (agg != null) {
            write(agg);
            return;
        }
        ReadUnit unit = nextUnit();
        if (unit != null) {
            if (reserveSpace(unit)) {
                read(unit);
            }
            return;
        }
        passEnded();
    }

    /** The pass is over: let dispatch decide what this drive does next. */
    private void passEnded() {
        long now = engine.loop.now();
        plan = null;
        releasePool();
        WorkQueue q = queue;
        q.refresh(now);
        engine.unaccount(this);
        if (holdsWorkForOthers(now)) {
            // Reads that must be retried on another drive: give the cartridge back.
            q.avoidDrive = id;
            unmount(() -> { }, false);
            return;
        }
        if (!hasWork(now) && q.isEmpty() && q.lastArrival != Long.MIN_VALUE
                && now - q.lastArrival < engine.config.dwellMillis()) {
            set(State.DWELL, "holding " + mounted + " for more requests");
            engine.account(this, q.group, false);
            timer = engine.loop.schedule(q.lastArrival + engine.config.dwellMillis() - now, () -> {
                timer = null;
                if (state == State.DWELL) {
                    set(State.IDLE, "holding " + mounted);
                    engine.requestDispatch();
                }
            });
            return;
        }
        if (q.retryNotBefore > now) {
            long wait = q.retryNotBefore - now;
            engine.loop.schedule(wait, engine::requestDispatch);
        }
        set(State.IDLE, "holding " + mounted);
        engine.requestDispatch();
    }

    private void release() {
        set(down ? State.DOWN : mounted == null ? State.EMPTY : State.IDLE,
                down ? "down: " + downReason : mounted == null ? "empty" : "holding " + mounted);
        engine.requestDispatch();
    }

    private void releasePool() {
        if (familyPool != null) {
            WorkQueue fq = engine.familyQueues.get(familyPool);
            if (fq != null) {
                fq.writers = Math.max(0, fq.writers - 1);
                engine.index.update(fq);
            }
            familyPool = null;
        }
    }

    // ------------------------------------------------------------------ label

    private void checkLabel() {
        String barcode = mounted;
        set(State.BUSY, "checking label of " + barcode);
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        engine.library.locate(id, 0, new Step<>() {
            @Override
            public void succeeded(Void v) {
                engine.library.read(id, 0, LABEL_BYTES, () -> buf, new Step<>() {
                    @Override
                    public void succeeded(Long n) {
                        labelRead(barcode, buf.toByteArray());
                    }

                    @Override
                    public void failed(TapeFault fault) {
                        if (fault.kind() == FaultKind.NOT_FOUND) {
                            labelRead(barcode, new byte[0]); // no data at block 0: a blank tape
                        } else {
                            super.failed(fault);
                        }
                    }
                });
            }
        });
    }

    private void labelRead(String barcode, byte[] bytes) {
        position = -1;
        CartridgeRecord c = engine.cartridges.get(barcode);
        TapeLabel label;
        try {
            label = TapeLabel.parseFor(bytes, barcode);
        } catch (TapeFault fault) {
            engine.counters.fault(FaultKind.LABEL);
            CartridgeState newState = bytes.length == 0 ? CartridgeState.BLANK : CartridgeState.FOREIGN;
            LOG.error("Drive {}: cartridge {} is {}: {}", id, barcode, newState, fault.getMessage());
            if (c != null) {
                engine.updateCartridge(c.withState(newState, fault.getMessage()));
            }
            failReads(queue, fault);
            unmount(() -> { }, false);
            return;
        }
        labelChecked = true;
        if (c != null && (c.state() == CartridgeState.UNKNOWN || c.state() == CartridgeState.BLANK
                || c.family() == null)) {
            engine.updateCartridge(new CartridgeRecord(c.barcode(), c.mediaType(), label.family(),
                    c.state() == CartridgeState.UNKNOWN || c.state() == CartridgeState.BLANK
                            ? CartridgeState.APPENDABLE : c.state(),
                    c.capacityBytes(), c.usedBytes(), c.reclaimableBytes(), c.tapeFiles(), c.mountCount(),
                    c.lastMount(), c.disabled(), null));
        }
        work();
    }

    /** Every waiting read of the queue gets the fault (retried or failed by attempts). */
    private void failReads(WorkQueue q, TapeFault fault) {
        if (q == null) {
            return;
        }
        for (StageItem it : new ArrayList<>(q.reads)) {
            if (it.state == StageItem.QUEUED) {
                engine.readFailed(it, fault, id);
            }
        }
        q.refresh(engine.loop.now());
    }

    // ------------------------------------------------------------------ writes

    /** The aggregate this drive should write next on its cartridge, without taking it. */
    private PendingAggregate writeAvailable() {
        CartridgeRecord c = engine.cartridges.get(mounted);
        if (c == null || !c.state().writable() || c.disabled()) {
            return null;
        }
        long now = engine.loop.now();
        PendingAggregate own = queue.writes.peek();
        if (own != null && own.notBefore <= now && engine.writable(c, own.liveBytes())) {
            return own;
        }
        if (c.family() == null || (familyPool == null && queue.hasPendingReads())) {
            return null;
        }
        WorkQueue fq = engine.familyQueues.get(c.family());
        PendingAggregate pooled = fq == null ? null : fq.writes.peek();
        if (pooled != null && engine.writable(c, pooled.liveBytes()) && pooled.notBefore <= now
                && now >= fq.retryNotBefore) {
            return pooled;
        }
        return null;
    }

    private PendingAggregate takeWrite() {
        PendingAggregate agg = writeAvailable();
        if (agg == null) {
            return null;
        }
        if (queue.writes.peek() == agg) {
            queue.takeWrite();
        } else {
            WorkQueue fq = engine.familyQueues.get(engine.cartridges.get(mounted).family());
            fq.takeWrite();
            engine.index.update(fq); // Engine.writeCartridgeFor skips it while its writers cover its writes
        }
        return agg;
    }

    private void write(PendingAggregate agg) {
        List<FlushItem> live = agg.live();
        if (live.isEmpty()) {
            work();
            return;
        }
        agg.writing = true;
        String barcode = mounted;
        AggregatePlan plan = AggregateFormat.forWrite(agg.plan, barcode, live);
        set(State.BUSY, "writing " + plan.members().size() + " files (" + plan.length() + " bytes) of "
                + agg.family + "/" + agg.dataset + " to " + barcode);
        GuardedSource source = new GuardedSource(plan.source());
        engine.library.append(id, source, new Completion<>() {
            @Override
            public void succeeded(WrittenFile written) {
                errors = 0;
                int bs = engine.library.blockSize();
                long expectedBlocks = plan.blockCount(bs);
                if (written.bytes() != plan.length() || written.blockCount() != expectedBlocks) {
                    writeFailed(agg, new TapeFault(FaultKind.MEDIA, "drive " + id + " reports " + written.bytes()
                            + " bytes in " + written.blockCount() + " blocks for tape file " + written.fileNumber()
                            + " on " + barcode + ", expected " + plan.length() + " bytes in " + expectedBlocks));
                    return;
                }
                position = written.startBlock() + written.blockCount() + 1;
                if (engine.config.verifyAfterWrite()) {
                    verify(agg, plan, written);
                } else {
                    commit(agg, plan, written);
                }
            }

            @Override
            public void failed(TapeFault fault) {
                TapeFault f = source.failure != null
                        ? new TapeFault(FaultKind.SOURCE, source.failure.getMessage(), source.failure) : fault;
                writeFailed(agg, f);
            }
        });
    }

    /** Reads the tape file back and compares each member's checksum with the manifest before committing. */
    private void verify(PendingAggregate agg, AggregatePlan plan, WrittenFile written) {
        set(State.BUSY, "verifying tape file " + written.fileNumber() + " on " + mounted);
        List<StageItem> probes = new ArrayList<>();
        for (int i = 0; i < plan.members().size(); i++) {
            var m = plan.members().get(i);
            probes.add(new StageItem(null, 0, written.fileNumber(), 0, plan.offsetOf(i), m.size(), m.checksum()));
        }
        ChecksumSink sink = new ChecksumSink(probes);
        engine.library.locate(id, written.startBlock(), new Completion<>() {
            @Override
            public void succeeded(Void v) {
                engine.library.read(id, 0, plan.length(), () -> sink, new Completion<>() {
                    @Override
                    public void succeeded(Long n) {
                        position = -1;
                        String mismatch = sink.mismatch(n);
                        if (mismatch != null) {
                            writeFailed(agg, new TapeFault(FaultKind.MEDIA, "read-back of tape file "
                                    + written.fileNumber() + " on " + mounted + ": " + mismatch));
                        } else {
                            commit(agg, plan, written);
                        }
                    }

                    @Override
                    public void failed(TapeFault fault) {
                        writeFailed(agg, fault);
                    }
                });
            }

            @Override
            public void failed(TapeFault fault) {
                writeFailed(agg, fault);
            }
        });
    }

    private void commit(PendingAggregate agg, AggregatePlan plan, WrittenFile written) {
        String barcode = mounted;
        int bs = engine.library.blockSize();
        long now = engine.loop.now();
        AggregateRecord aggregate = plan.manifest().toAggregateRecord(barcode, written.fileNumber(),
                written.startBlock(), bs, now);
        List<FileRecord> files = plan.manifest().toFileRecords(barcode, written.fileNumber(), written.startBlock(), bs);
        try {
            engine.catalog.commitAggregate(aggregate, files);
        } catch (CatalogException e) {
            agg.writing = false;
            engine.counters.fault(FaultKind.CATALOG);
            LOG.error("Drive {}: tape file {} on {} written but the catalog commit failed: {}", id,
                    written.fileNumber(), barcode, e.getMessage());
            for (FlushItem m : agg.live()) {
                engine.finish(m, m.cancelled ? new Outcome.Cancelled() : engine.failed(FaultKind.CATALOG,
                        "cannot flush " + m.request.pnfsid() + ": written to " + barcode + " tape file "
                                + written.fileNumber() + " but the catalog commit failed: " + e.getMessage(), 1));
            }
            work();
            return;
        }
        agg.writing = false;
        engine.counters.aggregatesWritten++;
        engine.counters.bytesWritten += plan.length();
        engine.aggregator.written(agg.family, agg.dataset, barcode);
        engine.refreshCartridge(barcode);
        Map<String, FileRecord> byId = new HashMap<>();
        for (FileRecord f : files) {
            byId.put(f.pnfsid(), f);
        }
        for (FlushItem m : agg.members) {
            if (m.done) {
                continue;
            }
            if (m.cancelled) {
                engine.finish(m, new Outcome.Cancelled());
            } else {
                FileRecord where = byId.get(m.request.pnfsid());
                engine.finish(m, where != null ? new Outcome.Flushed(where)
                        : engine.failed(FaultKind.SOURCE, m.request.pnfsid() + " was left out of its aggregate", 1));
            }
        }
        work();
    }

    private void writeFailed(PendingAggregate agg, TapeFault fault) {
        engine.counters.fault(fault.kind());
        LOG.warn("Drive {}: writing to {} failed: {}", id, mounted, fault.toString());
        CartridgeRecord c = engine.cartridges.get(mounted);
        position = -1;
        switch (fault.kind()) {
            case TAPE_FULL -> engine.updateCartridge(c.withState(CartridgeState.FULL, "tape full: " + fault.getMessage()));
            case MEDIA -> engine.updateCartridge(c.withState(CartridgeState.SUSPECT, "write error: " + fault.getMessage()));
            case DRIVE -> driveError(fault);
            default -> {
            }
        }
        engine.aggregator.writeFailed(agg, fault);
        if (fault.kind() == FaultKind.DRIVE) {
            if (queue != null) {
                queue.avoidDrive = id;
            }
            unmount(() -> { }, false);
        } else {
            work();
        }
    }

    /** Remembers the first exception the aggregate's source threw, to tell a source problem from a tape one. */
    private static final class GuardedSource implements TapeFileSource {
        private final TapeFileSource source;
        volatile IOException failure;

        GuardedSource(TapeFileSource source) {
            this.source = source;
        }

        @Override
        public long length() {
            return source.length();
        }

        @Override
        public void writeTo(OutputStream out) throws IOException {
            try {
                source.writeTo(out);
            } catch (SourceChangedException e) {
                failure = e;
                throw e;
            }
        }
    }

    // ------------------------------------------------------------------ reads

    private ReadUnit nextUnit() {
        long now = engine.loop.now();
        WorkQueue q = queue;
        if (plan != null && engine.policy.joinsRunningPass() && q.arrivedDuringPass > 0
                && (now - plannedAt >= REPLAN_MILLIS || q.arrivedDuringPass * 10 >= plan.size())) {
            plan = null;
        }
        if (plan == null) {
            plan = planPass(now);
            if (plan == null) {
                return null;
            }
        }
        ReadUnit unit;
        while ((unit = plan.poll()) != null) {
            List<StageItem> live = new ArrayList<>(unit.items.size());
            for (StageItem it : unit.items) {
                if (it.pending()) {
                    live.add(it);
                }
            }
            if (live.size() == unit.items.size()) {
                return unit;
            }
            if (!live.isEmpty()) {
                return new ReadUnit(live, engine.library.blockSize());
            }
        }
        plan = null;
        return null;
    }

    /** Orders every read waiting for this cartridge and takes the first pass of it. */
    private ArrayDeque<ReadUnit> planPass(long now) {
        WorkQueue q = queue;
        q.refresh(now);
        List<StageItem> ready = new ArrayList<>();
        boolean othersUp = engine.otherDriveCouldServe(this);
        for (StageItem it : q.reads) {
            if (readyHere(it, now, othersUp)) {
                ready.add(it);
            }
        }
        if (ready.isEmpty()) {
            return null;
        }
        int bs = engine.library.blockSize();
        ready.sort(Comparator.comparingInt((StageItem it) -> it.tapeFile).thenComparingLong(it -> it.offset));
        List<ReadUnit> units = new ArrayList<>();
        List<StageItem> current = new ArrayList<>();
        long currentEnd = 0;
        for (StageItem it : ready) {
            if (!current.isEmpty() && (it.tapeFile != current.get(0).tapeFile
                    || it.offset - currentEnd > engine.config.mergeGapBytes())) {
                units.add(new ReadUnit(current, bs));
                current = new ArrayList<>();
            }
            current.add(it);
            currentEnd = Math.max(currentEnd, it.offset + it.size);
            if (current.size() == 1) {
                currentEnd = it.offset + it.size;
            }
        }
        units.add(new ReadUnit(current, bs));
        units.sort(Comparator.comparingLong(u -> u.arrival));
        long[] starts = new long[units.size()];
        long[] ends = new long[units.size()];
        for (int i = 0; i < units.size(); i++) {
            starts[i] = units.get(i).startBlock;
            ends[i] = units.get(i).endBlock;
        }
        TapeGeometry geometry = engine.geometry(q.media);
        int[] order = engine.policy.readOrder().order(Math.max(0, position), starts, ends, geometry);
        int limit = Math.min(order.length, engine.policy.passLimit());
        ArrayDeque<ReadUnit> pass = new ArrayDeque<>(limit);
        for (int i = 0; i < limit; i++) {
            pass.add(units.get(order[i]));
        }
        q.arrivedDuringPass = 0;
        plannedAt = now;
        return pass;
    }

    /**
     * Asks the {@link StageSpace} for room for the unit's files that have a target. If refused, the unit goes
     * back to the head of the pass and the drive waits (see the class comment).
     */
    private boolean reserveSpace(ReadUnit unit) {
        List<StageSpace.Claim> claims = new ArrayList<>(unit.items.size());
        long bytes = 0;
        for (StageItem it : unit.items) {
            if (it.request.target() != null) {
                claims.add(new StageSpace.Claim(it.request, it.size));
                bytes += it.size;
            }
        }
        if (claims.isEmpty()) {
            return true;
        }
        try {
            if (engine.stageSpace.tryReserve(claims)) {
                return true;
            }
        } catch (RuntimeException e) {
            LOG.error("Drive {}: the stage space hook failed; waiting as if refused: {}", id, e.toString(), e);
        }
        plan.addFirst(unit);
        set(State.WAITING_SPACE, "waiting for stage buffer space: " + bytes + " bytes for " + claims.size()
                + " file(s) from " + mounted + " tape file " + unit.items.get(0).tapeFile);
        LOG.debug("Drive {}: {}", id, activity);
        return false;
    }

    private void read(ReadUnit unit) {
        int bs = engine.library.blockSize();
        StageItem first = unit.items.get(0);
        StageItem last = unit.items.get(unit.items.size() - 1);
        long skip = first.offset % bs;
        long length = last.offset + last.size - first.offset;
        for (StageItem it : unit.items) {
            it.state = StageItem.READING;
        }
        set(State.BUSY, "reading " + unit.items.size() + " file(s) from " + mounted + " tape file " + first.tapeFile);
        MemberSink sink = new MemberSink(unit.items, first.offset);
        engine.library.locate(id, unit.startBlock, new Completion<>() {
            @Override
            public void succeeded(Void v) {
                engine.library.read(id, skip, length, () -> sink, new Completion<>() {
                    @Override
                    public void succeeded(Long n) {
                        sink.close();
                        if (sink.delivered() == 0 && n > 0) {
                            sink.assumeDelivered(n);
                        }
                        position = unit.startBlock + (skip + n + bs - 1) / bs;
                        errors = 0;
                        readDone(unit, sink, n);
                    }

                    @Override
                    public void failed(TapeFault fault) {
                        sink.close();
                        readFailed(unit, fault);
                    }
                });
            }

            @Override
            public void failed(TapeFault fault) {
                readFailed(unit, fault);
            }
        });
    }

    private void readDone(ReadUnit unit, MemberSink sink, long delivered) {
        for (int i = 0; i < unit.items.size(); i++) {
            StageItem it = unit.items.get(i);
            String where = it.request.pnfsid() + " on " + mounted + " tape file " + it.tapeFile;
            if (it.cancelled) {
                engine.finish(it, new Outcome.Cancelled());
            } else if (sink.error(i) != null) {
                engine.counters.fault(FaultKind.TARGET);
                engine.finish(it, engine.failed(FaultKind.TARGET, "cannot stage " + where + ": " + sink.error(i), 1));
            } else if (sink.written(i) < it.size) {
                engine.counters.fault(FaultKind.NOT_FOUND);
                engine.readFailed(it, new TapeFault(FaultKind.NOT_FOUND, "short read: " + sink.written(i) + " of "
                        + it.size + " bytes (tape file ends early)"), id);
            } else {
                String sum = sink.checksum(i);
                if (Checksums.contradicts(it.checksum, sum)) {
                    engine.counters.fault(FaultKind.CHECKSUM);
                    engine.readFailed(it, new TapeFault(FaultKind.CHECKSUM, "read " + sum + ", catalog has "
                            + it.checksum), id);
                } else {
                    engine.finish(it, new Outcome.Staged(it.size, sum != null ? sum : it.checksum));
                }
            }
        }
        work();
    }

    private void readFailed(ReadUnit unit, TapeFault fault) {
        engine.counters.fault(fault.kind());
        LOG.warn("Drive {}: reading {} failed: {}", id, mounted, fault.toString());
        position = -1;
        for (StageItem it : unit.items) {
            it.state = StageItem.QUEUED;
            engine.readFailed(it, fault, id);
        }
        if (fault.kind() == FaultKind.MEDIA) {
            CartridgeRecord c = engine.cartridges.get(mounted);
            if (c != null && c.state() != CartridgeState.SUSPECT) {
                engine.updateCartridge(c.withState(CartridgeState.SUSPECT, "read error: " + fault.getMessage()));
            }
        }
        if (fault.kind() == FaultKind.DRIVE) {
            driveError(fault);
            queue.avoidDrive = id;
            unmount(() -> { }, false);
        } else {
            work();
        }
    }

    private void driveError(TapeFault fault) {
        errors++;
        lastError = fault.getMessage();
        if (errors >= engine.config.driveErrorLimit() && !down) {
            markDown("taken out of service after " + errors + " consecutive errors; last: " + fault.getMessage(), true);
        }
    }

    // ------------------------------------------------------------------ admin

    void runAdmin(Engine.AdminTask task) {
        cancelTimer();
        engine.unaccount(this);
        if (task.barcode().equals(mounted)) {
            set(State.BUSY, "admin on " + mounted);
            task.run(this);
            return;
        }
        WorkQueue q = engine.cartridgeQueue(task.barcode(), "");
        Runnable mountIt = () -> {
            reserve(q);
            set(State.MOUNTING, "mounting " + task.barcode() + " for admin");
            engine.library.mount(id, task.barcode(), new Completion<>() {
                @Override
                public void succeeded(Void v) {
                    engine.noteMount(task.barcode());
                    mounted = task.barcode();
                    position = 0;
                    labelChecked = false;
                    attach(q);
                    set(State.BUSY, "admin on " + mounted);
                    task.run(DriveRunner.this);
                }

                @Override
                public void failed(TapeFault fault) {
                    q.drive = null;
                    queue = null;
                    engine.index.update(q);
                    set(State.EMPTY, "empty");
                    task.failed(fault);
                    engine.requestDispatch();
                }
            });
        };
        if (mounted != null) {
            releasePool();
            unmount(mountIt);
        } else {
            mountIt.run();
        }
    }

    /** Ends an admin task: the drive keeps the cartridge and is free again. */
    void adminDone(boolean labelNowChecked) {
        labelChecked = labelNowChecked;
        position = -1;
        release();
    }

    /** A completion whose failure ends the current job as a failed read of everything waiting. */
    private abstract class Step<T> implements Completion<T> {
        @Override
        public void failed(TapeFault fault) {
            engine.counters.fault(fault.kind());
            LOG.warn("Drive {}: {} failed: {}", id, activity, fault.toString());
            if (fault.kind() == FaultKind.DRIVE) {
                driveError(fault);
            }
            failReads(queue, fault);
            unmount(() -> { }, false);
        }
    }

    /** Adler-32 per member over a read-back, compared with the manifest. */
    private static final class ChecksumSink extends OutputStream {
        private final MemberSink members;
        private final List<StageItem> probes;

        ChecksumSink(List<StageItem> probes) {
            this.probes = probes;
            this.members = new MemberSink(probes, 0);
        }

        @Override
        public void write(int b) throws IOException {
            members.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            members.write(b, off, len);
        }

        String mismatch(long delivered) {
            members.close();
            if (members.delivered() == 0) {
                return null; // size-only library: nothing to compare
            }
            for (int i = 0; i < probes.size(); i++) {
                String sum = members.checksum(i);
                String expected = probes.get(i).checksum;
                if (Checksums.contradicts(expected, sum)) {
                    return "member " + i + " has " + sum + ", manifest has " + expected;
                }
            }
            return delivered < members.delivered() ? "short read" : null;
        }
    }
}
