package org.tapeq.scheduler.engine.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogLeaseException;
import org.tapeq.scheduler.catalog.CatalogUnavailableException;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;

/**
 * Aggregate commits that the {@link CatalogWriter} records in one catalog transaction (group commit).
 *
 * <p>The loop adds commits with {@link #join} while the batch waits for the writer; the writer closes it when
 * it starts it ({@link #run}), after which {@code join} refuses and the loop opens a new batch. The entries are
 * guarded by the batch's lock, the only state two threads share here.
 *
 * <p>Design notes. Each entry gets an outcome of its own: if the shared transaction fails for a reason of the
 * data (not an outage, not a lost lease), it rolled back, and every entry is committed again alone, so one bad
 * aggregate fails only itself. An outage or a lost lease fails the whole run (the writer runs the batch again
 * on an outage; an aggregate already recorded is recorded again unchanged). Once an entry's commit returned it
 * is durable, so a failed re-read of its cartridge never turns into its failure: it is told a null cartridge.
 */
final class CommitBatch {

    private static final Logger LOG = LoggerFactory.getLogger(CommitBatch.class);

    /** Most aggregates recorded in one transaction; a further commit opens the next batch. */
    static final int MAX_AGGREGATES = 64;
    /**
     * Most member rows recorded in one transaction (a commit bigger than that alone still gets a batch of its
     * own); bounds how long one transaction holds the catalog's locks.
     */
    static final int MAX_MEMBERS = 20_000;

    /** One aggregate to record and who is told, on the loop, once the batch's transaction has ended. */
    record Entry(AggregateRecord aggregate, List<FileRecord> members, CatalogWriter.Done<CartridgeRecord> done) {
    }

    /** What one entry is told: the cartridge after the commit (may be null), or why its commit failed. */
    record Outcome(Entry entry, CartridgeRecord after, RuntimeException failure) {
    }

    private final Catalog catalog;
    private final List<Entry> entries = new ArrayList<>();
    private int members;
    private boolean closed;

    CommitBatch(Catalog catalog, Entry first) {
        this.catalog = catalog;
        entries.add(first);
        members = first.members().size();
    }

    /** On the loop: adds {@code e} if the writer has not started this batch; false if it must go in a new one. */
    synchronized boolean join(Catalog sameCatalog, Entry e) {
        if (closed || sameCatalog != catalog || entries.size() >= MAX_AGGREGATES
                || members + e.members().size() > MAX_MEMBERS) {
            return false;
        }
        entries.add(e);
        members += e.members().size();
        return true;
    }

    /** The entries once closed; on the loop after the writer ran the batch. */
    synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    /**
     * On the writer: closes the batch and records every aggregate in it in one transaction, or, if that fails
     * for a reason other than an outage or the lease, each alone; then reads the cartridges they are on, after
     * the commits. One outcome per entry, in order; {@code transaction} is told the aggregates of every
     * transaction that committed. Run again unchanged if the catalog was unreachable.
     */
    List<Outcome> run(IntConsumer transaction) {
        List<Entry> mine;
        synchronized (this) {
            closed = true;
            mine = List.copyOf(entries);
        }
        RuntimeException[] failures = new RuntimeException[mine.size()];
        if (mine.size() == 1) {
            commitAlone(mine, 0, failures, transaction);
        } else {
            List<Catalog.Written> written = new ArrayList<>(mine.size());
            for (Entry e : mine) {
                written.add(new Catalog.Written(e.aggregate(), e.members()));
            }
            try {
                catalog.commitAggregates(written);
                transaction.accept(mine.size());
            } catch (CatalogUnavailableException | CatalogLeaseException e) {
                throw e;
            } catch (RuntimeException e) {
                LOG.warn("Catalog: the shared commit of {} aggregates failed ({}); committing each alone",
                        mine.size(), e.getMessage());
                for (int i = 0; i < mine.size(); i++) {
                    commitAlone(mine, i, failures, transaction);
                }
            }
        }
        Map<String, CartridgeRecord> after = new HashMap<>();
        List<Outcome> outcomes = new ArrayList<>(mine.size());
        for (int i = 0; i < mine.size(); i++) {
            Entry e = mine.get(i);
            if (failures[i] != null) {
                outcomes.add(new Outcome(e, null, failures[i]));
                continue;
            }
            String barcode = e.aggregate().cartridge();
            if (!after.containsKey(barcode)) {
                after.put(barcode, reread(barcode));
            }
            outcomes.add(new Outcome(e, after.get(barcode), null));
        }
        return outcomes;
    }

    /** Commits entry {@code i} alone; a failure other than an outage or the lease goes to {@code failures}. */
    private void commitAlone(List<Entry> mine, int i, RuntimeException[] failures, IntConsumer transaction) {
        Entry e = mine.get(i);
        try {
            catalog.commitAggregate(e.aggregate(), e.members());
            transaction.accept(1);
        } catch (CatalogUnavailableException | CatalogLeaseException outageOrLease) {
            throw outageOrLease;
        } catch (RuntimeException failure) {
            failures[i] = failure;
        }
    }

    /** The cartridge after the commits; null (logged) if the read fails for a reason other than an outage. */
    private CartridgeRecord reread(String barcode) {
        try {
            return catalog.cartridge(barcode).orElse(null);
        } catch (CatalogUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn("Catalog: cartridge {} could not be read after its committed aggregates ({}); they are "
                    + "acknowledged without it", barcode, e.getMessage());
            return null;
        }
    }
}
