package org.tapeq.scheduler.engine;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.tapeq.scheduler.engine.queue.RemoveItem;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.time.EventLoop;

/**
 * Batches removes into one catalog transaction: at most {@link #BATCH} per delete, at most
 * {@link #DELAY_MILLIS} after the first of a batch arrived. The delete runs on the catalog writer; the
 * removes are answered when it is done.
 */
final class Removals {

    static final int BATCH = 1000;
    static final long DELAY_MILLIS = 100;

    private final Engine engine;
    private List<RemoveItem> pending = new ArrayList<>();
    private EventLoop.Timer timer;

    Removals(Engine engine) {
        this.engine = engine;
    }

    void add(RemoveItem item) {
        pending.add(item);
        if (pending.size() >= BATCH) {
            flush();
        } else if (timer == null) {
            timer = engine.loop.schedule(DELAY_MILLIS, this::flush);
        }
    }

    void cancel(RemoveItem item) {
        if (!item.cancelled() && pending.remove(item)) {
            item.cancel();
            engine.ends.deliver(item.request(), new Outcome.Cancelled());
        }
    }

    private void flush() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        List<RemoveItem> batch = pending;
        pending = new ArrayList<>();
        if (batch.isEmpty()) {
            return;
        }
        List<String> ids = new ArrayList<>(batch.size());
        for (RemoveItem item : batch) {
            ids.add(item.request().pnfsid());
        }
        long now = engine.loop.now(); // read on the loop, as every other writer task's time
        engine.writer.submit(CatalogWriter.Kind.DELETE, () -> engine.catalog.delete(ids, now),
                new CatalogWriter.Done<>() {
                    @Override
                    public void succeeded(List<String> deleted) {
                        Set<String> existed = new HashSet<>(deleted);
                        for (RemoveItem item : batch) {
                            engine.counters.removesDone++;
                            engine.ends.deliver(item.request(),
                                    new Outcome.Removed(existed.contains(item.request().pnfsid())));
                        }
                        engine.aggregator.forgetDatasets();
                        engine.reclaim.changed(); // live fractions fell
                    }

                    @Override
                    public void failed(RuntimeException e) {
                        for (RemoveItem item : batch) {
                            engine.counters.removesDone++;
                            engine.ends.deliver(item.request(), engine.ends.failed(FaultKind.CATALOG,
                                    "catalog delete of " + item.request().pnfsid() + " failed: " + e.getMessage(), 1));
                        }
                    }
                });
    }
}
