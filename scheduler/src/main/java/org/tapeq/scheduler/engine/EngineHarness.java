package org.tapeq.scheduler.engine;

import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.engine.dispatch.Dispatcher;
import org.tapeq.scheduler.engine.drive.DriveObserver;
import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.policy.MountPolicies;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.EventLoop;

/**
 * A real engine driven by hand on the caller's thread, for benchmarks of its data structures (admission,
 * the queue index, the mount decision, finishing). Nothing runs the loop, so no tape operation completes;
 * the caller is the loop. Not for production use: {@link Scheduler} is the engine's API.
 */
public final class EngineHarness {

    private final Engine engine;

    private EngineHarness(Engine engine) {
        this.engine = engine;
    }

    /** An engine with the policy named in {@code config}, started on {@code inventory}. */
    public static EngineHarness start(EventLoop loop, TapeLibrary library, Catalog catalog, SchedulerConfig config,
                                      Inventory inventory) {
        Engine engine = new Engine(loop, library, catalog, config,
                MountPolicies.create(config.policy(), config.mountCriteria()), (r, o) -> { }, StageSpace.UNLIMITED,
                Runnable::run, CatalogWriter.inline(loop, CatalogWriter.Timing.NONE), DriveObserver.NONE, null);
        engine.start(inventory);
        return new EngineHarness(engine);
    }

    /** Admits a stage item as the scheduler does after the catalog lookup. */
    public void admit(StageItem item, String barcode) {
        engine.admitStage(item, barcode);
    }

    /** The mount decision for the first drive now, or null. */
    public Dispatcher.Choice choose() {
        return engine.dispatcher.choose(engine.dispatcher.drives().iterator().next(), engine.loop.now());
    }

    /** Takes the chosen queue out of the index and files it back, as a mount and its return would. */
    public void requeue(Dispatcher.Choice choice) {
        engine.queues.index().remove(choice.queue());
        engine.queues.index().update(choice.queue());
    }

    /** Ends the item as staged, through the engine's one finish path. */
    public void finishStaged(StageItem item) {
        engine.ends.finish(item, new Outcome.Staged(item.size(), null));
    }

    public int readyQueues() {
        return engine.queues.index().readyCount();
    }
}
