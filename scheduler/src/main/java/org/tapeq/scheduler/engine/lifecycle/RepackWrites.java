package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.engine.drive.BackgroundTask;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.drive.MemberChecksums;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.format.AggregateMember;
import org.tapeq.scheduler.format.AggregatePlan;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The write half of a {@link RepackTask}: the spooled files of a batch grouped by dataset into aggregates (within
 * the current {@code aggregateBytes}/{@code aggregateFiles}), each checked again from the spool off the loop
 * ({@link AggregatePlan#prepare}: size and Adler-32 against the catalog), written to a target cartridge, read
 * back and compared with its manifest, then committed ({@code Catalog#commitRepacked}).
 *
 * <p>Design notes. A target is an appendable, enabled cartridge of the target family (and of the target media
 * type, when the repack names one) other than the source, with room for the aggregate: first one the catalog says holds the dataset (co-location, most recently written
 * first, and any this repack wrote the dataset to), then the one being written, then the fullest (fewest
 * mounts overall). Never a cartridge {@link Repacks#mayTarget} rules out: one another running repack is writing
 * to (two repacks on one target would wait on each other's mount; this one waits, {@link #TARGET_WAIT_MILLIS} at a
 * time, while the only cartridges left are other repacks' targets, and takes one of them only after a write fault)
 * or one on the media a running migration is moving off. A write fault is a flush's write fault for that cartridge ({@code FaultReactions}: a full tape
 * is closed, a media error makes it {@code SUSPECT}); the aggregate is then written elsewhere, at most
 * {@link #WRITE_ATTEMPTS} times in all. Nothing of the aggregate is committed before its read-back matched.
 */
final class RepackWrites {

    private static final Logger LOG = LoggerFactory.getLogger(RepackWrites.class);
    /** The state of a repack whose spool batch waits until a cartridge that would do is no other repack's target. */
    static final String WAITING_FOR_TARGET = "waiting for a target";
    /** Writes of one aggregate (each on a target chosen again) before the repack stops. */
    static final int WRITE_ATTEMPTS = 3;
    /** How long a repack whose only possible targets are other repacks' waits before it looks again. */
    static final long TARGET_WAIT_MILLIS = 10_000;

    private final RepackTask task;
    private final LifecycleContext ctx;
    /** The target of the append under way, counted in {@code Cartridges#writing}, or null. */
    private String writingTo;
    /** Dataset ("" for none) to the target family's cartridges holding it, preferred first. */
    private final Map<String, List<String>> colocated;
    private final Deque<Chunk> chunks = new ArrayDeque<>();
    /** Targets that could not be mounted in this repack. */
    private final Set<String> avoid = new HashSet<>();
    private String target;
    /** The next look for a target while {@link #WAITING_FOR_TARGET}, or null. */
    private EventLoop.Timer waitTimer;

    /** One aggregate to write. */
    private static final class Chunk {
        final String dataset;
        final List<FileRecord> files = new ArrayList<>();
        long bytes;
        AggregatePlan plan;
        int attempts;

        Chunk(String dataset) {
            this.dataset = dataset;
        }
    }

    RepackWrites(RepackTask task, Map<String, List<String>> colocated) {
        this.task = task;
        this.ctx = task.ctx;
        this.colocated = new LinkedHashMap<>(colocated);
    }

    /** The cartridge the next aggregate goes to, or null while reading. */
    String target() {
        return target;
    }

    /**
     * The target, chosen again if it can no longer take the next aggregate (disabled, closed or full meanwhile),
     * so that a task waiting for a drive does not wait for a cartridge it will not write; unchanged if no other
     * will do (the write then ends the repack saying so). Asked by the dispatcher between slices.
     */
    String usableTarget() {
        Chunk c = chunks.peek();
        if (target == null || c == null) {
            return target;
        }
        CartridgeRecord t = ctx.cartridges().get(target);
        if (t == null || !ctx.cartridges().writable(t, c.plan.length())) {
            String other = choose(c, false);
            if (other != null) {
                target = other;
            }
        }
        return target;
    }

    /** Groups a read batch into aggregates and checks them from the spool, off the loop; no drive is held. */
    void prepare(List<FileRecord> batch) {
        long maxBytes = ctx.aggregateBytes().getAsLong();
        int maxFiles = ctx.aggregateFiles().getAsInt();
        Map<String, List<Chunk>> byDataset = new LinkedHashMap<>();
        for (FileRecord f : batch) {
            String ds = f.dataset() == null ? "" : f.dataset();
            List<Chunk> list = byDataset.computeIfAbsent(ds, k -> new ArrayList<>());
            Chunk last = list.isEmpty() ? null : list.get(list.size() - 1);
            if (last == null || (!last.files.isEmpty() && (last.bytes + f.size() > maxBytes
                    || last.files.size() >= maxFiles))) {
                last = new Chunk(ds);
                list.add(last);
            }
            last.files.add(f);
            last.bytes += f.size();
        }
        List<Chunk> all = new ArrayList<>();
        byDataset.values().forEach(all::addAll);
        long now = ctx.loop().now();
        int blockSize = ctx.library().blockSize();
        String family = task.family();
        String source = task.source();
        Set<String> copyless = Set.copyOf(task.withoutCopy); // size-only: taken as catalogued, no source to read
        ctx.io().execute(() -> {
            List<AggregatePlan.Prepared> results = new ArrayList<>(all.size());
            for (Chunk c : all) {
                List<AggregateMember> members = new ArrayList<>(c.files.size());
                for (FileRecord f : c.files) {
                    members.add(new AggregateMember(f.pnfsid(), f.size(), f.checksum(), f.storageClass(), f.path(),
                            f.dataset(), copyless.contains(f.pnfsid()) ? null : task.spool.file(source, f.pnfsid())));
                }
                results.add(AggregatePlan.prepare("", family, c.dataset.isEmpty() ? null : c.dataset, now, members,
                        blockSize));
            }
            ctx.loop().execute(() -> prepared(all, results));
        });
    }

    private void prepared(List<Chunk> all, List<AggregatePlan.Prepared> results) {
        List<FileRecord> readAgain = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            Chunk c = all.get(i);
            AggregatePlan.Prepared p = results.get(i);
            for (AggregatePlan.Rejected r : p.rejected()) {
                FileRecord f = task.spooled.remove(r.member().pnfsid());
                c.files.remove(f);
                if (task.resumedCopy(f)) {
                    // a copy left by an earlier run: the source still has the file, read it again
                    LOG.warn("Repack of {}: the spool copy of {} left by an earlier run failed its check, read again"
                            + " from the source: {}", task.source(), f.pnfsid(), r.fault().getMessage());
                    readAgain.add(f);
                } else {
                    task.fail(f, "its spool copy failed the check before writing: " + r.fault().getMessage());
                }
            }
            if (!p.plan().members().isEmpty()) {
                c.plan = p.plan();
                chunks.add(c);
            }
        }
        if (!readAgain.isEmpty()) {
            task.readAgain(readAgain, this::preparedGoOn);
        } else {
            preparedGoOn();
        }
    }

    private void preparedGoOn() {
        if (task.cancelRequested()) {
            chunks.clear();
            task.dropped(RepackTask.CANCELLED);
            return;
        }
        nextTarget();
    }

    /** Chooses the target of the next aggregate and queues the task for a drive; at the end, the next batch. */
    private void nextTarget() {
        if (chunks.isEmpty()) {
            target = null;
            task.batchWritten();
            return;
        }
        target = choose(chunks.peek(), false);
        if (target == null && choose(chunks.peek(), true) != null) {
            waitForTarget();
            return;
        }
        if (target == null) {
            task.end("failed", noTarget(chunks.peek()));
            return;
        }
        task.state = "queued";
        ctx.background().submit(task);
    }

    /** Every cartridge that would do is another repack's target: looks again later, holding no drive. */
    private void waitForTarget() {
        task.state = WAITING_FOR_TARGET;
        waitTimer = ctx.loop().schedule(TARGET_WAIT_MILLIS, () -> {
            waitTimer = null;
            if (task.ended()) {
                return;
            }
            if (task.cancelRequested()) {
                task.cancelled();
                return;
            }
            nextTarget();
        });
    }

    /** Stops waiting for a target (a cancel): true if it was waiting, the task then holds nothing to finish. */
    boolean stopWaiting() {
        if (waitTimer == null) {
            return false;
        }
        waitTimer.cancel();
        waitTimer = null;
        return true;
    }

    private String noTarget(Chunk c) {
        String media = task.job().targetMedia();
        return "no appendable, enabled cartridge of family " + task.family() + (media == null ? "" : " and media "
                + media) + " other than " + task.source()
                + " has room for " + c.plan.length() + " bytes: label one for the family (tapeq cartridge label)"
                + " and ask again; " + task.spooled.size() + " files stay in the spool and on " + task.source();
    }

    /** After a fault: a target no other repack writes to, else one another repack writes to. */
    private String chooseAfterFault(Chunk c) {
        String free = choose(c, false);
        return free != null ? free : choose(c, true);
    }

    /** The best target for the chunk; {@code shared}: also one another running repack is writing to. */
    private String choose(Chunk c, boolean shared) {
        List<String> holding = colocated.getOrDefault(c.dataset, List.of());
        Comparator<CartridgeRecord> order = Comparator
                .comparingInt((CartridgeRecord r) -> holding.contains(r.barcode()) ? holding.indexOf(r.barcode())
                        : Integer.MAX_VALUE)
                .thenComparing(r -> !r.barcode().equals(target))
                .thenComparingLong(CartridgeRecord::freeBytes)
                .thenComparing(CartridgeRecord::barcode);
        CartridgeRecord best = null;
        for (CartridgeRecord r : ctx.cartridges().all()) {
            if (task.family().equals(r.family()) && !r.barcode().equals(task.source())
                    && Repacks.ofMedia(r, task.job().targetMedia())
                    && !avoid.contains(r.barcode()) && ctx.cartridges().writable(r, c.plan.length())
                    && task.repacks.mayTarget(task, r, shared)
                    && (best == null || order.compare(r, best) < 0)) {
                best = r;
            }
        }
        return best == null ? null : best.barcode();
    }

    /** On a drive holding {@link #target()}: writes the next aggregate, or ends the batch. */
    void writeNext(DriveRunner drive, BackgroundTask.Slice slice) {
        Chunk c = chunks.peek();
        if (c == null) {
            target = null;
            task.release(drive, slice, false);
            task.batchWritten();
            return;
        }
        CartridgeRecord t = ctx.cartridges().get(target);
        if (t == null || !ctx.cartridges().writable(t, c.plan.length()) || t.barcode().equals(task.source())) {
            target = choose(c, false);
            if (target == null && choose(c, true) != null) {
                task.release(drive, slice, false);
                waitForTarget();
                return;
            }
            if (target == null) {
                task.release(drive, slice, false);
                task.end("failed", noTarget(c));
                return;
            }
        }
        if (!target.equals(drive.mounted())) {
            task.state = "queued";
            task.release(drive, slice, true);
            return;
        }
        ctx.writer().submit(CatalogWriter.Kind.READ, () -> {
            ctx.catalog().checkWritable();
            return null;
        }, new CatalogWriter.Done<>() {
            @Override
            public void succeeded(Object v) {
                append(drive, slice, c);
            }

            @Override
            public void failed(RuntimeException e) {
                task.stop(drive, slice, new TapeFault(FaultKind.CATALOG, "not written to " + target
                        + ": the catalog check before the write failed: " + e.getMessage(), e));
            }
        });
    }

    private void append(DriveRunner drive, BackgroundTask.Slice slice, Chunk c) {
        String barcode = target;
        writeBegun(barcode);
        AggregatePlan plan = c.plan.relayout(barcode, m -> true);
        drive.backgroundActivity("repack: writing " + plan.members().size() + " files (" + plan.length()
                + " bytes) of " + task.source() + " to " + barcode);
        String id = drive.id();
        ctx.library().append(id, plan.source(), new Completion<>() {
            @Override
            public void succeeded(WrittenFile written) {
                long blocks = plan.blockCount(ctx.library().blockSize());
                if (written.bytes() != plan.length() || written.blockCount() != blocks) {
                    writeFault(drive, slice, c, new TapeFault(FaultKind.MEDIA, "drive " + id + " reports "
                            + written.bytes() + " bytes in " + written.blockCount() + " blocks for tape file "
                            + written.fileNumber() + " on " + barcode + ", expected " + plan.length() + " in "
                            + blocks));
                    return;
                }
                readBack(drive, slice, c, plan, written);
            }

            @Override
            public void failed(TapeFault fault) {
                writeFault(drive, slice, c, fault);
            }
        });
    }

    /** Reads the new tape file back and compares every member with the manifest before anything is committed. */
    private void readBack(DriveRunner drive, BackgroundTask.Slice slice, Chunk c, AggregatePlan plan,
                          WrittenFile written) {
        List<MemberChecksums.Member> members = new ArrayList<>();
        for (int i = 0; i < plan.members().size(); i++) {
            members.add(new MemberChecksums.Member(plan.offsetOf(i), plan.members().get(i).size(),
                    plan.members().get(i).checksum()));
        }
        MemberChecksums sums = new MemberChecksums(members);
        String id = drive.id();
        Completion<Long> read = new Completion<>() {
            @Override
            public void succeeded(Long n) {
                String mismatch = sums.mismatch(n, plan.length());
                if (mismatch != null) {
                    writeFault(drive, slice, c, new TapeFault(FaultKind.MEDIA, "read-back of tape file "
                            + written.fileNumber() + " on " + target + ": " + mismatch));
                } else {
                    commit(drive, slice, c, plan, written);
                }
            }

            @Override
            public void failed(TapeFault fault) {
                writeFault(drive, slice, c, fault);
            }
        };
        ctx.library().locate(id, written.startBlock(), new Completion<>() {
            @Override
            public void succeeded(Void v) {
                ctx.library().read(id, 0, plan.length(), () -> sums, read);
            }

            @Override
            public void failed(TapeFault fault) {
                writeFault(drive, slice, c, fault);
            }
        });
    }

    private void commit(DriveRunner drive, BackgroundTask.Slice slice, Chunk c, AggregatePlan plan,
                        WrittenFile written) {
        String barcode = target;
        String source = task.source();
        int bs = ctx.library().blockSize();
        long now = ctx.loop().now();
        AggregateRecord aggregate = plan.manifest().toAggregateRecord(barcode, written.fileNumber(),
                written.startBlock(), bs, now);
        List<FileRecord> files = plan.manifest().toFileRecords(barcode, written.fileNumber(), written.startBlock(),
                bs);
        ctx.writer().submit(CatalogWriter.Kind.COMMIT, () -> {
            ctx.catalog().commitRepacked(aggregate, files, source, now);
            return List.of(ctx.catalog().cartridge(barcode).orElseThrow(),
                    ctx.catalog().cartridge(source).orElseThrow());
        }, new CatalogWriter.Done<List<CartridgeRecord>>() {
            @Override
            public void succeeded(List<CartridgeRecord> after) {
                writeEnded();
                after.forEach(ctx.queues()::refreshCartridge);
                LOG.info("Repack of {}: {} files ({} bytes) moved to {} tape file {}", source, files.size(),
                        plan.length(), barcode, written.fileNumber());
                task.committed(c.files);
                List<String> holding = new ArrayList<>(colocated.getOrDefault(c.dataset, List.of()));
                holding.remove(barcode);
                holding.add(0, barcode);
                colocated.put(c.dataset, holding);
                chunks.poll();
                task.next(drive, slice, false);
            }

            @Override
            public void failed(RuntimeException e) {
                // the tape file stays unreferenced (dead space); the files are still on the source and spooled
                writeEnded();
                task.stop(drive, slice, new TapeFault(FaultKind.CATALOG, "tape file " + written.fileNumber()
                        + " written to " + barcode + " but its commit failed: " + e.getMessage(), e));
            }
        });
    }

    /** A write, its check or its read-back failed: the target's reaction, then another attempt elsewhere. */
    private void writeFault(DriveRunner drive, BackgroundTask.Slice slice, Chunk c, TapeFault fault) {
        writeEnded();
        LOG.warn("Repack of {}: writing to {} failed: {}", task.source(), target, fault.toString());
        task.targetFault(target, fault);
        c.attempts++;
        if (c.attempts >= WRITE_ATTEMPTS) {
            task.stop(drive, slice, new TapeFault(fault.kind(), "an aggregate of " + c.files.size() + " files failed "
                    + c.attempts + " writes, the last on " + target + ": " + fault.getMessage(), fault));
            return;
        }
        String next = chooseAfterFault(c);
        if (next == null) {
            task.release(drive, slice, false);
            task.end("failed", noTarget(c));
            return;
        }
        target = next;
        task.state = "queued";
        task.release(drive, slice, true);
    }

    /** The target could not be mounted: another one, or the repack fails. */
    void targetFailed(TapeFault fault) {
        LOG.warn("Repack of {}: cannot mount {}: {}", task.source(), target, fault.toString());
        Chunk c = chunks.peek();
        if (c == null) {
            // the batch's last aggregate was committed before the slice yielded: nothing was left to write there
            target = null;
            task.batchWritten();
            return;
        }
        avoid.add(target);
        c.attempts++;
        String next = c.attempts >= WRITE_ATTEMPTS ? null : chooseAfterFault(c);
        if (next == null) {
            task.end("failed", "cannot mount a target for the repack of " + task.source() + ": "
                    + fault.getMessage());
            return;
        }
        target = next;
        ctx.background().submit(task);
    }

    /** Counts the append to {@code barcode} as a write under way ({@code Cartridges#writeBegun}) until it ends. */
    private void writeBegun(String barcode) {
        writeEnded();
        writingTo = barcode;
        ctx.cartridges().writeBegun(barcode);
    }

    private void writeEnded() {
        if (writingTo != null) {
            ctx.cartridges().writeEnded(writingTo);
            writingTo = null;
        }
    }
}
