package org.tapeq.scheduler.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.engine.drive.AggregateFormat;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.fault.FaultReactions;
import org.tapeq.scheduler.engine.queue.FlushItem;
import org.tapeq.scheduler.engine.queue.PendingAggregate;
import org.tapeq.scheduler.engine.queue.WorkQueue;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.format.AggregatePlan;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeFault;

/**
 * Collects flushes into aggregates per tape family and dataset. An aggregate closes when it reaches the
 * target size or file count, or when its first file has waited the maximum time; a single file at least
 * the target size is an aggregate of its own. A closed aggregate is checked off the loop (each source file
 * exists and has its size; one without an announced Adler-32 is read for it, an announced one is compared as the
 * write streams the file), then queued for writing: on a cartridge that holds its
 * dataset if one has room (looked up on the catalog writer once per dataset), else on its family's queue. A
 * member that fails the check fails alone; a failed write puts the aggregate back or fails its members, as
 * {@link FaultReactions} says.
 */
final class Aggregator {

    private static final Logger LOG = LoggerFactory.getLogger(Aggregator.class);

    private final Engine engine;
    private final Map<String, PendingAggregate> open = new HashMap<>();
    /** Family and dataset to the cartridges holding it, most recent first; filled from the catalog on demand. */
    private final Map<String, List<String>> datasetCartridges = new HashMap<>();

    Aggregator(Engine engine) {
        this.engine = engine;
    }

    private static String key(String family, String dataset) {
        return family + '\n' + dataset;
    }

    void add(FlushItem item) {
        String key = key(item.family(), item.dataset());
        PendingAggregate agg = open.get(key);
        if (agg == null) {
            agg = new PendingAggregate(item.family(), item.dataset(), item.request().group(), engine.loop.now());
            PendingAggregate created = agg;
            agg.closeAt(engine.loop.schedule(engine.tuning.aggregateWaitMillis(), () -> close(created)));
            open.put(key, agg);
        }
        agg.add(item);
        if (agg.bytes() >= engine.tuning.aggregateBytes() || agg.members().size() >= engine.tuning.aggregateFiles()) {
            close(agg);
        }
    }

    /** Open aggregates, for status. */
    Map<String, PendingAggregate> open() {
        return open;
    }

    void cancelled(FlushItem item) {
        ended(item, new Outcome.Cancelled());
    }

    /** Ends a waiting flush with {@code outcome} (one being written is reported when the write ends). */
    void ended(FlushItem item, Outcome outcome) {
        PendingAggregate agg = item.aggregate();
        if (agg != null && agg.writing()) {
            return; // reported when the write ends
        }
        engine.ends.finish(item, outcome);
        if (agg != null && !agg.closed() && agg.liveBytes() == 0 && agg.live().isEmpty()) {
            open.remove(key(agg.family(), agg.dataset()));
            agg.cancelCloseTimer();
        }
    }

    private void close(PendingAggregate agg) {
        close(agg, AggregatePlan.ChecksumCheck.WHILE_WRITING);
    }

    /**
     * Closes {@code agg} and checks its members off the loop: their announced Adler-32 compared as the write
     * streams them ({@code WHILE_WRITING}, each file read once, by the write), or, after a write failed on a
     * source, read here first ({@code BEFORE_WRITE}) so that the bad member fails alone.
     */
    private void close(PendingAggregate agg, AggregatePlan.ChecksumCheck check) {
        if (!agg.close()) {
            return;
        }
        open.remove(key(agg.family(), agg.dataset()), agg);
        List<FlushItem> members = agg.live();
        if (members.isEmpty()) {
            return;
        }
        long now = engine.loop.now();
        int blockSize = engine.library.blockSize();
        engine.io.execute(() -> {
            AggregateFormat.Checked checked = AggregateFormat.prepare(agg, members, now, blockSize, check);
            engine.loop.execute(() -> prepared(agg, checked));
        });
    }

    /** The check is done: rejected members fail alone (a {@code PREPARE} fault fails at once). */
    private void prepared(PendingAggregate agg, AggregateFormat.Checked checked) {
        agg.prepared(checked.plan());
        for (Map.Entry<FlushItem, TapeFault> e : checked.rejected().entrySet()) {
            FlushItem item = e.getKey();
            LOG.warn("[{}] flush rejected: {}", item.request().pnfsid(), e.getValue().getMessage());
            engine.fault(e.getValue().kind(), null, null, "flush " + item.request().pnfsid() + " rejected: "
                    + e.getValue().getMessage());
            engine.ends.finish(item, engine.ends.failed(e.getValue().kind(), e.getValue().getMessage(), 1));
        }
        agg.recount();
        if (agg.live().isEmpty()) {
            return;
        }
        queueWrite(agg, false);
    }

    /** A closed, prepared aggregate goes to a cartridge holding its dataset if one has room, else to its family. */
    private void queueWrite(PendingAggregate agg, boolean front) {
        if (agg.dataset().isEmpty()) {
            queueWrite(agg, front, List.of());
        } else {
            withCartridgesHolding(agg.family(), agg.dataset(), holding -> queueWrite(agg, front, holding));
        }
    }

    /** Whether the cartridge sits in a drive out of service (its mover unreachable, an unload failed). */
    private boolean stuck(String barcode) {
        for (DriveRunner d : engine.dispatcher.drives()) {
            if (d.isDown() && barcode.equals(d.mounted())) {
                return true;
            }
        }
        return false;
    }

    private void queueWrite(PendingAggregate agg, boolean front, List<String> holding) {
        String target = null;
        for (String barcode : holding) {
            CartridgeRecord c = engine.cartridges.get(barcode);
            if (c != null && engine.cartridges.writable(c, agg.liveBytes()) && !stuck(barcode)) {
                target = barcode;
                break;
            }
        }
        WorkQueue q = target != null ? engine.queues.cartridgeQueue(target, agg.group())
                : engine.queues.familyQueue(agg.family(), agg.group());
        if (front) {
            q.addWriteFirst(agg);
        } else {
            q.addWrite(agg);
        }
        if (q.isHeld()) {
            q.holder().workArrived();
        } else {
            engine.queues.index().update(q);
            if (q.isFamilyQueue()) {
                for (DriveRunner d : engine.dispatcher.drives()) {
                    d.workArrived();
                }
            }
        }
        engine.requestDispatch();
    }

    /**
     * Gives {@code then} the cartridges holding live files of this dataset, most recently written first: from
     * the cache, or looked up on the catalog writer (after the writes before it) and cached.
     */
    private void withCartridgesHolding(String family, String dataset, Consumer<List<String>> then) {
        String key = key(family, dataset);
        List<String> known = datasetCartridges.get(key);
        if (known != null) {
            then.accept(known);
            return;
        }
        engine.writer.submit(CatalogWriter.Kind.READ, () -> engine.catalog.cartridgesHoldingDataset(family, dataset),
                new CatalogWriter.Done<List<String>>() {
                    @Override
                    public void succeeded(List<String> found) {
                        then.accept(datasetCartridges.computeIfAbsent(key, k -> new ArrayList<>(found)));
                    }

                    @Override
                    public void failed(RuntimeException e) {
                        LOG.warn("Cannot look up cartridges of dataset {} in family {}: {}", dataset, family,
                                e.getMessage());
                        then.accept(datasetCartridges.computeIfAbsent(key, k -> new ArrayList<>()));
                    }
                });
    }

    /** An aggregate of this dataset was committed on this cartridge: it comes first. */
    void written(String family, String dataset, String barcode) {
        withCartridgesHolding(family, dataset, list -> {
            list.remove(barcode);
            list.add(0, barcode);
        });
    }

    /** Deletes may have emptied a dataset from a cartridge: look it up again next time. */
    void forgetDatasets() {
        datasetCartridges.clear();
    }

    /**
     * A failed write: the {@code WRITE} row of {@link FaultReactions} for the aggregate's members; one failed
     * because its drive's mover was lost ({@code moverLost}) is queued again at once, not counted as an attempt.
     */
    void writeFailed(PendingAggregate agg, TapeFault fault, boolean moverLost) {
        FaultReactions.Requests reaction = moverLost ? FaultReactions.Requests.RETRY_UNCOUNTED
                : FaultReactions.of(FaultReactions.Operation.WRITE, fault.kind()).requests();
        boolean counted = reaction != FaultReactions.Requests.RETRY_UNCOUNTED;
        agg.writing(false);
        if (counted) {
            agg.failedAttempt(); // a full tape is not the data's fault
        }
        if (agg.attempts() >= engine.tuning.maxAttempts() || reaction == FaultReactions.Requests.FAIL) {
            for (FlushItem m : agg.members()) {
                if (m.cancelled()) {
                    engine.ends.finish(m, new Outcome.Cancelled());
                } else {
                    engine.ends.finish(m, engine.ends.failed(fault.kind(), "cannot flush " + m.request().pnfsid()
                            + " after " + agg.attempts() + " attempt(s): " + fault.getMessage(), agg.attempts()));
                }
            }
            return;
        }
        if (reaction == FaultReactions.Requests.RECHECK) {
            // A file changed while it was written: check the members again; the bad ones fail alone.
            agg.reopen();
            close(agg, AggregatePlan.ChecksumCheck.BEFORE_WRITE);
            return;
        }
        agg.recount();
        long now = engine.loop.now();
        if (counted) {
            agg.notBefore(now + (engine.config.retryBackoffMillis() << (agg.attempts() - 1)));
        }
        WorkQueue fq = engine.queues.familyQueue(agg.family(), agg.group());
        fq.retryNotBefore(Math.max(fq.retryNotBefore(), now + (counted ? engine.config.retryBackoffMillis() : 0)));
        queueWrite(agg, true);
    }
}
