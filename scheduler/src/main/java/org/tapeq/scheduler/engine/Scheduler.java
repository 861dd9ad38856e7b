package org.tapeq.scheduler.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.CatalogUnavailableException;
import org.tapeq.scheduler.engine.drive.DriveObserver;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.lifecycle.RelabelReport;
import org.tapeq.scheduler.engine.lifecycle.MigrationReport;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.engine.lifecycle.VerifyReport;
import org.tapeq.scheduler.engine.queue.FlushItem;
import org.tapeq.scheduler.engine.queue.RemoveItem;
import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.engine.queue.Ticket;
import org.tapeq.scheduler.engine.queue.WorkQueue;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RemoveRequest;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.policy.MountPolicies;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.EventLoop;
import org.tapeq.scheduler.time.VirtualEventLoop;

/**
 * The tape-queue engine's public face. Thread-safe: every call hands its work to the event loop, and every
 * outcome reaches the {@link RequestListener} on the loop, exactly once per accepted request.
 *
 * <p>In real time a stage's location is looked up on the catalog writer ({@link CatalogWriter}: its own thread),
 * never on the caller's thread: a caller that owns a loop of its own (a directory bridge) must not wait for the
 * catalog, least of all during an outage, when the lookup waits in the writer until the catalog answers.
 * Everything else runs on the loop, and the loop's catalog calls run on the same writer. In virtual time the
 * lookup is made at once on the caller (there is no I/O to wait for, and the simulator stays deterministic).
 */
public final class Scheduler {

    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final Engine engine;
    private final EventLoop loop;
    private final Catalog catalog;
    private final SchedulerConfig config;
    private final WorkHold hold = new WorkHold();
    private final StatusPublisher statusPublisher;

    private Scheduler(Builder b) {
        this.loop = b.loop;
        this.catalog = b.catalog;
        this.config = b.config;
        MountPolicy policy = b.policy != null ? b.policy
                : MountPolicies.create(b.config.policy(), b.config.mountCriteria());
        CatalogWriter writer = b.loop instanceof VirtualEventLoop ? CatalogWriter.inline(b.loop, b.catalogTiming)
                : CatalogWriter.threaded(b.loop, b.catalogCapacity, b.catalogTiming);
        this.engine = new Engine(b.loop, hold.library(b.library), b.catalog, b.config, policy,
                hold.listener(b.listener), b.stageSpace, b.io, writer, b.observer, b.repackSpool);
        this.statusPublisher = new StatusPublisher(engine, hold, b.loop);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Catalog writer tasks submitted and not yet done (held by the loop, queued or running); any thread. */
    public int catalogQueueDepth() {
        return engine.writer.depth();
    }

    /** Whether the catalog answered the engine's last catalog task; any thread. */
    public boolean catalogReachable() {
        return engine.writer.reachable();
    }

    /** Wall-clock ms since which the catalog does not answer, or 0; any thread. */
    public long catalogUnreachableSince() {
        return engine.writer.unreachableSince();
    }

    /** Why the catalog does not answer (its last failure), or null; any thread. */
    public String catalogUnreachableReason() {
        return engine.writer.unreachableReason();
    }

    /**
     * Holds all tape work and answers (any thread): from when the loop runs this, no command reaches the library
     * and no outcome reaches the listener until {@link #resumeWork}; commands already given run to their end.
     * The daemon holds while its site lease may have lapsed ({@link WorkHold}).
     */
    public CompletableFuture<Void> holdWork(String reason) {
        Objects.requireNonNull(reason, "reason");
        return onLoop(f -> {
            hold.hold(reason);
            f.complete(null);
        });
    }

    /** Passes on what waited during a {@link #holdWork} and lets tape work and answers through again. */
    public CompletableFuture<Void> resumeWork() {
        return onLoop(f -> {
            hold.resume();
            f.complete(null);
        });
    }

    /** Why tape work and answers are held, or empty (on the loop's word). */
    public CompletableFuture<Optional<String>> workHeld() {
        return onLoop(f -> f.complete(Optional.ofNullable(hold.reason())));
    }

    /**
     * Reads the library's inventory and starts scheduling; completes when ready. An inventory the library fails is
     * asked again a few times ({@link FirstInventory}) before the start fails.
     */
    public CompletableFuture<Void> start() {
        LOG.info("Scheduler configuration: {}", config);
        CompletableFuture<Void> started = new CompletableFuture<>();
        loop.execute(() -> new FirstInventory(loop, engine.library, engine::start, started).ask());
        return started;
    }

    /** Queues a stage; unknown files and size mismatches are answered at once with a failure. */
    public Ticket stage(StageRequest request) {
        Objects.requireNonNull(request, "request");
        long now = loop.now();
        if (!(loop instanceof VirtualEventLoop)) {
            return lookUpLater(List.of(request), now).get(0);
        }
        Optional<FileRecord> found;
        try {
            found = catalog.file(request.pnfsid());
        } catch (CatalogUnavailableException e) {
            return lookUpLater(List.of(request), now).get(0);
        } catch (CatalogException e) {
            return reject(request, now, engine.ends.failed(FaultKind.CATALOG,
                    "cannot look up " + request.pnfsid() + " in the catalog: " + e.getMessage(), 0));
        }
        return stage(request, now, found);
    }

    /**
     * Queues many stages, looking their files up in the catalog together (a restart may queue a million; one
     * query per file would take minutes). The tickets are in the order of the requests.
     */
    public List<Ticket> stage(List<StageRequest> requests) {
        long now = loop.now();
        List<String> ids = new ArrayList<>(requests.size());
        for (StageRequest r : requests) {
            ids.add(Objects.requireNonNull(r, "request").pnfsid());
        }
        if (!(loop instanceof VirtualEventLoop)) {
            return lookUpLater(requests, now);
        }
        Map<String, FileRecord> found;
        List<Ticket> tickets = new ArrayList<>(requests.size());
        try {
            found = catalog.files(ids);
        } catch (CatalogUnavailableException e) {
            return lookUpLater(requests, now);
        } catch (CatalogException e) {
            for (StageRequest r : requests) {
                tickets.add(reject(r, now, engine.ends.failed(FaultKind.CATALOG,
                        "cannot look up " + r.pnfsid() + " in the catalog: " + e.getMessage(), 0)));
            }
            return tickets;
        }
        for (StageRequest r : requests) {
            tickets.add(stage(r, now, Optional.ofNullable(found.get(r.pnfsid()))));
        }
        return tickets;
    }

    /**
     * Looks {@code pnfsids} up in the catalog together, without blocking the caller: one read on the catalog
     * writer (one query per few hundred files), after every write submitted before it, waiting out an outage;
     * {@code done} is told the files found, by pnfsid, on the loop. Callers batch their lookups: the writer is
     * one FIFO, and a lookup per file would queue a restart's million reads ahead of the commits.
     */
    public void lookUp(Collection<String> pnfsids, CatalogWriter.Done<Map<String, FileRecord>> done) {
        List<String> ids = List.copyOf(pnfsids);
        loop.execute(() -> engine.writer.submit(CatalogWriter.Kind.READ, () -> catalog.files(ids), done));
    }

    /**
     * The lookup goes to the catalog writer, which runs it (once the catalog is back, if it is down: an outage
     * does not fail a stage), and each stage is then queued or rejected as usual.
     */
    private List<Ticket> lookUpLater(List<StageRequest> requests, long now) {
        List<PendingStage> pending = new ArrayList<>(requests.size());
        List<String> ids = new ArrayList<>(requests.size());
        for (StageRequest r : requests) {
            pending.add(new PendingStage(r));
            ids.add(r.pnfsid());
        }
        if (!engine.writer.reachable()) {
            LOG.warn("Catalog unreachable: the lookup of {} stage(s) waits for it", requests.size());
        }
        lookUp(ids, new CatalogWriter.Done<Map<String, FileRecord>>() {
            @Override
            public void succeeded(Map<String, FileRecord> found) {
                for (PendingStage p : pending) {
                    StageRequest r = (StageRequest) p.request();
                    p.item((StageItem) (p.cancelled() ? reject(r, now, new Outcome.Cancelled())
                            : stage(r, now, Optional.ofNullable(found.get(r.pnfsid())))));
                }
            }

            @Override
            public void failed(RuntimeException e) {
                for (PendingStage p : pending) {
                    StageRequest r = (StageRequest) p.request();
                    p.item((StageItem) reject(r, now, p.cancelled() ? new Outcome.Cancelled()
                            : engine.ends.failed(FaultKind.CATALOG, "cannot look up " + r.pnfsid()
                                    + " in the catalog: " + e.getMessage(), 0)));
                }
            }
        });
        return new ArrayList<>(pending);
    }

    private Ticket stage(StageRequest request, long now, Optional<FileRecord> found) {
        if (found.isEmpty()) {
            return reject(request, now, engine.ends.failed(FaultKind.NOT_FOUND,
                    request.pnfsid() + " is not in the tape catalog", 0));
        }
        FileRecord f = found.get();
        if (f.isHint()) {
            return reject(request, now, engine.ends.failed(FaultKind.NOT_FOUND,
                    request.pnfsid() + " is known only from a tape hint (volume " + f.cartridge() + ", order "
                            + f.hintOrder() + "); it was written by another HSM, which must recall it", 0));
        }
        if (request.size() >= 0 && request.size() != f.size()) {
            // A data mismatch (31, docs/protocol.md), not the NOT_FOUND mapping (33): the tape copy is there, but
            // it is not the file dCache asks for.
            return reject(request, now, new Outcome.Failed(FaultKind.CHECKSUM, ReturnCodes.DATA_MISMATCH,
                    request.pnfsid() + ": requested size " + request.size() + " but the catalog has "
                            + f.size() + " bytes on " + f.cartridge(), 0));
        }
        StageItem item = new StageItem(request, now, f.tapeFile(), f.block(), f.offset(), f.size(), f.checksum());
        loop.execute(() -> engine.admitStage(item, f.cartridge()));
        return item;
    }

    private Ticket reject(StageRequest request, long now, Outcome failure) {
        StageItem item = new StageItem(request, now, -1, -1, -1, 0, null);
        loop.execute(() -> {
            engine.counters.stagesSubmitted++;
            engine.ends.finish(item, failure);
        });
        return item;
    }

    /** Queues a flush into the aggregate of its family and dataset. */
    public Ticket flush(FlushRequest request) {
        Objects.requireNonNull(request, "request");
        FlushItem item = new FlushItem(request, config.familyOf(request.storageClass()),
                config.datasetOf(request.colocationKey(), request.path()));
        loop.execute(() -> engine.admitFlush(item));
        return item;
    }

    /** Queues a logical delete; deletes are batched. */
    public Ticket remove(RemoveRequest request) {
        Objects.requireNonNull(request, "request");
        RemoveItem item = new RemoveItem(request);
        loop.execute(() -> engine.admitRemove(item));
        return item;
    }

    /**
     * Cancels a request. A queued one ends at once as {@link Outcome.Cancelled}; one being read or written
     * finishes its tape operation first and then ends as cancelled.
     */
    public void cancel(Ticket ticket) {
        loop.execute(() -> engine.cancel(ticket));
    }

    /**
     * Stage buffer space was released: drives waiting for the {@link StageSpace} to grant a read ask it again.
     * Call it after releasing.
     */
    public void spaceFreed() {
        loop.execute(engine::spaceFreed);
    }

    /**
     * Asks the loop to publish a new status snapshot (any thread; at most one such request waits on the loop).
     * From the first call on, every control call also publishes one once it has acted. The daemon calls it every
     * refresh period: {@link #publishedStatus} and {@link #publishedLoad} then answer without the loop.
     */
    public void refreshStatus() {
        statusPublisher.refresh();
    }

    /** Like {@link #refreshStatus}, but completes once the loop has published (the daemon's start waits for it). */
    public CompletableFuture<Void> publishStatus() {
        return LoopCall.on(loop, f -> {
            statusPublisher.publishNow();
            f.complete(null);
        });
    }

    /**
     * The last published status with that page of its queues and cartridges, taken on the loop at its
     * {@link SchedulerStatus#now()}; null before the first {@link #refreshStatus} has run. Never waits for the loop.
     */
    public SchedulerStatus publishedStatus(int offset, int limit) {
        StatusPublisher.Published p = statusPublisher.published();
        return p == null ? null : p.status().page(offset, limit);
    }

    /** The work per group and family as last published with {@link #publishedStatus}, or null. */
    public SchedulerLoad publishedLoad() {
        StatusPublisher.Published p = statusPublisher.published();
        return p == null ? null : p.load();
    }

    /** A snapshot of queues, drives and counters; at most {@code maxQueues} queues are listed. */
    public CompletableFuture<SchedulerStatus> status(int maxQueues) {
        return status(0, maxQueues);
    }

    /**
     * A snapshot of queues, drives and counters, listing the queues {@code offset} to {@code offset + limit - 1}
     * of the status order (mounted first, then by rank); {@link SchedulerStatus#queueCount()} is their total.
     */
    public CompletableFuture<SchedulerStatus> status(int offset, int limit) {
        return LoopCall.on(loop, f -> f.complete(StatusBuilder.build(engine, hold, offset, limit)));
    }

    /**
     * Takes over the knobs a running engine may change ({@link Tuning}) from a reloaded configuration; they count
     * from the next decision. Completes once the loop has them.
     */
    public CompletableFuture<Void> retune(Tuning tuning) {
        return onLoop(f -> {
            engine.tuning = tuning;
            engine.requestDispatch();
            f.complete(null);
        });
    }

    /** The knobs in effect ({@link #retune}). */
    public CompletableFuture<Tuning> tuning() {
        return LoopCall.on(loop, f -> f.complete(engine.tuning));
    }

    /** The work waiting per group and per family ({@link SchedulerLoad}), for metrics. */
    public CompletableFuture<SchedulerLoad> load() {
        return LoopCall.on(loop, f -> f.complete(SchedulerLoad.of(engine)));
    }

    /** Takes a drive out of service (it finishes its current operation first). */
    public CompletableFuture<Void> driveDown(String drive, String reason) {
        return written(onLoop(f -> {
            DriveRunner d = drive(drive);
            d.markDown("by administrator: " + reason, true, false);
            f.complete(null);
        }));
    }

    /**
     * Takes a drive out of service for a reason outside the engine that goes away by itself (its data mover
     * unreachable): not kept in the catalog, not a drive fault, and a cartridge in it stays there (no other drive
     * mounts it). {@link #driveReachable} undoes it; an administrator's {@link #driveDown} is kept apart.
     */
    public CompletableFuture<Void> driveUnavailable(String drive, String reason) {
        return onLoop(f -> {
            drive(drive).markUnreachable(reason);
            f.complete(null);
        });
    }

    /** The drive can be reached again ({@link #driveUnavailable}); an administrator's drive down stays. */
    public CompletableFuture<Void> driveReachable(String drive) {
        return onLoop(f -> {
            drive(drive).markReachable();
            f.complete(null);
        });
    }

    /**
     * The drive can be reached again and its data mover reports {@code holding} in it (null: no cartridge): where
     * the engine thought otherwise (an unload or mount in flight when the mover was lost did happen), the mover's
     * view is taken, logged naming the drive and the cartridges; then as {@link #driveReachable}.
     */
    public CompletableFuture<Void> driveReturned(String drive, String holding) {
        return onLoop(f -> {
            drive(drive).markReturned(holding);
            f.complete(null);
        });
    }

    /** Puts a drive back into service. */
    public CompletableFuture<Void> driveUp(String drive) {
        return written(onLoop(f -> {
            drive(drive).markUp();
            f.complete(null);
        }));
    }

    /**
     * Unloads every drive in service that holds a cartridge and has nothing to do with it (idle, or holding it
     * for more requests); a drive at work or down is left alone. Completes, once the unloads have started, with
     * the cartridge each of those drives is unloading, by drive. {@code tapeq loadtest} empties the drives so
     * before its measured phase, so that a recall pays for its mounts.
     */
    public CompletableFuture<Map<String, String>> unloadIdleDrives() {
        return onLoop(f -> {
            Map<String, String> unloading = new TreeMap<>();
            for (DriveRunner d : engine.dispatcher.drives()) {
                String barcode = d.mounted();
                if (d.unloadIfIdle()) {
                    unloading.put(d.id(), barcode);
                }
            }
            f.complete(unloading);
        });
    }

    /** Stops mounting a cartridge (reads wait, writes go elsewhere) until enabled again. */
    public CompletableFuture<Void> disableCartridge(String barcode, String reason) {
        return written(onLoop(f -> {
            engine.queues.updateCartridge(cartridge(barcode).withDisabled(true, "disabled: " + reason));
            engine.requestDispatch();
            f.complete(null);
        }));
    }

    public CompletableFuture<Void> enableCartridge(String barcode) {
        return written(onLoop(f -> {
            engine.queues.updateCartridge(cartridge(barcode).withDisabled(false, null));
            WorkQueue q = engine.queues.cartridgeQueueIfAny(barcode);
            if (q != null) {
                engine.queues.refileIfFree(q);
            }
            engine.requestDispatch();
            f.complete(null);
        }));
    }

    /**
     * Reads the library's inventory again (on demand, e.g. after cartridges were added): cartridges the catalog
     * does not know enter it as unknown until their label is read at their first mount.
     */
    public CompletableFuture<InventoryReport> syncInventory() {
        CompletableFuture<InventoryReport> f = new CompletableFuture<>();
        loop.execute(() -> engine.library.inventory(new Completion<>() {
            @Override
            public void succeeded(Inventory inventory) {
                try {
                    List<String> added = engine.cartridges.addNew(inventory);
                    Set<String> present = new HashSet<>();
                    inventory.cartridges().forEach(c -> present.add(c.barcode()));
                    List<String> absent = new ArrayList<>();
                    engine.cartridges.all().forEach(c -> absent.add(c.barcode()));
                    absent.removeAll(present);
                    Collections.sort(absent);
                    engine.requestDispatch();
                    f.complete(new InventoryReport(inventory.cartridges().size(), added, absent));
                } catch (RuntimeException e) {
                    f.completeExceptionally(e);
                }
            }

            @Override
            public void failed(TapeFault fault) {
                f.completeExceptionally(fault);
            }
        }));
        return f;
    }

    /**
     * What an inventory found.
     *
     * @param cartridges cartridges in the library
     * @param added      barcodes new to the catalog
     * @param absent     barcodes in the catalog but not in the library (taken out, or in an unconfigured drive)
     */
    public record InventoryReport(int cartridges, List<String> added, List<String> absent) {
    }

    /** Writes a tapeq label for {@code family}; refuses a cartridge with data unless {@code force}. */
    public CompletableFuture<CartridgeRecord> labelCartridge(String barcode, String family, boolean force) {
        return written(runTask(barcode, () -> new LabelTask(engine, barcode, family, force)));
    }

    /** Rebuilds one cartridge's catalog entries from its label and manifests. */
    public CompletableFuture<RebuildReport> rebuildCartridge(String barcode) {
        return written(runTask(barcode, () -> new RebuildTask(engine, barcode)));
    }

    /**
     * Queues the verification of a cartridge as background work ({@code sample} > 0: only that many aggregates,
     * spread over it). The future ends with the queued verification's report once it is queued; its progress and
     * result are in {@link SchedulerStatus#verifications()}, and the result in the catalog.
     */
    public CompletableFuture<VerifyReport> verifyCartridge(String barcode, int sample) {
        return onLoopThen(() -> engine.verifications.start(barcode, sample));
    }

    /**
     * Cancels the verification of a cartridge: a queued one ends at once, a running one after the aggregate
     * being read (state {@code cancelled}). Fails if no verification of it is queued or running.
     */
    public CompletableFuture<VerifyReport> cancelVerification(String barcode) {
        return onLoop(f -> {
            f.complete(engine.verifications.cancel(barcode));
            engine.requestDispatch();
        });
    }

    /**
     * Queues the repack of a cartridge onto other cartridges of {@code family} (null: its own) as background work.
     * The future ends with its first report once it is queued; its progress is in
     * {@link SchedulerStatus#repacks()}, its record in the catalog ({@code Catalog#repackJobs}).
     */
    public CompletableFuture<RepackReport> repackCartridge(String barcode, String family) {
        return repackCartridge(barcode, family, null);
    }

    /** As {@link #repackCartridge(String, String)}, onto cartridges of media type {@code media} only (null: any). */
    public CompletableFuture<RepackReport> repackCartridge(String barcode, String family, String media) {
        return onLoopThen(() -> engine.repacks.start(barcode, family, media));
    }

    /**
     * Queues the relabel of an emptied cartridge for {@code family} (null: its own) as background work; with
     * {@code force} also of a cartridge in another state with no live file. Fails with the reason it is refused.
     */
    public CompletableFuture<RelabelReport> relabelCartridge(String barcode, String family, boolean force) {
        return onLoopThen(() -> engine.relabels.start(barcode, family, force));
    }

    /**
     * Starts migrating the cartridges of media {@code from} (of {@code family} only, when not null) onto media
     * {@code to}, one background repack after another; progress in {@link SchedulerStatus#migrations()}.
     */
    public CompletableFuture<MigrationReport> migrate(String from, String to, String family) {
        return onLoopThen(() -> engine.migrations.start(from, to, family));
    }

    /** Cancels the running migration (files already moved stay moved). Fails if none runs. */
    public CompletableFuture<MigrationReport> cancelMigration() {
        return onLoop(f -> {
            f.complete(engine.migrations.cancel());
            engine.requestDispatch();
        });
    }

    /** The automatic reclamation policy's operator controls ({@code tapeq reclaim}). */
    public ReclaimControl reclaim() {
        return new ReclaimControl(engine);
    }

    /** Cancels the repack of a cartridge (files already moved stay moved). Fails if none is queued or running. */
    public CompletableFuture<RepackReport> cancelRepack(String barcode) {
        return onLoop(f -> {
            f.complete(engine.repacks.cancel(barcode));
            engine.requestDispatch();
        });
    }

    /** Queues an administrative task for a known cartridge; the future ends with the task. */
    private <R> CompletableFuture<R> runTask(String barcode, java.util.function.Supplier<CartridgeTask<R>> make) {
        CompletableFuture<R> result = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                cartridge(barcode);
                CartridgeTask<R> task = make.get();
                task.result.whenComplete((r, e) -> {
                    if (e != null) {
                        result.completeExceptionally(e);
                    } else {
                        result.complete(r);
                    }
                });
                engine.dispatcher.submitAdmin(task);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** What a rebuild of one cartridge found. */
    public record RebuildReport(String barcode, String family, int tapeFiles, int files, long bytes,
                                List<String> skipped) {
    }

    /** The engine, for tests in this package that inspect it on the loop. */
    Engine engineForTests() {
        return engine;
    }

    private DriveRunner drive(String id) {
        DriveRunner d = engine.dispatcher.drive(id);
        if (d == null) {
            List<String> ids = new ArrayList<>();
            engine.dispatcher.drives().forEach(r -> ids.add(r.id()));
            throw new IllegalArgumentException("unknown drive '" + id + "'; drives: " + ids);
        }
        return d;
    }

    private CartridgeRecord cartridge(String barcode) {
        CartridgeRecord c = engine.cartridges.get(barcode);
        if (c == null) {
            throw new IllegalArgumentException("unknown cartridge '" + barcode + "'");
        }
        return c;
    }

    /**
     * Completes as {@code f} does, but only once the catalog writer has done every write the engine made up to
     * then: an administrator's command is done when the catalog shows it.
     */
    private <T> CompletableFuture<T> written(CompletableFuture<T> f) {
        CompletableFuture<T> done = new CompletableFuture<>();
        f.whenComplete((v, e) -> {
            Runnable after = () -> engine.writer.afterWrites(() -> {
                if (e != null) {
                    done.completeExceptionally(e);
                } else {
                    done.complete(v);
                }
            });
            if (loop.inLoop()) {
                after.run(); // f completed on the loop, as it does unless it failed before reaching it
            } else {
                loop.execute(after);
            }
        });
        return published(done);
    }

    /** Runs {@code start} on the loop; the future ends as the one it returns does. */
    private <T> CompletableFuture<T> onLoopThen(java.util.function.Supplier<CompletableFuture<T>> start) {
        return onLoop(f -> start.get().whenComplete((r, e) -> {
            if (e != null) {
                f.completeExceptionally(e);
            } else {
                f.complete(r);
            }
        }));
    }

    /** A control call: {@code body} runs on the loop; answered after the status is published again. */
    private <T> CompletableFuture<T> onLoop(Consumer<CompletableFuture<T>> body) {
        return published(LoopCall.on(loop, body));
    }

    /**
     * Completes as {@code f} does, once the loop has published the status again ({@link StatusPublisher}): the
     * caller of a control call hears of it after its next status shows what it did.
     */
    private <T> CompletableFuture<T> published(CompletableFuture<T> f) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        f.whenComplete((v, e) -> {
            Runnable tell = () -> {
                statusPublisher.afterControl();
                if (e != null) {
                    answer.completeExceptionally(e);
                } else {
                    answer.complete(v);
                }
            };
            if (loop.inLoop()) {
                tell.run();
            } else {
                loop.execute(tell); // answered on another thread (a catalog write): published on the loop
            }
        });
        return answer;
    }

    /** Sets up a scheduler; loop, library, catalog and listener are required. */
    public static final class Builder {
        private EventLoop loop;
        private TapeLibrary library;
        private Catalog catalog;
        private SchedulerConfig config = SchedulerConfig.defaults();
        private RequestListener listener;
        private StageSpace stageSpace = StageSpace.UNLIMITED;
        private Executor io = Runnable::run;
        private MountPolicy policy;
        private int catalogCapacity = CatalogWriter.DEFAULT_CAPACITY;
        private CatalogWriter.Timing catalogTiming = CatalogWriter.Timing.NONE;
        private DriveObserver observer = DriveObserver.NONE;
        private Path repackSpool;

        public Builder loop(EventLoop v) { loop = v; return this; }
        public Builder library(TapeLibrary v) { library = v; return this; }
        public Builder catalog(Catalog v) { catalog = v; return this; }
        public Builder config(SchedulerConfig v) { config = v; return this; }
        public Builder listener(RequestListener v) { listener = v; return this; }
        /** Reserves stage buffer space before each read; the default never refuses. */
        public Builder stageSpace(StageSpace v) { stageSpace = v; return this; }
        /** Where blocking disk work runs (checking flush sources); the default runs it on the caller. */
        public Builder io(Executor v) { io = v; return this; }
        /** A policy instance instead of the one named in the config (for experiments). */
        public Builder policy(MountPolicy v) { policy = v; return this; }
        /**
         * Catalog writer tasks handed to its thread at most at a time (more wait, in order, on the loop); real
         * time only: on a {@link VirtualEventLoop} the catalog calls run inline.
         */
        public Builder catalogCapacity(int v) { catalogCapacity = v; return this; }
        /** Told the duration of every catalog writer task (on the writer's thread), e.g. for a histogram. */
        public Builder catalogTiming(CatalogWriter.Timing v) { catalogTiming = v; return this; }
        /** Told of each drive's mounts, locates, bytes and errors on the loop, e.g. for metrics. */
        public Builder driveObserver(DriveObserver v) { observer = v; return this; }
        /** Where repacks keep the bytes between read and write (a directory per cartridge); none: no repack. */
        public Builder repackSpool(Path v) { repackSpool = v; return this; }

        public Scheduler build() {
            Objects.requireNonNull(loop, "loop");
            Objects.requireNonNull(library, "library");
            Objects.requireNonNull(catalog, "catalog");
            Objects.requireNonNull(listener, "listener");
            Objects.requireNonNull(stageSpace, "stageSpace");
            Objects.requireNonNull(io, "io");
            Objects.requireNonNull(catalogTiming, "catalogTiming");
            Objects.requireNonNull(observer, "driveObserver");
            if (catalogCapacity < 1) {
                throw new IllegalArgumentException("catalogCapacity must be at least 1: " + catalogCapacity);
            }
            return new Scheduler(this);
        }
    }
}
