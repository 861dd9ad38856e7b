package org.tapeq.scheduler.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeFault;

/**
 * Collects flushes into aggregates per tape family and dataset. An aggregate closes when it reaches the
 * target size or file count, or when its first file has waited the maximum time; a single file at least
 * the target size is an aggregate of its own. A closed aggregate is checked off the loop (each source file
 * exists, has its size, and gets its checksum), then queued for writing. A member that fails the check
 * fails alone.
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
        String key = key(item.family, item.dataset);
        PendingAggregate agg = open.get(key);
        if (agg == null) {
            agg = new PendingAggregate(item.family, item.dataset, item.request.group(), engine.loop.now());
            PendingAggregate created = agg;
            agg.closeTimer = engine.loop.schedule(engine.config.aggregateWaitMillis(), () -> close(created));
            open.put(key, agg);
        }
        agg.add(item);
        if (agg.bytes >= engine.config.aggregateBytes() || agg.members.size() >= engine.config.aggregateFiles()) {
            close(agg);
        }
    }

    /** Open aggregates, for status. */
    Map<String, PendingAggregate> open() {
        return open;
    }

    void cancelled(FlushItem item) {
        PendingAggregate agg = item.aggregate;
        if (agg != null && agg.writing) {
            return; // reported when the write ends
        }
        engine.finish(item, new Outcome.Cancelled());
        if (agg != null && !agg.closed && agg.liveBytes() == 0 && agg.live().isEmpty()) {
            open.remove(key(agg.family, agg.dataset));
            if (agg.closeTimer != null) {
                agg.closeTimer.cancel();
            }
        }
    }

    private void close(PendingAggregate agg) {
        if (agg.closed) {
            return;
        }
        agg.closed = true;
        open.remove(key(agg.family, agg.dataset), agg);
        if (agg.closeTimer != null) {
            agg.closeTimer.cancel();
            agg.closeTimer = null;
        }
        List<FlushItem> members = agg.live();
        if (members.isEmpty()) {
            return;
        }
        long now = engine.loop.now();
        int blockSize = engine.library.blockSize();
        engine.io.execute(() -> {
            AggregateFormat.Checked checked = AggregateFormat.prepare(agg, members, now, blockSize);
            engine.loop.execute(() -> prepared(agg, checked));
        });
    }

    private void prepared(PendingAggregate agg, AggregateFormat.Checked checked) {
        agg.plan = checked.plan();
        for (Map.Entry<FlushItem, TapeFault> e : checked.rejected().entrySet()) {
            FlushItem item = e.getKey();
            LOG.warn("[{}] flush rejected: {}", item.request.pnfsid(), e.getValue().getMessage());
            engine.counters.fault(e.getValue().kind());
            engine.finish(item, engine.failed(e.getValue().kind(), e.getValue().getMessage(), 1));
        }
        agg.prepared = true;
        agg.recount();
        if (agg.live().isEmpty()) {
            return;
        }
        engine.queueWrite(agg, false);
    }

    /** Cartridges holding live files of this dataset, most recently written first. */
    List<String> cartridgesHolding(String family, String dataset) {
        return datasetCartridges.computeIfAbsent(key(family, dataset), k -> {
            try {
                return new ArrayList<>(engine.catalog.cartridgesHoldingDataset(family, dataset));
            } catch (CatalogException e) {
                LOG.warn("Cannot look up cartridges of dataset {} in family {}: {}", dataset, family, e.getMessage());
                return new ArrayList<>();
            }
        });
    }

    /** An aggregate of this dataset was committed on this cartridge. */
    void written(String family, String dataset, String barcode) {
        List<String> list = cartridgesHolding(family, dataset);
        list.remove(barcode);
        list.add(0, barcode);
    }

    /** Deletes may have emptied a dataset from a cartridge: look it up again next time. */
    void forgetDatasets() {
        datasetCartridges.clear();
    }

    /** A failed write puts the aggregate back, or fails its members after the last attempt. */
    void writeFailed(PendingAggregate agg, TapeFault fault) {
        agg.writing = false;
        if (fault.kind() != FaultKind.TAPE_FULL) {
            agg.attempts++; // a full tape is not the data's fault
        }
        if (agg.attempts >= engine.config.maxAttempts() || !Outcomes.retriable(fault.kind())
                && fault.kind() != FaultKind.TAPE_FULL && fault.kind() != FaultKind.SOURCE) {
            for (FlushItem m : agg.members) {
                if (m.cancelled) {
                    engine.finish(m, new Outcome.Cancelled());
                } else {
                    engine.finish(m, engine.failed(fault.kind(), "cannot flush " + m.request.pnfsid() + " after "
                            + agg.attempts + " attempt(s): " + fault.getMessage(), agg.attempts));
                }
            }
            return;
        }
        if (fault.kind() == FaultKind.SOURCE) {
            // A file changed while it was written: check the members again; the bad ones fail alone.
            agg.closed = false;
            agg.prepared = false;
            close(agg);
            return;
        }
        agg.recount();
        if (fault.kind() != FaultKind.TAPE_FULL) {
            agg.notBefore = engine.loop.now() + (engine.config.retryBackoffMillis() << (agg.attempts - 1));
        }
        WorkQueue fq = engine.familyQueue(agg.family, agg.group);
        fq.retryNotBefore = Math.max(fq.retryNotBefore,
                engine.loop.now() + (fault.kind() == FaultKind.TAPE_FULL ? 0 : engine.config.retryBackoffMillis()));
        engine.queueWrite(agg, true);
    }
}
