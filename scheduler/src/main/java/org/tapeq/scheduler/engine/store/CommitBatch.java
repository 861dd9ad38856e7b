package org.tapeq.scheduler.engine.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/**
 * Aggregate commits that the {@link CatalogWriter} records in one catalog transaction (group commit).
 *
 * <p>The loop adds commits with {@link #join} while the batch waits for the writer; the writer closes it when
 * it starts it ({@link #run}), after which {@code join} refuses and the loop opens a new batch. The entries are
 * guarded by the batch's lock, the only state two threads share here.
 */
final class CommitBatch {

    /** Most aggregates recorded in one transaction; a further commit opens the next batch. */
    static final int MAX_AGGREGATES = 64;

    /** One aggregate to record and who is told, on the loop, once the batch's transaction has ended. */
    record Entry(AggregateRecord aggregate, List<FileRecord> members, CatalogWriter.Done<CartridgeRecord> done) {
    }

    private final Catalog catalog;
    private final List<Entry> entries = new ArrayList<>();
    private boolean closed;

    CommitBatch(Catalog catalog, Entry first) {
        this.catalog = catalog;
        entries.add(first);
    }

    /** On the loop: adds {@code e} if the writer has not started this batch; false if it must go in a new one. */
    synchronized boolean join(Catalog sameCatalog, Entry e) {
        if (closed || sameCatalog != catalog || entries.size() >= MAX_AGGREGATES) {
            return false;
        }
        entries.add(e);
        return true;
    }

    /** The entries once closed; on the loop after the writer ran the batch. */
    synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    /**
     * On the writer: closes the batch and records every aggregate in it in one transaction (all or none), then
     * reads the cartridges they are on, after the commit. Run again unchanged if the catalog was unreachable.
     */
    Map<String, CartridgeRecord> run() {
        List<Entry> mine;
        synchronized (this) {
            closed = true;
            mine = List.copyOf(entries);
        }
        if (mine.size() == 1) {
            catalog.commitAggregate(mine.get(0).aggregate(), mine.get(0).members());
        } else {
            List<Catalog.Written> written = new ArrayList<>(mine.size());
            for (Entry e : mine) {
                written.add(new Catalog.Written(e.aggregate(), e.members()));
            }
            catalog.commitAggregates(written);
        }
        Map<String, CartridgeRecord> after = new HashMap<>();
        for (Entry e : mine) {
            String barcode = e.aggregate().cartridge();
            if (!after.containsKey(barcode)) {
                after.put(barcode, catalog.cartridge(barcode).orElse(null));
            }
        }
        return after;
    }
}
