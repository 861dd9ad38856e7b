package org.tapeq.scheduler.engine;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.dispatch.DispatchSettings;
import org.tapeq.scheduler.engine.dispatch.Dispatcher;
import org.tapeq.scheduler.engine.dispatch.MediaFit;
import org.tapeq.scheduler.engine.drive.DriveObserver;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.lifecycle.LifecycleContext;
import org.tapeq.scheduler.engine.lifecycle.LifecycleWork;
import org.tapeq.scheduler.engine.lifecycle.Relabels;
import org.tapeq.scheduler.engine.lifecycle.Migrations;
import org.tapeq.scheduler.engine.lifecycle.ReclaimPolicy;
import org.tapeq.scheduler.engine.lifecycle.Repacks;
import org.tapeq.scheduler.engine.lifecycle.ScratchReturn;
import org.tapeq.scheduler.engine.lifecycle.Verifications;
import org.tapeq.scheduler.engine.lifecycle.VerifyPolicy;
import org.tapeq.scheduler.engine.queue.Cartridges;
import org.tapeq.scheduler.engine.queue.FlushItem;
import org.tapeq.scheduler.engine.queue.QueueIndex;
import org.tapeq.scheduler.engine.queue.Queues;
import org.tapeq.scheduler.engine.queue.RemoveItem;
import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.engine.queue.Ticket;
import org.tapeq.scheduler.engine.queue.WorkQueue;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.tape.DriveAlerts;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The scheduler's state and decisions, confined to the event loop thread: the wiring of its parts, and the
 * admission and cancellation of requests.
 *
 * <p>Design notes. Requests become items in {@link WorkQueue}s ({@code queue/}): one per cartridge for stages
 * (and for aggregates bound to a cartridge that already holds their dataset), one per tape family for other
 * aggregates. The {@link QueueIndex} holds every queue that is not mounted, either waiting for the time the
 * {@link MountPolicy} makes it eligible or ready and sorted by the policy's rank. The {@link Dispatcher}
 * ({@code dispatch/}) runs after every event that can change a decision and gives free drives work. Each
 * {@link DriveRunner} ({@code drive/}) then works its cartridge asynchronously through the
 * {@link TapeLibrary}, and reaches the rest of the engine only through its {@code DriveContext}
 * ({@link EngineContext}); every completion comes back on the loop. Faults are answered as
 * {@code FaultReactions} ({@code fault/}) says. Nothing here sleeps or reads the wall clock, so the same code
 * runs in virtual time.
 *
 * <p>Every request ends through {@link RequestEnds}, which removes it from its queue's counters, counts it
 * and tells the listener exactly once.
 */
final class Engine {

    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    final EventLoop loop;
    final TapeLibrary library;
    final Catalog catalog;
    final SchedulerConfig config;
    /** The knobs a reload may change ({@link Tuning}); read where used, on the loop. */
    Tuning tuning;
    final Executor io;
    final DriveObserver observer;
    /** Every catalog call made while the loop serves work goes through it. */
    final CatalogWriter writer;
    final Counters counters = new Counters();
    final RecentFaults recentFaults = new RecentFaults();
    final Cartridges cartridges;
    final Queues queues;
    final Dispatcher dispatcher;
    final RequestEnds ends;
    final Aggregator aggregator;
    final Stalls stalls;
    final Verifications verifications;
    final Repacks repacks;
    final Relabels relabels;
    final VerifyPolicy verifyPolicy;
    final Migrations migrations;
    final ReclaimPolicy reclaim;
    private final ScratchReturn scratchReturn;
    private final Removals removals;
    private final EngineContext context;
    /** The loop's view of the catalog writer's {@link CatalogWriter#reachable()}. */
    private boolean catalogReachable = true;

    Engine(EventLoop loop, TapeLibrary library, Catalog catalog, SchedulerConfig config, MountPolicy policy,
           RequestListener listener, StageSpace stageSpace, Executor io,
           CatalogWriter writer, DriveObserver observer, Path repackSpool) {
        this.loop = loop;
        this.library = library;
        this.catalog = catalog;
        this.config = config;
        this.tuning = Tuning.of(config);
        this.io = io;
        this.writer = writer;
        this.observer = observer;
        this.cartridges = new Cartridges(catalog, writer, config.fullMarginBytes());
        this.queues = new Queues(new QueueIndex(policy, loop, this::requestDispatch), cartridges,
                this::requestDispatch);
        this.dispatcher = new Dispatcher(loop, new DispatchSettings(config.maxReadDrives(), config.maxWriteDrives(),
                g -> config.group(g).share(), g -> config.group(g).maxDrives(), config.retryBackoffMillis(),
                config.robotErrorLimit(), config.maxBackgroundDrives(), config.backgroundShare(),
                config.backgroundHoldoffMillis()), policy, queues, cartridges,
                this::catalogReachable, new MediaFit(library, cartridges));
        LifecycleContext lifecycle = new LifecycleContext(loop, library, catalog, writer, cartridges, queues,
                dispatcher.background(), io, repackSpool, config.repackSpoolBytes(), () -> tuning.aggregateBytes(),
                () -> tuning.aggregateFiles());
        this.verifications = new Verifications(lifecycle);
        this.repacks = new Repacks(lifecycle);
        repacks.verifiedBy(verifications::busy);
        this.migrations = new Migrations(lifecycle, repacks, config.migrationRepacks());
        this.relabels = new Relabels(lifecycle, repacks, migrations, verifications);
        LifecycleWork work = new LifecycleWork(repacks, migrations, relabels, verifications);
        this.verifyPolicy = new VerifyPolicy(lifecycle, verifications, work, config.verifyPerWeek(),
                config.verifySample());
        this.reclaim = new ReclaimPolicy(lifecycle, repacks, work, config.reclaim());
        this.scratchReturn = new ScratchReturn(lifecycle, repacks, reclaim, relabels, config.reclaim());
        queues.whenCartridgeChanged(reclaim::changed);
        this.ends = new RequestEnds(loop, config, () -> tuning, queues, counters, listener);
        this.aggregator = new Aggregator(this);
        this.stalls = new Stalls(this);
        dispatcher.afterEachDispatch(stalls::observe);
        this.removals = new Removals(this);
        this.context = new EngineContext(this, policy, stageSpace);
        library.alerts(new DriveAlerts() {
            @Override
            public void cartridgeSuspect(String drive, String barcode, String reason) {
                suspect(barcode, reason);
            }

            @Override
            public void cleaningDue(String drive, String reason) {
                DriveRunner d = dispatcher.drive(drive);
                if (d != null) {
                    d.cleaningDue(reason);
                }
            }
        });
        writer.health((reachable, reason) -> {
            catalogReachable = reachable;
            if (reachable) {
                requestDispatch(); // writes and admin tasks held back by the outage may start
            }
        });
    }

    /**
     * The library saw a media problem of the cartridge (a TapeAlert media flag), whatever became of the operation:
     * it is read-only from now on. A cartridge the catalog does not know is only logged.
     */
    private void suspect(String barcode, String reason) {
        CartridgeRecord c = cartridges.get(barcode);
        if (c == null) {
            LOG.warn("Cartridge {} is not in the catalog; not marked suspect after: {}", barcode, reason);
        } else if (c.state() != CartridgeState.SUSPECT) {
            queues.updateCartridge(c.withState(CartridgeState.SUSPECT, reason));
        }
    }

    /** Whether the catalog answered its last task; no write or admin task starts while it does not. */
    boolean catalogReachable() {
        return catalogReachable;
    }

    /**
     * Reads the inventory, reconciles it with the catalog, and creates a runner per drive. The catalog reads
     * here are synchronous: the loop serves nothing else before the engine has started.
     */
    void start(Inventory inventory) {
        Map<String, DriveRecord> known = new HashMap<>();
        for (DriveRecord d : catalog.drives()) {
            known.put(d.id(), d);
        }
        cartridges.load();
        cartridges.addNew(inventory);
        for (Inventory.Drive d : inventory.drives()) {
            DriveRecord rec = known.get(d.id());
            DriveRunner runner = new DriveRunner(context, d.id());
            if (rec != null && !rec.up()) {
                runner.markDown(rec.reason(), false, false);
            } else if (!d.online() && d.unreachable() == null) {
                runner.markDown("reported offline by the library", true, true);
            }
            if (d.loadedBarcode() != null) {
                runner.adoptLoaded(d.loadedBarcode());
            }
            if (d.unreachable() != null) { // out of service until its mover answers; not recorded as down
                runner.markUnreachable(d.unreachable());
            }
            dispatcher.add(runner);
        }
        LOG.info("Scheduler started: {} drives, {} cartridges, policy {}", dispatcher.drives().size(),
                cartridges.size(), config.policy());
        // before any dispatch: a resumed repack closes its source again first, so no flush begins on it
        List<RepackJob> repackJobs = catalog.repackJobs();
        repacks.resume(repackJobs);
        migrations.resume(catalog.migrationJobs(), repackJobs);
        relabels.resume(catalog.relabelIntents());
        scratchReturn.start(catalog.setting(ScratchReturn.PENDING_SETTING));
        reclaim.start(catalog.setting(ReclaimPolicy.PAUSED_SETTING));
        dispatcher.start();
        verifyPolicy.start();
    }

    void requestDispatch() {
        dispatcher.requestDispatch();
    }

    /** Counts a fault by kind and keeps it among the recent faults of the status; drive and cartridge may be null. */
    void fault(FaultKind kind, String drive, String cartridge, String reason) {
        counters.fault(kind);
        recentFaults.add(loop.now(), kind, drive, cartridge, reason);
    }

    // ---------------------------------------------------------------- admission

    void admitStage(StageItem item, String barcode) {
        counters.stagesSubmitted++;
        if (!cartridges.contains(barcode)) {
            ends.finish(item, ends.failed(FaultKind.NOT_FOUND, item.request().pnfsid()
                    + ": catalog places it on cartridge " + barcode + ", which is not in the library", 0));
            return;
        }
        WorkQueue q = queues.cartridgeQueue(barcode, item.request().group());
        q.adoptGroupIfIdle(item.request().group()); // a queue is accounted to the group whose requests it holds
        q.addRead(item);
        if (q.isHeld()) {
            q.readArrivedDuringPass();
            q.holder().workArrived();
        } else {
            queues.index().update(q);
            requestDispatch();
        }
    }

    void admitFlush(FlushItem item) {
        counters.flushesSubmitted++;
        aggregator.add(item);
    }

    void admitRemove(RemoveItem item) {
        counters.removesSubmitted++;
        removals.add(item);
    }

    // ---------------------------------------------------------------- cancel

    void cancel(Ticket ticket) {
        if (ticket instanceof StageItem item) {
            if (item.cancelled() || item.done()) {
                return;
            }
            item.cancel();
            if (item.queued()) {
                ends.finish(item, new Outcome.Cancelled());
                if (item.queue() != null && item.queue().isHeld()) {
                    item.queue().holder().retryIfWaiting(); // the unit it waits for space for may have shrunk
                }
            }
            // A read in progress finishes; its completion reports the cancellation.
        } else if (ticket instanceof FlushItem item) {
            if (item.cancelled() || item.done()) {
                return;
            }
            item.cancel();
            aggregator.cancelled(item);
        } else if (ticket instanceof RemoveItem item) {
            removals.cancel(item);
        } else if (ticket instanceof PendingStage pending) {
            if (pending.item() != null) {
                cancel(pending.item());
            } else {
                pending.cancel(); // answered as cancelled when its lookup is done
            }
        }
    }

    /** The caller released stage buffer space: drives waiting for it ask again. */
    void spaceFreed() {
        for (DriveRunner d : dispatcher.drives()) {
            d.retryIfWaiting();
        }
    }
}
