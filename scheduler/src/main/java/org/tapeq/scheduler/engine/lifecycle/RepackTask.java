package org.tapeq.scheduler.engine.lifecycle;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.drive.BackgroundTask;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.fault.FaultReactions;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;

/**
 * Repacks one cartridge as background work: reads its live files into the spool a batch at a time, then writes
 * them as new aggregates on other cartridges of the target family ({@link RepackWrites}), and when no live file
 * is left on the source marks it {@code EMPTY}.
 *
 * <p>Design notes. Runs on the loop, in slices ({@link BackgroundTask}); {@link #barcode()} is the source while
 * reading and the cartridge being written while writing, so the dispatcher mounts whichever the next slice
 * needs. A batch is the next units of the {@link RepackPlan} whose live bytes fit the spool
 * ({@code scheduler.repackSpool}); between the read and the write of a batch no drive is held while the
 * spooled files are checked again ({@code preparing}). The catalog is the only progress record: a file is done
 * when its commit moved it off the source ({@code Catalog#commitRepacked}, one transaction), so a resumed
 * repack plans from what is still live on the source and reuses whole spool copies; a tape file written but
 * not committed is dead space, as for any flush. At every moment each file has a catalogued copy: the source
 * one until the commit, the new one after it; the spool copy is removed only after the commit. A media error
 * or a checksum mismatch on the source fails only the files of that read (they stay on the source, the source
 * becomes {@code SUSPECT}); a write fault on a target is answered as a flush's write fault for that cartridge
 * and the aggregate goes to another target, up to {@link RepackWrites#WRITE_ATTEMPTS} times. Any other fault
 * (drive, robot, label, catalog) stops the repack as {@code failed}, keeping the spool: asking again resumes.
 */
final class RepackTask implements BackgroundTask {

    private static final Logger LOG = LoggerFactory.getLogger(RepackTask.class);
    static final String CANCELLED = "cancelled by the operator";

    final LifecycleContext ctx;
    final RepackSpool spool;
    private RepackJob job;
    private final RepackPlan plan;
    /** Whole copies found in the spool at start (a resumed repack does not read them again). */
    private final Set<String> alreadySpooled;
    /** The plan's units, then single-file units of resumed spool copies that failed their check (read again). */
    private final List<RepackPlan.Unit> units;
    /** Read and in the spool, not yet committed elsewhere, in tape order. */
    final Map<String, FileRecord> spooled = new LinkedHashMap<>();
    /** Of {@link #spooled}: counted from a size-only library's read, with no copy in the spool. */
    final Set<String> withoutCopy = new HashSet<>();
    final List<VerifyReport.FileResult> failed = new ArrayList<>();
    private final RepackWrites writes;
    /** The repacks of this run: which cartridges this one may write to ({@link Repacks#mayTarget}). */
    final Repacks repacks;
    /** Files and bytes moved before this run (a resumed repack). */
    private final int movedBefore;
    private final long movedBytesBefore;
    int filesDone;
    long bytesDone;
    private int nextUnit;
    private int batchEnd;
    String state = RepackJob.QUEUED;
    private boolean labelOk;
    private boolean inSlice;
    private boolean cancelRequested;
    private boolean emptied;
    private long ended;
    private String error;
    /** Told once the repack ended, whichever way ({@link Repacks#whenEnded}). */
    Runnable onEnded = () -> { };

    RepackTask(LifecycleContext ctx, Repacks repacks, RepackSpool spool, RepackJob job, RepackPlan plan,
               Set<String> alreadySpooled, Map<String, List<String>> colocated) {
        this.ctx = ctx;
        this.repacks = repacks;
        this.spool = spool;
        this.job = job;
        this.plan = plan;
        this.alreadySpooled = new HashSet<>(alreadySpooled);
        this.units = new ArrayList<>(plan.units());
        this.movedBefore = Math.max(0, job.filesTotal() - plan.files() - plan.hints().size());
        this.movedBytesBefore = Math.max(0, job.bytesTotal() - plan.bytes() - hintBytes(plan));
        this.writes = new RepackWrites(this, colocated);
        for (FileRecord h : plan.hints()) {
            fail(h, "its location is known only from tape hints or has no aggregate: tapeq cannot read it");
        }
        startBatch();
    }

    static long hintBytes(RepackPlan plan) {
        long sum = 0;
        for (FileRecord h : plan.hints()) {
            sum += Math.max(0, h.size());
        }
        return sum;
    }

    /** Queues the first slice, or finishes at once when there is nothing to read. */
    void begin() {
        if (units.isEmpty()) {
            finish();
        } else {
            ctx.background().submit(this);
        }
    }

    @Override
    public String barcode() {
        String target = inSlice ? writes.target() : writes.usableTarget();
        return target != null ? target : job.source();
    }

    String source() {
        return job.source();
    }

    String family() {
        return job.targetFamily();
    }

    RepackJob job() {
        return job;
    }

    /** The cartridge its writes go to now, or null (reading). */
    String target() {
        return writes.target();
    }

    RepackReport report() {
        long spooledBytes = 0;
        for (FileRecord f : spooled.values()) {
            spooledBytes += f.size();
        }
        return new RepackReport(job.source(), job.targetFamily(), state, writes.target(), job.filesTotal(),
                job.bytesTotal(), movedBefore + filesDone, movedBytesBefore + bytesDone, failed.size(),
                spooled.size(), spooledBytes, List.copyOf(failed.subList(0, Math.min(VerifyReport.LISTED,
                failed.size()))), emptied, job.requestedAt(), ended, error, job.targetMedia());
    }

    boolean ended() {
        return ended != 0;
    }

    // ---------------------------------------------------------------- slices

    @Override
    public void runSlice(DriveRunner drive, Slice slice) {
        inSlice = true;
        state = writes.target() != null ? "writing" : "reading";
        labelOk = drive.labelChecked();
        if (labelOk) {
            next(drive, slice, true);
            return;
        }
        MountedLabel.check(ctx, drive, barcode(), new Completion<>() {
            @Override
            public void succeeded(Void v) {
                labelOk = true;
                next(drive, slice, true);
            }

            @Override
            public void failed(TapeFault fault) {
                stop(drive, slice, fault);
            }
        });
    }

    /** At a boundary: cancel, yield, or go on reading or writing. */
    void next(DriveRunner drive, Slice slice, boolean firstOfSlice) {
        if (cancelRequested) {
            release(drive, slice, false);
            cancelled();
            return;
        }
        if (!firstOfSlice && slice.shouldYield()) {
            LOG.info("Repack of {}: giving drive {} back ({} of {} files moved)", job.source(), drive.id(),
                    movedBefore + filesDone, job.filesTotal());
            state = RepackJob.QUEUED;
            release(drive, slice, true);
            return;
        }
        if (writes.target() != null) {
            writes.writeNext(drive, slice);
        } else {
            readNext(drive, slice);
        }
    }

    /** Frees the drive and ends the slice; {@code more}: queued again for the next slice. */
    void release(DriveRunner drive, Slice slice, boolean more) {
        inSlice = false;
        drive.adminDone(labelOk);
        if (more) {
            slice.yielded();
        } else {
            slice.finished();
        }
    }

    @Override
    public void failed(TapeFault fault) {
        inSlice = false;
        if (writes.target() != null) {
            writes.targetFailed(fault);
        } else {
            end(RepackJob.FAILED, "cannot mount " + job.source() + ": " + fault.getMessage());
        }
    }

    @Override
    public void dropped(String why) {
        if (CANCELLED.equals(why)) {
            cancelled();
        } else {
            end(RepackJob.FAILED, why);
        }
    }

    /**
     * Cancels: a queued repack or one waiting for a target ends at once, a running one at its next boundary, a
     * preparing one when prepared.
     */
    void cancel() {
        if (ctx.background().remove(this) || writes.stopWaiting()) {
            cancelled();
        } else {
            cancelRequested = true;
        }
    }

    boolean cancelRequested() {
        return cancelRequested;
    }

    boolean inSlice() {
        return inSlice;
    }

    // ---------------------------------------------------------------- reading

    /** The next units to read: as many as fit the spool (at least one). */
    private void startBatch() {
        batchEnd = nextUnit;
        long bytes = 0;
        while (batchEnd < units.size()) {
            long more = units.get(batchEnd).liveBytes();
            if (batchEnd > nextUnit && bytes + more > ctx.spoolBytes()) {
                break;
            }
            bytes += more;
            batchEnd++;
        }
    }

    private void readNext(DriveRunner drive, Slice slice) {
        while (nextUnit < batchEnd && allSpooled(units.get(nextUnit))) {
            for (FileRecord f : units.get(nextUnit).members()) {
                spooled.put(f.pnfsid(), f);
            }
            nextUnit++;
        }
        if (nextUnit == batchEnd) {
            batchRead(drive, slice);
            return;
        }
        RepackPlan.Unit unit = units.get(nextUnit);
        SpoolSink sink = new SpoolSink(unit.members(), unit.start(), spool, job.source());
        String id = drive.id();
        long skip = unit.start() % unit.aggregate().blockSize();
        drive.backgroundActivity("repack: reading " + unit.members().size() + " file(s) from "
                + job.source() + " tape file " + unit.aggregate().tapeFile());
        ctx.library().locate(id, unit.members().get(0).block(), new Completion<>() {
            @Override
            public void succeeded(Void v) {
                ctx.library().read(id, skip, unit.span(), () -> sink, new Completion<>() {
                    @Override
                    public void succeeded(Long n) {
                        sink.assumeDelivered(n);
                        closeThen(sink, () -> unitRead(drive, slice, unit, sink, null));
                    }

                    @Override
                    public void failed(TapeFault fault) {
                        closeThen(sink, () -> unitRead(drive, slice, unit, sink, fault));
                    }
                });
            }

            @Override
            public void failed(TapeFault fault) {
                closeThen(sink, () -> unitRead(drive, slice, unit, sink, fault));
            }
        });
    }

    private boolean allSpooled(RepackPlan.Unit unit) {
        for (FileRecord f : unit.members()) {
            if (!alreadySpooled.contains(f.pnfsid())) {
                return false;
            }
        }
        return true;
    }

    /** Closes the sink off the loop (it forces files and the directory), then goes on on the loop. */
    private void closeThen(SpoolSink sink, Runnable then) {
        ctx.io().execute(() -> {
            sink.close();
            ctx.loop().execute(then);
        });
    }

    private void unitRead(DriveRunner drive, Slice slice, RepackPlan.Unit unit, SpoolSink sink, TapeFault fault) {
        if (fault != null && fault.kind() != FaultKind.MEDIA && fault.kind() != FaultKind.NOT_FOUND) {
            stop(drive, slice, fault);
            return;
        }
        for (int i = 0; fault == null && i < unit.members().size(); i++) {
            if (sink.spoolProblem(i)) {
                // the disk's problem, not the file's: stop, the file stays on the source for the next run
                stop(drive, slice, new TapeFault(FaultKind.TARGET, "the spool cannot keep "
                        + unit.members().get(i).pnfsid() + ": " + sink.problem(i)));
                return;
            }
        }
        String damage = null;
        for (int i = 0; i < unit.members().size(); i++) {
            FileRecord f = unit.members().get(i);
            if (sink.spooled(i)) {
                spooled.put(f.pnfsid(), f);
                if (sink.withoutBytes()) {
                    withoutCopy.add(f.pnfsid());
                }
                alreadySpooled.remove(f.pnfsid()); // read in this run: a bad copy now is the tape's problem
            } else {
                // a media error, a checksum that differs, or a tape file that ends early: the tape's problem
                String why = fault != null ? fault.getMessage() : sink.problem(i);
                fail(f, "not read from " + job.source() + " tape file " + f.tapeFile() + ": " + why);
                damage = f.pnfsid() + ": " + why;
            }
        }
        if (damage != null) {
            suspect(damage);
        }
        nextUnit++;
        next(drive, slice, false);
    }

    /** The source showed a media error or a bad copy: it is read-only from now on. */
    private void suspect(String why) {
        CartridgeRecord c = ctx.cartridges().get(job.source());
        if (c != null && c.state() != CartridgeState.SUSPECT) {
            ctx.queues().updateCartridge(c.withState(CartridgeState.SUSPECT, "repack: " + why));
        }
    }

    void fail(FileRecord f, String why) {
        LOG.warn("Repack of {}: file {} stays on {}: {}", job.source(), f.pnfsid(), job.source(), why);
        failed.add(new VerifyReport.FileResult(f.pnfsid(), f.tapeFile(), why));
    }

    /** The batch is read: write it, or go on reading, or finish. */
    private void batchRead(DriveRunner drive, Slice slice) {
        if (!spooled.isEmpty()) {
            state = "preparing";
            release(drive, slice, false);
            writes.prepare(new ArrayList<>(spooled.values()));
        } else if (nextUnit < units.size()) {
            startBatch();
            readNext(drive, slice);
        } else {
            release(drive, slice, false);
            finish();
        }
    }

    /** Every file of the batch was written or failed: read the next batch, or finish. */
    void batchWritten() {
        if (nextUnit < units.size()) {
            startBatch();
            state = RepackJob.QUEUED;
            ctx.background().submit(this);
        } else {
            finish();
        }
    }

    /** Whether {@code f}'s spool copy was found at the start (a resumed repack) rather than read in this run. */
    boolean resumedCopy(FileRecord f) {
        return alreadySpooled.contains(f.pnfsid());
    }

    /**
     * Resumed spool copies that failed their check: removed from the spool (off the loop), then each read again
     * from the source as a unit of its own at the end of the plan; {@code then} runs on the loop afterwards.
     */
    void readAgain(List<FileRecord> files, Runnable then) {
        List<String> ids = new ArrayList<>(files.size());
        List<RepackPlan.Unit> again = new ArrayList<>(files.size());
        for (FileRecord f : files) {
            alreadySpooled.remove(f.pnfsid());
            ids.add(f.pnfsid());
            for (RepackPlan.Unit u : plan.units()) {
                if (u.members().contains(f)) {
                    again.add(new RepackPlan.Unit(u.aggregate(), List.of(f)));
                    break;
                }
            }
        }
        ctx.io().execute(() -> {
            try {
                spool.remove(job.source(), ids);
            } catch (IOException e) {
                LOG.warn("Repack of {}: cannot remove {} bad spool copies (replaced when read again): {}",
                        job.source(), ids.size(), e.toString());
            }
            ctx.loop().execute(() -> {
                units.addAll(again);
                then.run();
            });
        });
    }

    /** Files committed on {@code target}: their spool copies go. */
    void committed(Collection<FileRecord> files) {
        List<String> ids = new ArrayList<>(files.size());
        for (FileRecord f : files) {
            spooled.remove(f.pnfsid());
            withoutCopy.remove(f.pnfsid());
            ids.add(f.pnfsid());
            filesDone++;
            bytesDone += f.size();
        }
        ctx.io().execute(() -> {
            try {
                spool.remove(job.source(), ids);
            } catch (IOException e) {
                LOG.warn("Repack of {}: cannot remove {} spool copies (removed when the spool is opened again): {}",
                        job.source(), ids.size(), e.toString());
            }
        });
    }

    // ---------------------------------------------------------------- ending

    /**
     * The reason an emptied source is marked {@code EMPTY} with, or null if it must not be: only a cartridge closed
     * ({@code FULL}) or {@code SUSPECT} is, never one that is appendable again (relabelled meanwhile). A SUSPECT
     * one keeps that fact in its reason, so a relabel asks for --force before it returns to the scratch pool.
     */
    private String emptiedReason(CartridgeRecord c) {
        String repacked = "repacked to family " + job.targetFamily();
        if (c.state() == CartridgeState.SUSPECT) {
            return Relabels.WAS_SUSPECT + " (" + c.reason() + "), " + repacked;
        }
        if (c.state() == CartridgeState.EMPTY && c.reason() != null && c.reason().startsWith(Relabels.WAS_SUSPECT)) {
            return c.reason(); // the catalog write already marked it
        }
        return c.state() == CartridgeState.FULL || c.state() == CartridgeState.EMPTY ? repacked : null;
    }

    /**
     * Everything was read and written: waits until no write to the source is under way (a flush or another
     * repack that began before the source was closed, see {@code Cartridges#writing}), then counts what is still
     * live on the source, marks it {@code EMPTY} only if nothing is, and records the job as done, in one catalog
     * task. Files that landed on the source after the plan was read are reported as left on it, not as moved.
     */
    private void finish() {
        state = "finishing";
        String source = job.source();
        if (ctx.cartridges().writing(source) > 0) {
            LOG.info("Repack of {}: waiting for {} writes to it begun before it was closed", source,
                    ctx.cartridges().writing(source));
            ctx.cartridges().whenNoWrites(source, this::finish);
            return;
        }
        ctx.writer().submit(CatalogWriter.Kind.CARTRIDGE, () -> {
            int left = ctx.catalog().files(source).size();
            String summary = left == 0 && failed.isEmpty() ? "all " + job.filesTotal() + " files moved"
                    : left == failed.size() ? failedSummary()
                    : left + " live files still on " + source + (failed.isEmpty() ? "" : ", " + failedSummary())
                    + ": repack it again";
            CartridgeRecord c = ctx.catalog().cartridge(source).orElse(null);
            String reason = c == null ? null : emptiedReason(c);
            boolean empties = left == 0 && reason != null;
            if (empties) {
                ctx.catalog().putCartridge(c.withState(CartridgeState.EMPTY, reason));
            }
            ctx.catalog().putRepackJob(job.ended(RepackJob.DONE, ctx.loop().now(), failed.size(), summary));
            return new Ended(empties ? c : null, left, summary);
        }, new CatalogWriter.Done<Ended>() {
            @Override
            public void succeeded(Ended e) {
                if (e.emptied() != null) {
                    ctx.queues().refreshCartridge(e.emptied());
                    CartridgeRecord now = ctx.cartridges().get(source);
                    if (now != null && emptiedReason(now) != null) {
                        ctx.queues().updateCartridge(now.withState(CartridgeState.EMPTY, emptiedReason(now)));
                    }
                    emptied = true;
                }
                LOG.info("Repack of {}: {} of {} files moved to family {}, {} failed, {} live files left{}", source,
                        movedBefore + filesDone, job.filesTotal(), job.targetFamily(), failed.size(), e.left(),
                        emptied ? "; the cartridge is EMPTY" : "");
                clearSpool();
                markEnded(RepackJob.DONE, e.left() == 0 && failed.isEmpty() ? null : e.summary());
            }

            @Override
            public void failed(RuntimeException e) {
                end(RepackJob.FAILED, "cannot record the end of the repack of " + source + ": " + e.getMessage());
            }
        });
    }

    /** The end as the catalog saw it: the record marked EMPTY (or null), live files left, the summary. */
    private record Ended(CartridgeRecord emptied, int left, String summary) {
    }

    private String failedSummary() {
        List<String> named = new ArrayList<>();
        for (int i = 0; i < Math.min(VerifyReport.LISTED, failed.size()); i++) {
            named.add(failed.get(i).pnfsid());
        }
        return failed.size() + " files stay on " + job.source() + " (" + String.join(", ", named)
                + (failed.size() > named.size() ? " and " + (failed.size() - named.size()) + " more" : "")
                + "; each in the log)";
    }

    /** A fault that is not the files': the repack stops, the spool is kept for a later run. */
    void stop(DriveRunner drive, Slice slice, TapeFault fault) {
        LOG.warn("Repack of {} stopped: {}", job.source(), fault.toString());
        release(drive, slice, false);
        end(RepackJob.FAILED, fault.getMessage());
    }

    void cancelled() {
        LOG.warn("Repack of {} ended: {} after {} of {} files", job.source(), CANCELLED, movedBefore + filesDone,
                job.filesTotal());
        clearSpool();
        end(RepackJob.CANCELLED, CANCELLED);
    }

    private void clearSpool() {
        String source = job.source();
        ctx.io().execute(() -> {
            try {
                spool.clear(source);
            } catch (IOException e) {
                LOG.warn("Repack of {}: cannot remove its spool directory: {}", source, e.toString());
            }
        });
    }

    /** Ends the repack and records it so in the catalog (not resumed at the next start). */
    void end(String endState, String why) {
        markEnded(endState, why);
        RepackJob record = job.ended(endState, ended, failed.size(), why);
        ctx.writer().submit(CatalogWriter.Kind.CARTRIDGE, () -> ctx.catalog().putRepackJob(record),
                "record the end of the repack of " + job.source());
    }

    private void markEnded(String endState, String why) {
        state = endState;
        error = why;
        ended = ctx.loop().now();
        job = job.ended(endState, ended, failed.size(), why);
        onEnded.run();
    }

    /** A fault while writing: what {@link FaultReactions} says a flush's write fault does to the cartridge. */
    void targetFault(String barcode, TapeFault fault) {
        FaultReactions.Reaction r = FaultReactions.of(FaultReactions.Operation.WRITE, fault.kind());
        CartridgeRecord c = ctx.cartridges().get(barcode);
        if (c == null) {
            return;
        }
        switch (r.cartridge()) {
            case FULL -> ctx.queues().updateCartridge(c.withState(CartridgeState.FULL, "tape full: "
                    + fault.getMessage()));
            case SUSPECT -> ctx.queues().updateCartridge(c.withState(CartridgeState.SUSPECT, "write error: "
                    + fault.getMessage()));
            default -> {
            }
        }
    }
}
