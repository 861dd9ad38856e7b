package org.tapeq.scheduler.engine.drive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.fault.FaultReactions;
import org.tapeq.scheduler.engine.queue.FlushItem;
import org.tapeq.scheduler.engine.queue.PendingAggregate;
import org.tapeq.scheduler.engine.queue.WorkQueue;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.format.AggregatePlan;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * The writes of one drive's cartridge: take the next aggregate (bound to the cartridge, or of its family's
 * queue while the drive writes for the family), append it, check what the drive reports, optionally read it
 * back, commit it to the catalog, and answer a failed write.
 *
 * <p>Design notes. A drive that dispatch sent to a family queue is one of that queue's writers until its pass
 * ends ({@link #claimPool}/{@link #releasePool}); dispatch gives a family queue no further drive while its
 * writers cover its aggregates. A tape file is only committed after the drive reported exactly the bytes and
 * blocks of the plan (and, with verify, after the read-back matched the manifest) and, with buffered tape marks,
 * after the drive's next flush ({@link HeldWrites}); the commit is the one catalog write of the write path, handed
 * to the catalog writer; the drive stays busy until it is done.
 */
final class WriteStep implements HeldWrites.Outcome {

    private static final Logger LOG = LoggerFactory.getLogger(WriteStep.class);

    private final DriveRunner drive;
    private final DriveContext context;
    /** The cartridge of the write under way, counted in {@code Cartridges#writing}, or null. */
    private String writingTo;
    /** The family this drive writes for, or null. */
    private String familyPool;
    /** Written with buffered marks, waiting for the drive's flush. */
    private final HeldWrites held;

    WriteStep(DriveRunner drive) {
        this.drive = drive;
        this.context = drive.context;
        this.held = new HeldWrites(drive);
    }

    /**
     * Starts the drive's next write step: the flush of the files held since the last one if it is due, else the
     * next aggregate. Returns false, with nothing held, when there is nothing to write.
     */
    boolean next() {
        if (held.due(available() != null)) {
            held.flush(this);
            return true;
        }
        PendingAggregate agg = take();
        if (agg == null) {
            return false;
        }
        write(agg);
        return true;
    }

    /** Whether tape files wait for the drive's flush (the drive flushes before it unloads). */
    boolean holding() {
        return !held.isEmpty();
    }

    /** Flushes the held tape files now, then commits them and goes on with the drive's work. */
    void flushNow() {
        held.flush(this);
    }

    /** The drive's mover was lost ({@code reason}): tape files held now are never flushed, but written again. */
    void moverLost(String reason) {
        held.moverLost(reason);
    }

    /** The drive's mover was lost with tape files held: never flushed, they are written again. */
    void abandonHeld() {
        held.handBack(held.drain(), new TapeFault(FaultKind.DRIVE, "not flushed: " + drive.unreachable()), true);
    }

    /** This drive writes for a family queue until {@link #releasePool()}. */
    void claimPool(String pool) {
        if (pool != null) {
            familyPool = pool;
            context.queues().familyQueue(pool, "").writerJoined();
        }
    }

    void releasePool() {
        if (familyPool != null) {
            WorkQueue fq = context.queues().familyQueueIfAny(familyPool);
            if (fq != null) {
                fq.writerLeft();
                context.queues().index().update(fq);
            }
            familyPool = null;
        }
    }

    /** The aggregate this drive should write next on its cartridge, without taking it. */
    PendingAggregate available() {
        if (!context.catalogReachable()) {
            return null; // no write starts while its commit could not follow
        }
        CartridgeRecord c = context.cartridges().get(drive.mounted());
        if (c == null || !c.state().writable() || c.disabled()) {
            return null;
        }
        long now = context.loop().now();
        WorkQueue queue = drive.queue();
        PendingAggregate own = queue.peekWrite();
        long pending = held.bytes(); // written since the last flush, not yet in the cartridge's record
        if (own != null && own.notBefore() <= now && context.cartridges().writable(c, own.liveBytes() + pending)) {
            return own;
        }
        if (c.family() == null || (familyPool == null && queue.hasPendingReads())) {
            return null;
        }
        WorkQueue fq = context.queues().familyQueueIfAny(c.family());
        PendingAggregate pooled = fq == null ? null : fq.peekWrite();
        if (pooled != null && context.cartridges().writable(c, pooled.liveBytes() + pending)
                && pooled.notBefore() <= now && now >= fq.retryNotBefore()) {
            return pooled;
        }
        return null;
    }

    /** Takes the next aggregate off its queue, or returns null. */
    private PendingAggregate take() {
        PendingAggregate agg = available();
        if (agg == null) {
            return null;
        }
        WorkQueue queue = drive.queue();
        if (queue.peekWrite() == agg) {
            queue.takeWrite();
        } else {
            WorkQueue fq = context.queues().familyQueueIfAny(context.cartridges().get(drive.mounted()).family());
            fq.takeWrite();
            context.queues().index().update(fq); // dispatch skips it while its writers cover its writes
        }
        return agg;
    }

    private void write(PendingAggregate agg) {
        List<FlushItem> live = agg.live();
        if (live.isEmpty()) {
            drive.work();
            return;
        }
        String barcode = drive.mounted();
        writeBegun(barcode);
        drive.set(DriveRunner.State.BUSY, "checking the catalog answers before writing to " + barcode);
        context.checkBeforeWrite(new CatalogWriter.Done<>() {
            @Override
            public void succeeded(Void v) {
                append(agg);
            }

            @Override
            public void failed(RuntimeException e) {
                // Nothing was written: the aggregate goes back to its queue (WRITE/CATALOG in FaultReactions).
                writeFailed(agg, new TapeFault(FaultKind.CATALOG, "not written to " + barcode + ": the catalog "
                        + "check before the write failed: " + e.getMessage(), e));
            }
        });
    }

    /** The catalog answered: the tape file is written (members cancelled meanwhile are left out). */
    private void append(PendingAggregate agg) {
        List<FlushItem> live = agg.live();
        if (live.isEmpty()) {
            writeEnded();
            drive.work();
            return;
        }
        agg.writing(true);
        String barcode = drive.mounted();
        String id = drive.id();
        AggregatePlan plan = AggregateFormat.forWrite(agg.plan(), barcode, live);
        drive.set(DriveRunner.State.BUSY, "writing " + plan.members().size() + " files (" + plan.length()
                + " bytes) of " + agg.family() + "/" + agg.dataset() + " to " + barcode);
        GuardedSource source = new GuardedSource(plan.source());
        drive.log.writeStarted();
        Completion<WrittenFile> appended = new Completion<>() {
            @Override
            public void succeeded(WrittenFile written) {
                drive.succeeded();
                int bs = context.library().blockSize();
                long expectedBlocks = plan.blockCount(bs);
                if (written.bytes() != plan.length() || written.blockCount() != expectedBlocks) {
                    writeFailed(agg, new TapeFault(FaultKind.MEDIA, "drive " + id + " reports " + written.bytes()
                            + " bytes in " + written.blockCount() + " blocks for tape file " + written.fileNumber()
                            + " on " + barcode + ", expected " + plan.length() + " bytes in " + expectedBlocks));
                    return;
                }
                long expectedStart = held.expectedStart();
                if (expectedStart >= 0 && written.startBlock() != expectedStart) {
                    // not flushed first: a flush could find this file where the lost ones were and pass its check
                    failWithHeld(agg, new TapeFault(FaultKind.DRIVE, "drive " + id + " wrote tape file "
                            + written.fileNumber() + " at block " + written.startBlock() + " of " + barcode
                            + ", expected block " + expectedStart + " after the tape files held for its flush: the"
                            + " drive lost what it buffered (reset or power cycle)"));
                    return;
                }
                drive.position(written.startBlock() + written.blockCount() + 1);
                if (context.settings().verifyAfterWrite()) {
                    verify(agg, plan, written);
                } else {
                    written(agg, plan, written);
                }
            }

            @Override
            public void failed(TapeFault fault) {
                TapeFault f = source.failure != null
                        ? new TapeFault(FaultKind.SOURCE, source.failure.getMessage(), source.failure) : fault;
                writeFailed(agg, f);
            }
        };
        if (held.buffered()) {
            context.library().appendBuffered(id, source, appended);
        } else {
            context.library().append(id, source, appended);
        }
    }

    /**
     * The tape file is written and checked: with synchronous marks it is on tape and is committed now; with
     * buffered marks it waits for the drive's next flush and the drive goes on. Either way the write's count on
     * the cartridge ({@link #writeBegun}) is now ended by its commit or failure.
     */
    private void written(PendingAggregate agg, AggregatePlan plan, WrittenFile written) {
        String barcode = drive.mounted();
        writingTo = null;
        if (held.buffered()) {
            held.hold(agg, plan, written, barcode);
            drive.work();
        } else {
            commit(agg, plan, written, barcode, drive::work);
        }
    }

    @Override
    public void flushed(List<HeldWrites.Held> batch) {
        commitAll(batch, drive::work);
    }

    /** Commits the flushed tape files (the catalog writer groups the commits), then runs {@code then}. */
    private void commitAll(List<HeldWrites.Held> batch, Runnable then) {
        int[] left = {batch.size()};
        Runnable oneDone = () -> {
            if (--left[0] == 0) {
                then.run();
            }
        };
        for (HeldWrites.Held h : batch) {
            commit(h.agg(), h.plan(), h.written(), h.barcode(), oneDone);
        }
    }

    @Override
    public void flushFailed(List<HeldWrites.Held> batch, TapeFault fault) {
        writesFailed(batch, fault, "flush");
    }

    /** Reads the tape file back and compares each member's checksum with the manifest before committing. */
    private void verify(PendingAggregate agg, AggregatePlan plan, WrittenFile written) {
        drive.set(DriveRunner.State.BUSY, "verifying tape file " + written.fileNumber() + " on " + drive.mounted());
        List<MemberChecksums.Member> members = new ArrayList<>();
        for (int i = 0; i < plan.members().size(); i++) {
            var m = plan.members().get(i);
            members.add(new MemberChecksums.Member(plan.offsetOf(i), m.size(), m.checksum()));
        }
        MemberChecksums sink = new MemberChecksums(members);
        String id = drive.id();
        context.library().locate(id, written.startBlock(), drive.log.locate(new Completion<>() {
            @Override
            public void succeeded(Void v) {
                context.library().read(id, 0, plan.length(), () -> sink, new Completion<>() {
                    @Override
                    public void succeeded(Long n) {
                        drive.position(-1);
                        String mismatch = sink.mismatch(n, plan.length());
                        if (mismatch != null) {
                            writeFailed(agg, new TapeFault(FaultKind.MEDIA, "read-back of tape file "
                                    + written.fileNumber() + " on " + drive.mounted() + ": " + mismatch));
                        } else {
                            written(agg, plan, written);
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
        }));
    }

    /**
     * Commits the tape file through the catalog writer; the drive waits (busy) until the commit is done, the
     * members are reported only after it succeeded, and a failed commit fails them ({@code COMMIT} in
     * {@link FaultReactions}).
     */
    private void commit(PendingAggregate agg, AggregatePlan plan, WrittenFile written, String barcode,
                        Runnable then) {
        int bs = context.library().blockSize();
        long now = context.loop().now();
        AggregateRecord aggregate = plan.manifest().toAggregateRecord(barcode, written.fileNumber(),
                written.startBlock(), bs, now);
        List<FileRecord> files = plan.manifest().toFileRecords(barcode, written.fileNumber(), written.startBlock(), bs);
        context.commitAggregate(aggregate, files, new CatalogWriter.Done<>() {
            @Override
            public void succeeded(CartridgeRecord after) {
                committed(agg, plan, barcode, files, after);
                then.run();
            }

            @Override
            public void failed(RuntimeException e) {
                commitFailed(agg, barcode, written, e);
                then.run();
            }
        });
    }

    private void commitFailed(PendingAggregate agg, String barcode, WrittenFile written, RuntimeException e) {
        // COMMIT in FaultReactions: the members fail at once; the tape file stays unreferenced
        context.cartridges().writeEnded(barcode);
        agg.writing(false);
        context.fault(FaultKind.CATALOG, drive.id(), barcode, "tape file " + written.fileNumber()
                + " written but the catalog commit failed: " + e.getMessage());
        LOG.error("Drive {}: tape file {} on {} written but the catalog commit failed: {}", drive.id(),
                written.fileNumber(), barcode, e.getMessage());
        for (FlushItem m : agg.live()) {
            context.finish(m, m.cancelled() ? new Outcome.Cancelled() : context.failed(FaultKind.CATALOG,
                    "cannot flush " + m.request().pnfsid() + ": written to " + barcode + " tape file "
                            + written.fileNumber() + " but the catalog commit failed: " + e.getMessage(), 1));
        }
    }

    private void committed(PendingAggregate agg, AggregatePlan plan, String barcode, List<FileRecord> files,
                           CartridgeRecord after) {
        context.cartridges().writeEnded(barcode);
        agg.writing(false);
        context.written(agg, barcode, plan.length(), after);
        drive.log.written(agg.family(), agg.dataset(), barcode, files.isEmpty() ? -1 : files.get(0).tapeFile(),
                files.size(), plan.length());
        Map<String, FileRecord> byId = new HashMap<>();
        for (FileRecord f : files) {
            byId.put(f.pnfsid(), f);
        }
        for (FlushItem m : agg.members()) {
            if (m.done()) {
                continue;
            }
            if (m.cancelled()) {
                context.finish(m, new Outcome.Cancelled());
            } else {
                FileRecord where = byId.get(m.request().pnfsid());
                if (where != null) {
                    LOG.debug("Drive {}: wrote {} ({} bytes) to {} tape file {}", drive.id(), where.pnfsid(),
                            where.size(), barcode, where.tapeFile());
                }
                context.finish(m, where != null ? new Outcome.Flushed(where) : context.failed(FaultKind.SOURCE,
                        m.request().pnfsid() + " was left out of its aggregate", 1));
            }
        }
    }

    /**
     * A write, its check or its read-back failed: the reaction of {@link FaultReactions.Operation#WRITE}. The files
     * held for the drive's flush fail with it: what the drive buffered may be lost.
     */
    private void writeFailed(PendingAggregate agg, TapeFault fault) {
        writeEnded();
        if (!held.isEmpty() && drive.unreachable() == null) {
            // the tape files written before it (a full tape keeps them) are flushed and committed first
            held.flush(new HeldWrites.Outcome() {
                @Override
                public void flushed(List<HeldWrites.Held> batch) {
                    commitAll(batch, () -> react(fault, "write", () -> context.writeFailed(agg, fault, false)));
                }

                @Override
                public void flushFailed(List<HeldWrites.Held> batch, TapeFault flushFault) {
                    react(fault, "write", () -> {
                        held.handBack(batch, flushFault, drive.unreachable() != null);
                        context.writeFailed(agg, fault, drive.unreachable() != null);
                    });
                }
            });
            return;
        }
        failWithHeld(agg, fault);
    }

    /** A write failed ({@code fault}) and so did the tape files held for the flush: all are written again. */
    private void failWithHeld(PendingAggregate agg, TapeFault fault) {
        writeEnded();
        List<HeldWrites.Held> batch = held.drain();
        react(fault, "write", () -> {
            held.handBack(batch, fault, drive.unreachable() != null);
            context.writeFailed(agg, fault, drive.unreachable() != null);
        });
    }

    /** The flush of the held tape files failed: they were not made durable. */
    private void writesFailed(List<HeldWrites.Held> batch, TapeFault fault, String what) {
        react(fault, what, () -> held.handBack(batch, fault, drive.unreachable() != null));
    }

    /**
     * The drive's and cartridge's part of the reaction to a failed write or flush; {@code requeue} hands the
     * aggregates back once the cartridge's state is updated.
     */
    private void react(TapeFault fault, String what, Runnable requeue) {
        // the drive's mover was lost: neither the drive's, the cartridge's nor the data's fault
        boolean moverLost = drive.unreachable() != null;
        if (!moverLost) {
            context.fault(fault.kind(), drive.id(), drive.mounted(), what + " failed: " + fault.getMessage());
        }
        LOG.warn("Drive {}: writing to {} failed: {}", drive.id(), drive.mounted(), fault.toString());
        FaultReactions.Reaction r = FaultReactions.of(FaultReactions.Operation.WRITE, fault.kind());
        CartridgeRecord c = context.cartridges().get(drive.mounted());
        drive.position(-1);
        switch (moverLost ? FaultReactions.Cartridge.KEEP : r.cartridge()) {
            case FULL -> context.queues().updateCartridge(c.withState(CartridgeState.FULL,
                    "tape full: " + fault.getMessage()));
            case SUSPECT -> context.queues().updateCartridge(c.withState(CartridgeState.SUSPECT,
                    "write error: " + fault.getMessage()));
            default -> {
            }
        }
        if (r.driveError()) {
            drive.driveError(fault);
        }
        requeue.run();
        drive.afterFault(r.then());
    }

    /** Counts the write begun on {@code barcode} (see {@code Cartridges#writeBegun}) until it ends. */
    private void writeBegun(String barcode) {
        writeEnded();
        writingTo = barcode;
        context.cartridges().writeBegun(barcode);
    }

    private void writeEnded() {
        if (writingTo != null) {
            context.cartridges().writeEnded(writingTo);
            writingTo = null;
        }
    }
}
