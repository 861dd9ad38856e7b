package org.tapeq.scheduler.engine.drive;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.fault.FaultReactions;
import org.tapeq.scheduler.engine.fault.FaultReactions.Operation;
import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.engine.queue.WorkQueue;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.policy.EstimatedGeometry;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.tape.Completion;

/**
 * The reads of one drive's cartridge: plan a pass, reserve stage buffer space for the next unit, read it,
 * hand each member its outcome, and answer a failed read.
 *
 * <p>Design notes. A pass is planned over every waiting read of the cartridge in the policy's order from
 * the current head position; reads this drive failed on wait for another drive if one is in service. Under
 * a policy that joins running passes, reads arriving during a pass join it by replanning, at most every
 * {@link #REPLAN_MILLIS} or when they are a tenth of what is left. A unit the {@link StageSpace} refuses goes
 * back to the head of the pass and the drive waits (see {@link DriveRunner}).
 *
 * <p>A pass the drive orders ({@link DriveOrderRequest}) is read one piece at a time, but is the same pass as the
 * policy's own: its first {@link MountPolicy#passLimit()} spans in the policy's groups. Its members are kept, and
 * each next piece is asked for among those still waiting; only a policy that joins running passes adds new reads.
 * Whatever goes wrong with the question (a refusal, a malformed answer, an exception) leaves the pass to the
 * policy's own order; a drive fault while asking counts against the drive.
 */
final class ReadPass {

    private static final Logger LOG = LoggerFactory.getLogger(ReadPass.class);

    static final long REPLAN_MILLIS = 60_000;

    private final DriveRunner drive;
    private final DriveContext context;
    private ArrayDeque<ReadUnit> plan;
    private long plannedAt;
    /** The media of the cartridge the pass was planned for (its locates teach that cartridge's layout). */
    private MediaType plannedMedia;
    /** The estimate the pass was ordered with; a better one learnt since (a new instance) replans the rest. */
    private EstimatedGeometry plannedWith;
    /** The drive is computing its recommended access order for the next pass; its answer resumes the work. */
    private boolean asking;
    /** The pass is in the drive's order, which no estimate learnt since can improve. */
    private boolean plannedByDrive;
    /** The cartridge on which the drive refused (or botched) a recommended access order: not asked again in the mount. */
    private String refusedOn;
    /** The plan is the drive's order of one piece of the pass; when it is read, the next piece is asked for. */
    private boolean moreForDrive;
    /** The reads of the running drive-ordered pass, or null; the next pieces are asked among them. */
    private Set<StageItem> passMembers;

    ReadPass(DriveRunner drive) {
        this.drive = drive;
        this.context = drive.context;
    }

    void forgetPlan() {
        plan = null;
        moreForDrive = false;
        passMembers = null;
    }

    /** A new mount: no plan, and a drive that refused its order for a cartridge is asked again. */
    void newMount() {
        forgetPlan();
        refusedOn = null;
    }

    /** Whether this drive may read the item now; {@code othersUp}: another drive is in service. */
    private boolean readyHere(StageItem it, long now, boolean othersUp) {
        return it.pending() && it.notBefore() <= now && (!drive.id().equals(it.excludedDrive()) || !othersUp);
    }

    /** Whether a read of the drive's queue is ready for this drive. */
    boolean anyReadyHere(long now) {
        boolean othersUp = context.otherDriveCouldServe(drive);
        for (StageItem it : drive.queue().reads()) {
            if (readyHere(it, now, othersUp)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a read of the drive's queue is ready but must be retried on another drive. */
    boolean anyForOthers(long now) {
        boolean othersUp = context.otherDriveCouldServe(drive);
        for (StageItem it : drive.queue().reads()) {
            if (it.pending() && it.notBefore() <= now && !readyHere(it, now, othersUp)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Starts the next read of the pass, or waits for space for it; returns false when the pass is over.
     */
    boolean readNext() {
        if (asking) {
            return true; // the drive's answer resumes the work
        }
        ReadUnit unit = nextUnit();
        if (unit == null) {
            if (!asking) {
                passMembers = null; // the pass is over
            }
            return asking;
        }
        if (reserveSpace(unit)) {
            read(unit);
        }
        return true;
    }

    private ReadUnit nextUnit() {
        long now = context.loop().now();
        WorkQueue q = drive.queue();
        if (plan != null && context.policy().joinsRunningPass() && q.arrivedDuringPass() > 0
                && (now - plannedAt >= REPLAN_MILLIS || q.arrivedDuringPass() * 10 >= plan.size())) {
            plan = null;
        }
        if (plan != null && !plannedByDrive && context.geometry(plannedMedia, drive.mounted()) != plannedWith) {
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
                return new ReadUnit(live, context.library().blockSize());
            }
        }
        plan = null;
        if (moreForDrive) { // the next piece, ordered by the drive from where the head is now
            moreForDrive = false;
            plan = planPass(now);
            return plan == null ? null : nextUnit();
        }
        return null;
    }

    /**
     * Orders every read waiting for this cartridge and takes the first pass of it; or, where the policy hands the
     * reads to a drive that offers its recommended access order, asks the drive and returns null ({@link #asking}).
     */
    private ArrayDeque<ReadUnit> planPass(long now) {
        WorkQueue q = drive.queue();
        q.refresh(now);
        List<StageItem> ready = new ArrayList<>();
        boolean othersUp = context.otherDriveCouldServe(drive);
        // the next piece of a drive-ordered pass comes from its members, as the policy's pass takes no newcomers
        Set<StageItem> members = context.policy().joinsRunningPass() ? null : passMembers;
        for (StageItem it : q.reads()) {
            if (readyHere(it, now, othersUp) && (members == null || members.contains(it))) {
                ready.add(it);
            }
        }
        if (ready.isEmpty()) {
            return null;
        }
        int bs = context.library().blockSize();
        ready.sort(Comparator.comparingInt(StageItem::tapeFile).thenComparingLong(StageItem::offset));
        List<ReadUnit> units = new ArrayList<>();
        List<StageItem> current = new ArrayList<>();
        long currentEnd = 0;
        for (StageItem it : ready) {
            if (!current.isEmpty() && (it.tapeFile() != current.get(0).tapeFile()
                    || it.offset() - currentEnd > context.settings().mergeGapBytes())) {
                units.add(new ReadUnit(current, bs));
                current = new ArrayList<>();
            }
            current.add(it);
            currentEnd = Math.max(currentEnd, it.offset() + it.size());
            if (current.size() == 1) {
                currentEnd = it.offset() + it.size();
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
        plannedMedia = q.media();
        EstimatedGeometry geometry = context.geometry(q.media(), drive.mounted());
        plannedWith = geometry;
        List<int[]> groups = context.policy().driveOrderGroups(starts, ends, geometry);
        int driveLimit = groups == null || drive.mounted().equals(refusedOn) ? 0
                : context.library().accessOrderLimit(drive.id());
        if (driveLimit > 0) {
            askDrive(units, starts, ends, groups, driveLimit);
            return null;
        }
        plannedByDrive = false;
        moreForDrive = false;
        int[] order = context.policy().readOrder().order(Math.max(0, drive.position()), starts, ends, geometry);
        return takePass(units, order, now);
    }

    /** The drive orders the reads (in the policy's groups); its answer, or its refusal, resumes the work. */
    private void askDrive(List<ReadUnit> units, long[] starts, long[] ends, List<int[]> groups, int limit) {
        String barcode = drive.mounted();
        asking = true;
        drive.set(DriveRunner.State.BUSY, "asking the drive for its recommended order of " + units.size()
                + " read(s) on " + barcode);
        Completion<DriveOrderRequest.Piece> answer = new Completion<>() {
            private boolean answered;

            // the answer resumes the work from the loop, never inside planPass (a library may answer at once)
            @Override
            public void succeeded(DriveOrderRequest.Piece piece) {
                if (answered) {
                    return;
                }
                answered = true;
                context.loop().schedule(0, () -> {
                    asking = false;
                    plannedByDrive = true;
                    moreForDrive = piece.more();
                    passMembers = new HashSet<>();
                    for (int i : piece.pass()) {
                        passMembers.addAll(units.get(i).items);
                    }
                    plan = takePass(units, piece.order(), context.loop().now());
                    LOG.debug("Drive {}: {} of {} read(s) on {} in the drive's recommended order", drive.id(),
                            piece.order().length, units.size(), barcode);
                    drive.work();
                });
            }

            @Override
            public void failed(TapeFault fault) {
                if (answered) {
                    return;
                }
                answered = true;
                context.loop().schedule(0, () -> {
                    asking = false;
                    refusedOn = barcode;
                    if (!fault.refusal()) { // a drive fault while asking: as while reading, with no read under way
                        passFailed(List.of(), "recommended access order failed: ", fault);
                        return;
                    }
                    LOG.info("Drive {}: no recommended access order for {} ({}); ordering its reads from the"
                            + " estimate", drive.id(), barcode, fault.getMessage());
                    drive.work();
                });
            }
        };
        try {
            DriveOrderRequest.ask(context.library(), drive.id(), starts, ends, groups, limit,
                    context.policy().passLimit(), answer);
        } catch (RuntimeException e) { // the policy's groups or the library: the policy orders the pass itself
            LOG.error("Drive {}: asking for a recommended access order on {} failed: {}", drive.id(), barcode,
                    e.toString(), e);
            answer.failed(TapeFault.refusal("asking for a recommended access order failed: " + e));
        }
    }

    /** The first {@link MountPolicy#passLimit()} units in {@code order}, as the pass. */
    private ArrayDeque<ReadUnit> takePass(List<ReadUnit> units, int[] order, long now) {
        WorkQueue q = drive.queue();
        int limit = Math.min(order.length, context.policy().passLimit());
        ArrayDeque<ReadUnit> pass = new ArrayDeque<>(limit);
        for (int i = 0; i < limit; i++) {
            pass.add(units.get(order[i]));
        }
        q.passPlanned();
        plannedAt = now;
        return pass;
    }

    /**
     * Asks the {@link StageSpace} for room for the unit's files that have a target. If refused, the unit goes
     * back to the head of the pass and the drive waits.
     */
    private boolean reserveSpace(ReadUnit unit) {
        List<StageSpace.Claim> claims = new ArrayList<>(unit.items.size());
        long bytes = 0;
        for (StageItem it : unit.items) {
            if (it.request().target() != null) {
                claims.add(new StageSpace.Claim(it.request(), it.size()));
                bytes += it.size();
            }
        }
        if (claims.isEmpty()) {
            return true;
        }
        try {
            if (context.stageSpace().tryReserve(claims)) {
                return true;
            }
        } catch (RuntimeException e) {
            LOG.error("Drive {}: the stage space hook failed; waiting as if refused: {}", drive.id(), e.toString(), e);
        }
        plan.addFirst(unit);
        drive.set(DriveRunner.State.WAITING_SPACE, "waiting for stage buffer space: " + bytes + " bytes for "
                + claims.size() + " file(s) from " + drive.mounted() + " tape file " + unit.items.get(0).tapeFile());
        LOG.debug("Drive {}: {}", drive.id(), drive.activity());
        return false;
    }

    private void read(ReadUnit unit) {
        int bs = context.library().blockSize();
        String id = drive.id();
        StageItem first = unit.items.get(0);
        StageItem last = unit.items.get(unit.items.size() - 1);
        long skip = first.offset() % bs;
        long length = last.offset() + last.size() - first.offset();
        for (StageItem it : unit.items) {
            it.reading();
        }
        drive.set(DriveRunner.State.BUSY, "reading " + unit.items.size() + " file(s) from " + drive.mounted()
                + " tape file " + first.tapeFile());
        MemberSink sink = new MemberSink(unit.items, first.offset(), context.loop(),
                (s, i) -> memberComplete(unit.items.get(i), s, i));
        long fromBlock = drive.position();
        long locateStarted = context.loop().now();
        context.library().locate(id, unit.startBlock, drive.log.locate(new Completion<>() {
            @Override
            public void succeeded(Void v) {
                context.located(drive.mounted(), plannedMedia, fromBlock, unit.startBlock,
                        context.loop().now() - locateStarted);
                drive.log.readStarted();
                context.library().read(id, skip, length, sink.byteSink(), new Completion<>() {
                    @Override
                    public void succeeded(Long n) {
                        sink.close();
                        if (sink.delivered() == 0 && n > 0) {
                            sink.assumeDelivered(n);
                        }
                        drive.position(unit.startBlock + (skip + n + bs - 1) / bs);
                        drive.succeeded();
                        drive.log.read(unit.items.size(), n);
                        readDone(unit, sink);
                    }

                    @Override
                    public void failed(TapeFault fault) {
                        sink.close();
                        sink.detach();
                        passFailed(unit.items, "read failed: ", fault);
                    }
                });
            }

            @Override
            public void failed(TapeFault fault) {
                sink.detach();
                passFailed(unit.items, "read failed: ", fault);
            }
        }));
    }

    /**
     * A member's file is complete while the read goes on: answered now if it is whole and its checksum agrees
     * (anything else waits for the read's end, {@link #readDone}). A pool gets the files of a long read as they
     * arrive, not all at its end.
     */
    private void memberComplete(StageItem it, MemberSink sink, int i) {
        if (!it.done() && !it.cancelled() && sink.error(i) == null && sink.written(i) >= it.size()
                && !Checksums.contradicts(it.checksum(), sink.checksum(i))) {
            staged(it, sink, i);
        }
    }

    private void staged(StageItem it, MemberSink sink, int i) {
        String sum = sink.checksum(i);
        LOG.debug("Drive {}: read {} on {} tape file {} ({} bytes)", drive.id(), it.request().pnfsid(),
                drive.mounted(), it.tapeFile(), it.size());
        context.finish(it, new Outcome.Staged(it.size(), sum != null ? sum : it.checksum()));
    }

    /** Each member's outcome; a member's own fault is a {@link Operation#DELIVER} fault. */
    private void readDone(ReadUnit unit, MemberSink sink) {
        sink.detach();
        for (int i = 0; i < unit.items.size(); i++) {
            StageItem it = unit.items.get(i);
            if (it.done()) {
                continue; // answered while the read went on (memberComplete)
            }
            String where = it.request().pnfsid() + " on " + drive.mounted() + " tape file " + it.tapeFile();
            if (it.cancelled()) {
                context.finish(it, new Outcome.Cancelled());
            } else if (sink.error(i) != null) {
                // DELIVER/TARGET fails at once, without counting an attempt
                String reason = "cannot stage " + where + ": " + sink.error(i);
                context.fault(FaultKind.TARGET, drive.id(), drive.mounted(), reason);
                context.finish(it, context.failed(FaultKind.TARGET, reason, 1));
            } else if (sink.written(i) < it.size()) {
                TapeFault fault = new TapeFault(FaultKind.NOT_FOUND, "short read: " + sink.written(i) + " of "
                        + it.size() + " bytes (tape file ends early)");
                context.fault(fault.kind(), drive.id(), drive.mounted(), where + ": " + fault.getMessage());
                context.readFailed(it, fault, Operation.DELIVER, drive.id());
            } else {
                String sum = sink.checksum(i);
                if (Checksums.contradicts(it.checksum(), sum)) {
                    TapeFault fault = new TapeFault(FaultKind.CHECKSUM, "read " + sum + ", catalog has "
                            + it.checksum());
                    context.fault(fault.kind(), drive.id(), drive.mounted(), where + ": " + fault.getMessage());
                    context.readFailed(it, fault, Operation.DELIVER, drive.id());
                } else {
                    staged(it, sink, i);
                }
            }
        }
        drive.work();
    }

    /** A fault of the pass ({@code items}: the reads under way, requeued): recorded and answered as for a read. */
    private void passFailed(List<StageItem> items, String what, TapeFault fault) {
        context.fault(fault.kind(), drive.id(), drive.mounted(), what + fault.getMessage());
        LOG.warn("Drive {}: {}{} on {}", drive.id(), what, fault.toString(), drive.mounted());
        FaultReactions.Reaction r = FaultReactions.of(Operation.READ, fault.kind());
        drive.position(-1);
        for (StageItem it : items) {
            if (it.done()) {
                continue; // answered before the fault, its file complete
            }
            it.requeued();
            context.readFailed(it, fault, Operation.READ, drive.id());
        }
        if (r.cartridge() == FaultReactions.Cartridge.SUSPECT) {
            CartridgeRecord c = context.cartridges().get(drive.mounted());
            if (c != null && c.state() != CartridgeState.SUSPECT) {
                context.queues().updateCartridge(c.withState(CartridgeState.SUSPECT,
                        "read error: " + fault.getMessage()));
            }
        }
        if (r.driveError()) {
            drive.driveError(fault);
        }
        drive.afterFault(r.then());
    }

    /** Every waiting read of the queue gets the fault of {@code op} (retried or failed by attempts). */
    void failAll(WorkQueue q, TapeFault fault, Operation op) {
        if (q == null) {
            return;
        }
        for (StageItem it : new ArrayList<>(q.reads())) {
            if (it.queued()) {
                context.readFailed(it, fault, op, drive.id());
            }
        }
        q.refresh(context.loop().now());
    }
}
