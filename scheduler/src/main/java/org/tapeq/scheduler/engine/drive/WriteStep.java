package org.tapeq.scheduler.engine.drive;

import java.io.IOException;
import java.io.OutputStream;
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
import org.tapeq.scheduler.format.SourceChangedException;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * The writes of one drive's cartridge: take the next aggregate (bound to the cartridge, or of its family's
 * queue while the drive writes for the family), append it, check what the drive reports, optionally read it
 * back, commit it to the catalog, and answer a failed write.
 *
 * <p>Design notes. A drive that dispatch sent to a family queue is one of that queue's writers until its pass
 * ends ({@link #claimPool}/{@link #releasePool}); dispatch gives a family queue no further drive while its
 * writers cover its aggregates. A tape file is only committed after the drive reported exactly the bytes and
 * blocks of the plan (and, with verify, after the read-back matched the manifest); the commit is the one
 * catalog write of the write path, handed to the catalog writer; the drive stays busy until it is done.
 */
final class WriteStep {

    private static final Logger LOG = LoggerFactory.getLogger(WriteStep.class);

    private final DriveRunner drive;
    private final DriveContext context;
    /** The cartridge of the write under way, counted in {@code Cartridges#writing}, or null. */
    private String writingTo;
    /** The family this drive writes for, or null. */
    private String familyPool;

    WriteStep(DriveRunner drive) {
        this.drive = drive;
        this.context = drive.context;
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
        if (own != null && own.notBefore() <= now && context.cartridges().writable(c, own.liveBytes())) {
            return own;
        }
        if (c.family() == null || (familyPool == null && queue.hasPendingReads())) {
            return null;
        }
        WorkQueue fq = context.queues().familyQueueIfAny(c.family());
        PendingAggregate pooled = fq == null ? null : fq.peekWrite();
        if (pooled != null && context.cartridges().writable(c, pooled.liveBytes()) && pooled.notBefore() <= now
                && now >= fq.retryNotBefore()) {
            return pooled;
        }
        return null;
    }

    /** Takes the next aggregate off its queue, or returns null. */
    PendingAggregate take() {
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

    void write(PendingAggregate agg) {
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
        context.library().append(id, source, new Completion<>() {
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
                drive.position(written.startBlock() + written.blockCount() + 1);
                if (context.settings().verifyAfterWrite()) {
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
        }));
    }

    /**
     * Commits the tape file through the catalog writer; the drive waits (busy) until the commit is done, the
     * members are reported only after it succeeded, and a failed commit fails them ({@code COMMIT} in
     * {@link FaultReactions}).
     */
    private void commit(PendingAggregate agg, AggregatePlan plan, WrittenFile written) {
        String barcode = drive.mounted();
        int bs = context.library().blockSize();
        long now = context.loop().now();
        AggregateRecord aggregate = plan.manifest().toAggregateRecord(barcode, written.fileNumber(),
                written.startBlock(), bs, now);
        List<FileRecord> files = plan.manifest().toFileRecords(barcode, written.fileNumber(), written.startBlock(), bs);
        context.commitAggregate(aggregate, files, new CatalogWriter.Done<>() {
            @Override
            public void succeeded(CartridgeRecord after) {
                committed(agg, plan, barcode, files, after);
            }

            @Override
            public void failed(RuntimeException e) {
                commitFailed(agg, barcode, written, e);
            }
        });
    }

    private void commitFailed(PendingAggregate agg, String barcode, WrittenFile written, RuntimeException e) {
        // COMMIT in FaultReactions: the members fail at once; the tape file stays unreferenced
        writeEnded();
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
        drive.work();
    }

    private void committed(PendingAggregate agg, AggregatePlan plan, String barcode, List<FileRecord> files,
                           CartridgeRecord after) {
        writeEnded();
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
        drive.work();
    }

    /** A write, its check or its read-back failed: the reaction of {@link FaultReactions.Operation#WRITE}. */
    private void writeFailed(PendingAggregate agg, TapeFault fault) {
        writeEnded();
        // the drive's mover was lost: neither the drive's, the cartridge's nor the data's fault
        boolean moverLost = drive.unreachable() != null;
        if (!moverLost) {
            context.fault(fault.kind(), drive.id(), drive.mounted(), "write failed: " + fault.getMessage());
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
        context.writeFailed(agg, fault, moverLost);
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

        /** A data mover that rebuilds the aggregate from it reports a changed source as a SOURCE fault itself. */
        @Override
        public org.tapeq.scheduler.tape.DescribedSource described() {
            return source.described();
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
}
