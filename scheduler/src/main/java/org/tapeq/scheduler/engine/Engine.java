package org.tapeq.scheduler.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.DriveRecord;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestListener;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.model.TapeRequest;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.policy.TapeGeometry;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The scheduler's state and decisions, confined to the event loop thread.
 *
 * <p>Design notes. Requests become items in {@link WorkQueue}s: one per cartridge for stages (and for
 * aggregates bound to a cartridge that already holds their dataset), one per tape family for other
 * aggregates. The {@link QueueIndex} holds every queue that is not mounted, either waiting for the time the
 * {@link MountPolicy} makes it eligible or ready and sorted by the policy's rank. {@link #dispatch()} runs
 * after every event that can change a decision (coalesced into one task): idle drives holding a cartridge
 * with work keep it unless the policy prefers to switch; free drives take the best ready queue of the group
 * furthest below its fair share, within the group and direction caps. Each {@link DriveRunner} then works
 * its cartridge asynchronously through the {@link TapeLibrary}; every completion comes back on the loop.
 * Nothing here sleeps or reads the wall clock, so the same code runs in virtual time.
 *
 * <p>Every request ends through {@link #finish}, which removes it from its queue's counters, counts it and
 * tells the listener exactly once.
 */
final class Engine {

    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

    final EventLoop loop;
    final TapeLibrary library;
    final Catalog catalog;
    final SchedulerConfig config;
    final MountPolicy policy;
    final RequestListener listener;
    final StageSpace stageSpace;
    final Executor io;
    final QueueIndex index;
    final Counters counters = new Counters();
    final Aggregator aggregator;
    final Map<String, WorkQueue> cartridgeQueues = new HashMap<>();
    final Map<String, WorkQueue> familyQueues = new HashMap<>();
    final Map<String, CartridgeRecord> cartridges = new LinkedHashMap<>();
    final Map<String, DriveRunner> drives = new LinkedHashMap<>();
    final List<AdminTask> adminTasks = new ArrayList<>();
    private final Removals removals;
    private final Map<String, Integer> mountsThisRun = new HashMap<>();
    private final Map<MediaType, TapeGeometry> geometries = new HashMap<>();
    private long queueSeq;
    private boolean dispatchQueued;
    private int readDrives;
    private int writeDrives;
    int robotErrors;
    long robotPausedUntil = Long.MIN_VALUE;
    String robotReason;
    boolean started;

    Engine(EventLoop loop, TapeLibrary library, Catalog catalog, SchedulerConfig config, MountPolicy policy,
           RequestListener listener, StageSpace stageSpace, Executor io) {
        this.loop = loop;
        this.library = library;
        this.catalog = catalog;
        this.config = config;
        this.policy = policy;
        this.listener = listener;
        this.stageSpace = stageSpace;
        this.io = io;
        this.index = new QueueIndex(policy, loop, this::requestDispatch);
        this.aggregator = new Aggregator(this);
        this.removals = new Removals(this);
    }

    // ---------------------------------------------------------------- start

    /** Reads the inventory, reconciles it with the catalog, and creates a runner per drive. */
    void start(Inventory inventory) {
        Map<String, DriveRecord> known = new HashMap<>();
        for (DriveRecord d : catalog.drives()) {
            known.put(d.id(), d);
        }
        for (CartridgeRecord c : catalog.cartridges()) {
            cartridges.put(c.barcode(), c);
        }
        addNewCartridges(inventory);
        for (Inventory.Drive d : inventory.drives()) {
            DriveRecord rec = known.get(d.id());
            DriveRunner runner = new DriveRunner(this, d.id());
            if (rec != null && !rec.up()) {
                runner.markDown(rec.reason(), false);
            } else if (!d.online()) {
                runner.markDown("reported offline by the library", true);
            }
            if (d.loadedBarcode() != null) {
                runner.adoptLoaded(d.loadedBarcode());
            }
            drives.put(d.id(), runner);
        }
        started = true;
        LOG.info("Scheduler started: {} drives, {} cartridges, policy {}", drives.size(), cartridges.size(),
                config.policy());
        requestDispatch();
    }

    /** Enters cartridges the catalog does not know as {@code UNKNOWN} (label not read yet); returns their barcodes. */
    List<String> addNewCartridges(Inventory inventory) {
        List<String> added = new ArrayList<>();
        for (Inventory.Cartridge c : inventory.cartridges()) {
            if (!cartridges.containsKey(c.barcode())) {
                MediaType media = mediaOf(c);
                CartridgeRecord rec = new CartridgeRecord(c.barcode(), media.name(), null, CartridgeState.UNKNOWN,
                        media.capacityBytes(), 0, 0, 0, 0, 0, false, "label not read yet");
                catalog.putCartridge(rec);
                cartridges.put(c.barcode(), rec);
                added.add(c.barcode());
            }
        }
        return added;
    }

    private static MediaType mediaOf(Inventory.Cartridge c) {
        if (c.mediaType() != null) {
            MediaType m = MediaType.byName(c.mediaType()).orElse(null);
            if (m != null) {
                return m;
            }
        }
        return MediaType.fromBarcode(c.barcode()).orElse(MediaType.LTO9);
    }

    MediaType mediaOf(String barcode) {
        CartridgeRecord c = cartridges.get(barcode);
        if (c == null) {
            return MediaType.fromBarcode(barcode).orElse(MediaType.LTO9);
        }
        return MediaType.byName(c.mediaType()).orElse(MediaType.LTO9);
    }

    // ---------------------------------------------------------------- admission

    void admitStage(StageItem item, String barcode) {
        counters.stagesSubmitted++;
        if (!cartridges.containsKey(barcode)) {
            finish(item, failed(FaultKind.NOT_FOUND, item.request.pnfsid() + ": catalog places it on cartridge "
                    + barcode + ", which is not in the library", 0));
            return;
        }
        WorkQueue q = cartridgeQueue(barcode, item.request.group());
        if (q.isEmpty() && q.slot != WorkQueue.Slot.READY && q.slot != WorkQueue.Slot.WAITING) {
            q.group = item.request.group(); // a queue is accounted to the group whose requests it holds
        }
        q.addRead(item);
        if (q.drive != null) {
            q.arrivedDuringPass++;
            q.drive.workArrived();
        } else {
            index.update(q);
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

    WorkQueue cartridgeQueue(String barcode, String group) {
        return cartridgeQueues.computeIfAbsent(barcode,
                b -> new WorkQueue(b, null, mediaOf(b), group, queueSeq++));
    }

    WorkQueue familyQueue(String family, String group) {
        return familyQueues.computeIfAbsent(family,
                f -> new WorkQueue(null, f, familyMedia(f), group, queueSeq++));
    }

    private MediaType familyMedia(String family) {
        for (CartridgeRecord c : cartridges.values()) {
            if (family.equals(c.family())) {
                return MediaType.byName(c.mediaType()).orElse(MediaType.LTO9);
            }
        }
        return MediaType.LTO9;
    }

    /** A closed, prepared aggregate goes to a cartridge holding its dataset if one has room, else to its family. */
    void queueWrite(PendingAggregate agg, boolean front) {
        String target = null;
        if (!agg.dataset.isEmpty()) {
            for (String barcode : aggregator.cartridgesHolding(agg.family, agg.dataset)) {
                CartridgeRecord c = cartridges.get(barcode);
                if (c != null && writable(c, agg.liveBytes())) {
                    target = barcode;
                    break;
                }
            }
        }
        WorkQueue q = target != null ? cartridgeQueue(target, agg.group) : familyQueue(agg.family, agg.group);
        if (front) {
            q.addWriteFirst(agg);
        } else {
            q.addWrite(agg);
        }
        if (q.drive != null) {
            q.drive.workArrived();
        } else {
            index.update(q);
            if (q.isFamilyQueue()) {
                for (DriveRunner d : drives.values()) {
                    d.workArrived();
                }
            }
        }
        requestDispatch();
    }

    boolean writable(CartridgeRecord c, long bytes) {
        return c.state().writable() && !c.disabled() && c.freeBytes() >= bytes + config.fullMarginBytes() / 10;
    }

    // ---------------------------------------------------------------- cancel

    void cancel(Ticket ticket) {
        if (ticket instanceof StageItem item) {
            if (item.cancelled || item.state == StageItem.DONE) {
                return;
            }
            item.cancelled = true;
            if (item.state == StageItem.QUEUED) {
                finish(item, new Outcome.Cancelled());
                if (item.queue != null && item.queue.drive != null) {
                    item.queue.drive.retryIfWaiting(); // the unit it waits for space for may have shrunk
                }
            }
            // A read in progress finishes; its completion reports the cancellation.
        } else if (ticket instanceof FlushItem item) {
            if (item.cancelled || item.done) {
                return;
            }
            item.cancelled = true;
            aggregator.cancelled(item);
        } else if (ticket instanceof RemoveItem item) {
            removals.cancel(item);
        }
    }

    /** The caller released stage buffer space: drives waiting for it ask again. */
    void spaceFreed() {
        for (DriveRunner d : drives.values()) {
            d.retryIfWaiting();
        }
    }

    // ---------------------------------------------------------------- outcomes

    /** The one place a stage ends: clears its queue's counters and tells the listener. */
    void finish(StageItem item, Outcome outcome) {
        if (item.state == StageItem.DONE) {
            return;
        }
        boolean queued = item.queue != null;
        item.state = StageItem.DONE;
        if (queued) {
            item.queue.readGone(item);
            if (item.queue.drive == null) {
                index.update(item.queue);
            }
        }
        counters.count(outcome, true);
        deliver(item.request, outcome);
    }

    /** The one place a flush ends. */
    void finish(FlushItem item, Outcome outcome) {
        if (item.done) {
            return;
        }
        item.done = true;
        counters.count(outcome, false);
        deliver(item.request, outcome);
    }

    void deliver(TapeRequest request, Outcome outcome) {
        try {
            listener.completed(request, outcome);
        } catch (RuntimeException e) {
            LOG.error("[{}] listener failed on outcome {}: {}", request.pnfsid(), outcome, e.toString(), e);
        }
    }

    Outcome.Failed failed(FaultKind kind, String message, int attempts) {
        return new Outcome.Failed(kind, Outcomes.returnCode(kind), message, attempts);
    }

    /**
     * A read of this item failed with {@code fault} on {@code drive}: retry after a backoff, avoiding the
     * drive, or fail for good after the last attempt or for a fault that retrying cannot fix.
     */
    void readFailed(StageItem item, TapeFault fault, String drive) {
        item.attempts++;
        String where = item.request.pnfsid() + " on " + item.queue.barcode + " tape file " + item.tapeFile;
        if (item.cancelled) {
            finish(item, new Outcome.Cancelled());
        } else if (!Outcomes.retriable(fault.kind()) || item.attempts >= config.maxAttempts()) {
            finish(item, failed(fault.kind(), "cannot stage " + where + " after " + item.attempts + " attempt(s): "
                    + fault.getMessage(), item.attempts));
        } else {
            item.state = StageItem.QUEUED;
            item.excludedDrive = drive;
            item.notBefore = loop.now() + (config.retryBackoffMillis() << (item.attempts - 1));
            LOG.warn("[{}] read failed (attempt {} of {}), retrying after backoff: {}", item.request.pnfsid(),
                    item.attempts, config.maxAttempts(), fault.toString());
        }
    }

    // ---------------------------------------------------------------- cartridges

    void updateCartridge(CartridgeRecord updated) {
        cartridges.put(updated.barcode(), updated);
        catalog.putCartridge(updated);
        if (!updated.state().writable() || updated.disabled()) {
            rebindWrites(updated.barcode(), true);
        }
    }

    /**
     * Aggregates bound to a cartridge go back to their family queue when it can no longer take them: all of
     * them ({@code all}, the cartridge is closed or disabled) or those that no longer fit.
     */
    private void rebindWrites(String barcode, boolean all) {
        WorkQueue q = cartridgeQueues.get(barcode);
        CartridgeRecord c = cartridges.get(barcode);
        if (q == null || c == null || q.writes.isEmpty()) {
            return;
        }
        List<PendingAggregate> keep = new ArrayList<>();
        List<PendingAggregate> moved = new ArrayList<>();
        PendingAggregate agg;
        while ((agg = q.takeWrite()) != null) {
            (!all && writable(c, agg.liveBytes()) ? keep : moved).add(agg);
        }
        keep.forEach(q::addWrite);
        if (moved.isEmpty()) {
            return;
        }
        if (q.drive == null) {
            index.update(q);
        }
        for (PendingAggregate a : moved) {
            WorkQueue fq = familyQueue(a.family, a.group);
            fq.addWrite(a);
            index.update(fq);
        }
        requestDispatch();
    }

    /** Counts a mount (and a remount if the cartridge was mounted before in this run) in the catalog too. */
    void noteMount(String barcode) {
        counters.mounts++;
        if (mountsThisRun.merge(barcode, 1, Integer::sum) > 1) {
            counters.remounts++;
        }
        long now = loop.now();
        try {
            catalog.recordMount(barcode, now);
        } catch (CatalogException e) {
            LOG.warn("Cannot record the mount of {}: {}", barcode, e.getMessage());
        }
        CartridgeRecord c = cartridges.get(barcode);
        if (c != null) {
            cartridges.put(barcode, new CartridgeRecord(c.barcode(), c.mediaType(), c.family(), c.state(),
                    c.capacityBytes(), c.usedBytes(), c.reclaimableBytes(), c.tapeFiles(), c.mountCount() + 1, now,
                    c.disabled(), c.reason()));
        }
    }

    /** Mounts per cartridge in this run. */
    Map<String, Integer> mountsThisRun() {
        return mountsThisRun;
    }

    /** Re-reads a cartridge after a commit, and closes it for writing when nearly full. */
    void refreshCartridge(String barcode) {
        CartridgeRecord c = catalog.cartridge(barcode).orElse(null);
        if (c == null) {
            return;
        }
        cartridges.put(barcode, c);
        if (c.state() == CartridgeState.APPENDABLE && c.freeBytes() < config.fullMarginBytes()) {
            updateCartridge(c.withState(CartridgeState.FULL, "closed with " + c.freeBytes() + " bytes free"));
        } else {
            rebindWrites(barcode, false); // aggregates bound while there was room may no longer fit
        }
    }

    TapeGeometry geometry(MediaType media) {
        return geometries.computeIfAbsent(media, m -> new TapeGeometry(m, library.blockSize()));
    }

    // ---------------------------------------------------------------- dispatch

    void requestDispatch() {
        if (!dispatchQueued) {
            dispatchQueued = true;
            loop.execute(this::dispatch);
        }
    }

    /** Gives work to idle drives (see the class comment). */
    void dispatch() {
        dispatchQueued = false;
        if (!started) {
            return;
        }
        long now = loop.now();
        index.promoteDue(now);
        runAdminTasks();
        // Drives holding a cartridge with work first, then empty drives, then idle ones without work.
        // Whether a drive has work of its own is computed once per dispatch (it scans the cartridge's reads).
        List<DriveRunner> free = new ArrayList<>(drives.size());
        Map<DriveRunner, Boolean> hasOwn = new HashMap<>();
        for (DriveRunner d : drives.values()) {
            if (d.isFree()) {
                free.add(d);
                hasOwn.put(d, d.hasWork(now));
            }
        }
        free.sort(java.util.Comparator.comparingInt(d -> hasOwn.get(d) ? 0 : d.mounted == null ? 1 : 2));
        for (DriveRunner d : free) {
            if (!d.isFree()) {
                continue;
            }
            boolean own = hasOwn.get(d);
            if (d.state == DriveRunner.State.IDLE && !own && d.holdsWorkForOthers(now)) {
                d.unmount(() -> { }, false); // its reads must be retried on another drive
                continue;
            }
            Choice best = choose(d, now);
            if (own && (best == null || policy.keepMounted(d.queue, best.queue))) {
                d.continueWork();
                continue;
            }
            if (best != null) {
                assign(d, best);
            } else {
                d.idle();
            }
        }
    }

    /** What a free drive should do: a queue and, for a family queue, the cartridge to write on. */
    record Choice(WorkQueue queue, String cartridge) {
    }

    /**
     * The best ready queue this drive may take: the group furthest below its share, within caps, then the
     * highest-ranked queue of that group whose cartridge is usable now. Returns null if none.
     */
    Choice choose(DriveRunner drive, long now) {
        if (now < robotPausedUntil) {
            return null; // every mount or switch needs the robot
        }
        int upDrives = 0;
        for (DriveRunner d : drives.values()) {
            if (!d.down) {
                upDrives++;
            }
        }
        double totalShare = 0;
        for (QueueIndex.GroupSets g : index.groups().values()) {
            if (!g.isEmpty() || g.drivesInUse > 0) {
                totalShare += config.group(g.group).share();
            }
        }
        Choice best = null;
        double bestDeficit = Double.NEGATIVE_INFINITY;
        double bestRank = Double.NEGATIVE_INFINITY;
        for (QueueIndex.GroupSets g : index.groups().values()) {
            if (g.isEmpty()) {
                continue;
            }
            SchedulerConfig.GroupShare share = config.group(g.group);
            if (share.maxDrives() > 0 && g.drivesInUse >= share.maxDrives()) {
                continue;
            }
            Choice candidate = null;
            if (config.maxReadDrives() == 0 || readDrives < config.maxReadDrives()) {
                candidate = firstUsable(g.reads, drive, now);
            }
            if (config.maxWriteDrives() == 0 || writeDrives < config.maxWriteDrives()) {
                Choice w = firstUsable(g.writes, drive, now);
                if (w != null && (candidate == null || w.queue.rankKey > candidate.queue.rankKey)) {
                    candidate = w;
                }
            }
            if (candidate == null) {
                continue;
            }
            double deficit = share.share() / totalShare * upDrives - g.drivesInUse;
            if (deficit > bestDeficit + 1e-9
                    || (Math.abs(deficit - bestDeficit) <= 1e-9 && candidate.queue.rankKey > bestRank)) {
                best = candidate;
                bestDeficit = deficit;
                bestRank = candidate.queue.rankKey;
            }
        }
        return best;
    }

    private static final int SCAN_LIMIT = 64;

    private Choice firstUsable(Iterable<WorkQueue> ranked, DriveRunner drive, long now) {
        int scanned = 0;
        for (WorkQueue q : ranked) {
            if (++scanned > SCAN_LIMIT) {
                break;
            }
            if (q.isFamilyQueue()) {
                String cartridge = writeCartridgeFor(q, drive);
                if (cartridge != null) {
                    return new Choice(q, cartridge);
                }
                continue;
            }
            if (q.drive != null) {
                continue;
            }
            CartridgeRecord c = cartridges.get(q.barcode);
            if (c == null || c.disabled()) {
                continue;
            }
            if (drive.id.equals(q.avoidDrive) && otherDriveCouldServe(drive)) {
                continue;
            }
            return new Choice(q, q.barcode);
        }
        return null;
    }

    /** Whether a drive other than this one is in service. */
    boolean otherDriveCouldServe(DriveRunner drive) {
        for (DriveRunner d : drives.values()) {
            if (d != drive && !d.down) {
                return true;
            }
        }
        return false;
    }

    /**
     * The cartridge a family queue's next aggregate goes to on this drive: the drive's own cartridge if it
     * is of the family and has room, else the fullest appendable cartridge of the family that is not in a
     * drive. Null (with the reason noted on the queue) if there is none.
     */
    String writeCartridgeFor(WorkQueue fq, DriveRunner drive) {
        PendingAggregate next = fq.writes.peek();
        if (next == null) {
            return null;
        }
        if (fq.writers > 0 && fq.writes.size() <= fq.writers) {
            return null;
        }
        long need = next.liveBytes();
        if (drive.mounted != null) {
            CartridgeRecord own = cartridges.get(drive.mounted);
            if (own != null && fq.family.equals(own.family()) && writable(own, need)) {
                return own.barcode();
            }
        }
        CartridgeRecord best = null;
        for (CartridgeRecord c : cartridges.values()) {
            if (!fq.family.equals(c.family()) || !writable(c, need)) {
                continue;
            }
            WorkQueue cq = cartridgeQueues.get(c.barcode());
            if (cq != null && cq.drive != null) {
                continue;
            }
            if (best == null || c.usedBytes() > best.usedBytes()) {
                best = c;
            }
        }
        if (best == null) {
            fq.blockedReason = "no appendable cartridge of family " + fq.family + " with " + need
                    + " bytes free that is not in a drive";
            return null;
        }
        fq.blockedReason = null;
        return best.barcode();
    }

    private void assign(DriveRunner d, Choice choice) {
        WorkQueue q = choice.queue;
        boolean write = q.writeOnly();
        WorkQueue cartridgeQueue;
        String pool = null;
        if (q.isFamilyQueue()) {
            cartridgeQueue = cartridgeQueue(choice.cartridge, q.group);
            pool = q.family;
        } else {
            cartridgeQueue = q;
        }
        account(d, q.group, write);
        d.serve(cartridgeQueue, pool);
    }

    // ---------------------------------------------------------------- accounting

    void account(DriveRunner d, String group, boolean write) {
        unaccount(d);
        d.accountedGroup = group;
        d.accountedWrite = write;
        index.group(group).drivesInUse++;
        if (write) {
            writeDrives++;
        } else {
            readDrives++;
        }
    }

    void unaccount(DriveRunner d) {
        if (d.accountedGroup == null) {
            return;
        }
        index.group(d.accountedGroup).drivesInUse--;
        if (d.accountedWrite) {
            writeDrives--;
        } else {
            readDrives--;
        }
        d.accountedGroup = null;
    }

    // ---------------------------------------------------------------- robot

    void robotSucceeded() {
        robotErrors = 0;
        robotReason = null;
    }

    void robotFailed(TapeFault fault) {
        robotErrors++;
        robotReason = fault.getMessage();
        if (robotErrors >= config.robotErrorLimit()) {
            robotPausedUntil = loop.now() + config.retryBackoffMillis();
            robotReason = "mounts paused until " + robotPausedUntil + " after " + robotErrors
                    + " consecutive robot errors; last: " + fault.getMessage();
            LOG.error("{}", robotReason);
            loop.schedule(config.retryBackoffMillis(), this::requestDispatch);
        }
    }

    // ---------------------------------------------------------------- admin

    /** An administrative job that needs a drive (labelling, rebuild). */
    interface AdminTask {
        /** The cartridge it works on. */
        String barcode();

        /** Runs it on a free drive that holds or will mount the cartridge; must end with {@code drive.idle()}. */
        void run(DriveRunner drive);

        void failed(TapeFault fault);
    }

    void submitAdmin(AdminTask task) {
        adminTasks.add(task);
        requestDispatch();
    }

    private void runAdminTasks() {
        for (var it = adminTasks.iterator(); it.hasNext(); ) {
            AdminTask task = it.next();
            WorkQueue q = cartridgeQueues.get(task.barcode());
            DriveRunner target = null;
            if (q != null && q.drive != null) {
                if (q.drive.isFree() || q.drive.state == DriveRunner.State.WAITING_SPACE) {
                    target = q.drive;
                } else {
                    continue;
                }
            } else {
                for (DriveRunner d : drives.values()) {
                    if (d.isFree() && (target == null || d.mounted == null)) {
                        target = d;
                    }
                }
            }
            if (target == null) {
                continue;
            }
            it.remove();
            target.runAdmin(task);
        }
    }
}
