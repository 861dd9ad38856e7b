package org.tapeq.scheduler.engine.dispatch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.engine.drive.AdminTask;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.queue.Cartridges;
import org.tapeq.scheduler.engine.queue.PendingAggregate;
import org.tapeq.scheduler.engine.queue.QueueIndex;
import org.tapeq.scheduler.engine.queue.Queues;
import org.tapeq.scheduler.engine.queue.StageItem;
import org.tapeq.scheduler.engine.queue.WorkQueue;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The mount decision: which free drive does what, run after every event that can change it.
 *
 * <p>Design notes. {@link #dispatch()} runs coalesced into one loop task ({@link #requestDispatch()}). Drives
 * holding a cartridge with work go first, then empty drives, then idle ones without work. A drive with work of
 * its own keeps its cartridge unless the policy prefers to switch; a free drive takes the best ready queue of
 * the group furthest below its fair share ({@code share / total share of groups with work * drives in
 * service - drives the group uses}), within the group and direction caps, skipping queues whose cartridge is
 * disabled, whose last error happened on this drive (while another drive is in service), or that this drive's
 * generation cannot read ({@link MediaFit}, asked wherever a cartridge is put into a drive). For a family
 * queue the cartridge is chosen too: the drive's own if it is of the family and has room, else the fullest
 * appendable one of the family not in a drive. Only the first {@link #SCAN_LIMIT} ready queues of a set are
 * looked at, so a decision stays logarithmic in the number of queues; choosing a family queue's cartridge
 * still scans every cartridge record. Admin tasks take a free drive first. While the catalog does not answer,
 * no write queue is chosen and no admin task (label, rebuild: both rewrite catalog rows) starts; reads go on,
 * since a queued stage already knows where its file is. Background tasks ({@link BackgroundWork}) come last: a
 * free drive for which no queue is chosen and which has no work of its own runs the oldest one it can (its
 * cartridge in this drive or in none), within {@code maxBackgroundDrives}; between aggregates a slice asks
 * {@link #userWorkWaiting} and gives the drive back when user work wants it, unless background work is within
 * its share ({@code scheduler.backgroundShare}: a drive count and the drive time of the contention episode, see
 * {@link BackgroundWork}): then it keeps the drive, and a free drive that user work would take goes to background
 * work first while it is within that share. A slice always gives back a drive whose own cartridge user work wants
 * ({@link #cartridgeWanted}).
 */
public final class Dispatcher {

    private static final int SCAN_LIMIT = 64;

    /** What a free drive should do: a queue and, for a family queue, the cartridge to write on. */
    public record Choice(WorkQueue queue, String cartridge) {
    }

    /** A drive's use as counted for fair share and caps. */
    private record Use(String group, boolean write) {
    }

    private final EventLoop loop;
    private final DispatchSettings settings;
    private final MountPolicy policy;
    private final Queues queues;
    private final Cartridges cartridges;
    private final MediaFit fit;
    private final RobotGuard robot;
    private final BooleanSupplier catalogReachable;
    private final Map<String, DriveRunner> drives = new LinkedHashMap<>();
    private final Map<DriveRunner, Use> uses = new HashMap<>();
    private final List<AdminTask> adminTasks = new ArrayList<>();
    private final BackgroundWork background;
    private Runnable afterDispatch = () -> { };
    private boolean dispatchQueued;
    private boolean started;
    private int readDrives;
    private int writeDrives;

    public Dispatcher(EventLoop loop, DispatchSettings settings, MountPolicy policy, Queues queues,
                      Cartridges cartridges, BooleanSupplier catalogReachable, MediaFit fit) {
        this.loop = loop;
        this.fit = fit;
        this.catalogReachable = catalogReachable;
        this.settings = settings;
        this.policy = policy;
        this.queues = queues;
        this.cartridges = cartridges;
        this.robot = new RobotGuard(loop, settings, this::requestDispatch);
        this.background = new BackgroundWork(this, loop, settings.maxBackgroundDrives(), settings.backgroundShare(),
                settings.backgroundHoldoffMillis());
    }

    /** Which drive can mount which cartridge. */
    public MediaFit fit() {
        return fit;
    }

    public RobotGuard robot() {
        return robot;
    }

    /** Adds a drive (at start). */
    public void add(DriveRunner drive) {
        drives.put(drive.id(), drive);
    }

    /** Scheduling begins: dispatch runs from now on. */
    public void start() {
        started = true;
        requestDispatch();
    }

    /** The drive of this id, or null. */
    public DriveRunner drive(String id) {
        return drives.get(id);
    }

    /** Every drive, in inventory order. */
    public Collection<DriveRunner> drives() {
        return Collections.unmodifiableCollection(drives.values());
    }

    /** Queues an administrative task; it runs on the next free drive (or the one holding its cartridge). */
    public void submitAdmin(AdminTask task) {
        adminTasks.add(task);
        requestDispatch();
    }

    /** Runs after each dispatch (set once, at wiring): the engine notes what cannot be served. */
    public void afterEachDispatch(Runnable r) {
        afterDispatch = r;
    }

    public void requestDispatch() {
        if (!dispatchQueued) {
            dispatchQueued = true;
            loop.execute(this::dispatch);
        }
    }

    /** Gives work to idle drives (see the class comment). */
    public void dispatch() {
        dispatchQueued = false;
        if (!started) {
            return;
        }
        long now = loop.now();
        background.advance(); // drive counts change from here on
        queues.index().promoteDue(now);
        runAdminTasks();
        // Whether a drive has work of its own is computed once per dispatch (it scans the cartridge's reads).
        List<DriveRunner> free = new ArrayList<>(drives.size());
        Map<DriveRunner, Boolean> hasOwn = new HashMap<>();
        for (DriveRunner d : drives.values()) {
            if (d.isFree()) {
                free.add(d);
                hasOwn.put(d, d.hasWork(now));
            }
        }
        free.sort(Comparator.comparingInt(d -> hasOwn.get(d) ? 0 : d.mounted() == null ? 1 : 2));
        for (int i = 0; i < free.size(); i++) {
            DriveRunner d = free.get(i);
            if (!d.isFree()) {
                continue;
            }
            boolean own = hasOwn.get(d);
            if (d.state() == DriveRunner.State.IDLE && !own && d.holdsWorkForOthers(now)) {
                d.unmount(() -> { }, false); // its reads must be retried on another drive
                continue;
            }
            Choice best = choose(d, now);
            if (!own && best != null && background.runWithinShare(d)) {
                continue; // background work keeps its share of the drives while user work waits
            }
            if (own && (best == null || policy.keepMounted(d.queue(), best.queue))) {
                d.continueWork();
                continue;
            }
            if (best != null) {
                assign(d, best);
            } else if (!own && !background.runIdle(d)) {
                d.idle();
            }
        }
        background.afterDispatch();
        afterDispatch.run();
    }

    /**
     * The best ready queue this drive may take: the group furthest below its share, within caps, then the
     * highest-ranked queue of that group whose cartridge is usable now. Returns null if none.
     */
    public Choice choose(DriveRunner drive, long now) {
        if (robot.paused(now)) {
            return null; // every mount or switch needs the robot
        }
        int upDrives = 0;
        for (DriveRunner d : drives.values()) {
            if (!d.isDown()) {
                upDrives++;
            }
        }
        double totalShare = 0;
        for (QueueIndex.GroupSets g : queues.index().groups().values()) {
            if (!g.isEmpty() || g.drivesInUse() > 0) {
                totalShare += settings.groupShare().applyAsDouble(g.group());
            }
        }
        Choice best = null;
        double bestDeficit = Double.NEGATIVE_INFINITY;
        double bestRank = Double.NEGATIVE_INFINITY;
        for (QueueIndex.GroupSets g : queues.index().groups().values()) {
            if (g.isEmpty()) {
                continue;
            }
            int maxDrives = settings.groupMaxDrives().applyAsInt(g.group());
            if (maxDrives > 0 && g.drivesInUse() >= maxDrives) {
                continue;
            }
            Choice candidate = null;
            if (settings.maxReadDrives() == 0 || readDrives < settings.maxReadDrives()) {
                candidate = firstUsable(g.reads(), drive, now);
            }
            if ((settings.maxWriteDrives() == 0 || writeDrives < settings.maxWriteDrives())
                    && catalogReachable.getAsBoolean()) {
                Choice w = firstUsable(g.writes(), drive, now);
                if (w != null && (candidate == null || w.queue.rankKey() > candidate.queue.rankKey())) {
                    candidate = w;
                }
            }
            if (candidate == null) {
                continue;
            }
            double deficit = settings.groupShare().applyAsDouble(g.group()) / totalShare * upDrives - g.drivesInUse();
            if (deficit > bestDeficit + 1e-9
                    || (Math.abs(deficit - bestDeficit) <= 1e-9 && candidate.queue.rankKey() > bestRank)) {
                best = candidate;
                bestDeficit = deficit;
                bestRank = candidate.queue.rankKey();
            }
        }
        return best;
    }

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
            if (q.isHeld()) {
                continue;
            }
            CartridgeRecord c = cartridges.get(q.barcode());
            if (c == null || c.disabled()) {
                continue;
            }
            if (drive.id().equals(q.avoidDrive()) && otherDriveCouldServe(drive)) {
                continue;
            }
            if (!fit.fits(drive.id(), c)) {
                continue; // another drive generation reads it
            }
            return new Choice(q, q.barcode());
        }
        return null;
    }

    /** Whether a drive other than this one is in service. */
    public boolean otherDriveCouldServe(DriveRunner drive) {
        for (DriveRunner d : drives.values()) {
            if (d != drive && !d.isDown()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The cartridge a family queue's next aggregate goes to on this drive (see the class comment). Null (with
     * the reason noted on the queue) if there is none.
     */
    private String writeCartridgeFor(WorkQueue fq, DriveRunner drive) {
        PendingAggregate next = fq.peekWrite();
        if (next == null) {
            return null;
        }
        if (fq.writers() > 0 && fq.writeCount() <= fq.writers()) {
            return null;
        }
        long need = next.liveBytes();
        if (drive.mounted() != null) {
            CartridgeRecord own = cartridges.get(drive.mounted());
            if (own != null && fq.family().equals(own.family()) && cartridges.writable(own, need)
                    && fit.fits(drive.id(), own)) {
                fq.blocked(null);
                return own.barcode();
            }
        }
        CartridgeRecord best = null;
        for (CartridgeRecord c : cartridges.all()) {
            if (!fq.family().equals(c.family()) || !cartridges.writable(c, need) || !fit.fits(drive.id(), c)) {
                continue;
            }
            WorkQueue cq = queues.cartridgeQueueIfAny(c.barcode());
            if (cq != null && cq.isHeld()) {
                continue;
            }
            if (best == null || c.usedBytes() > best.usedBytes()) {
                best = c;
            }
        }
        if (best == null) {
            fq.blocked("no appendable cartridge of family " + fq.family() + " with " + need
                    + " bytes free that is not in a drive");
            return null;
        }
        fq.blocked(null);
        return best.barcode();
    }

    private void assign(DriveRunner d, Choice choice) {
        WorkQueue q = choice.queue;
        boolean write = q.writeOnly();
        WorkQueue cartridgeQueue;
        String pool = null;
        if (q.isFamilyQueue()) {
            cartridgeQueue = queues.cartridgeQueue(choice.cartridge, q.group());
            pool = q.family();
        } else {
            cartridgeQueue = q;
        }
        account(d, q.group(), write);
        d.serve(cartridgeQueue, pool);
    }

    // ---------------------------------------------------------------- accounting

    /** Counts the drive as used by {@code group} for reading or writing. */
    public void account(DriveRunner d, String group, boolean write) {
        unaccount(d);
        uses.put(d, new Use(group, write));
        queues.index().group(group).driveTaken();
        if (write) {
            writeDrives++;
        } else {
            readDrives++;
        }
    }

    public void unaccount(DriveRunner d) {
        Use use = uses.remove(d);
        if (use == null) {
            return;
        }
        queues.index().group(use.group()).driveFreed();
        if (use.write()) {
            writeDrives--;
        } else {
            readDrives--;
        }
    }

    /** The group the drive is accounted to, or null. */
    public String accountedGroup(DriveRunner d) {
        Use use = uses.get(d);
        return use == null ? null : use.group();
    }

    /** Whether the drive is accounted as writing (false when not accounted). */
    public boolean accountedWrite(DriveRunner d) {
        Use use = uses.get(d);
        return use != null && use.write();
    }

    // ---------------------------------------------------------------- background work

    /** The background tasks (verification): queued here, run on drives nothing else wants. */
    public BackgroundWork background() {
        return background;
    }

    /**
     * Whether user work wants the drive running a background slice: the cartridge in it has reads ready for this
     * drive or ready but to be retried on another drive (which cannot mount it while this one holds it), or a
     * queue would be chosen for it while no other drive is free to take that queue.
     */
    public boolean userWorkWaiting(DriveRunner d) {
        long now = loop.now();
        queues.index().promoteDue(now);
        if (cartridgeWanted(d)) {
            return true;
        }
        for (DriveRunner other : drives.values()) {
            if (other != d && other.isFree()) {
                return false; // dispatch gives the user work to that one
            }
        }
        return choose(d, now) != null;
    }

    /** Whether user work wants the very cartridge in this drive (reads for it, here or on another drive). */
    boolean cartridgeWanted(DriveRunner d) {
        long now = loop.now();
        return d.hasWork(now) || d.holdsWorkForOthers(now);
    }

    /** Drives not out of service. */
    int drivesInService() {
        int up = 0;
        for (DriveRunner d : drives.values()) {
            up += d.isDown() ? 0 : 1;
        }
        return up;
    }

    /**
     * Whether a background task may use this cartridge on this drive now: known and enabled, and in this drive,
     * or in none while the robot may move and no pending read of it is to be retried on another drive than this
     * one (mounting it here would keep that read from the drive it waits for).
     */
    boolean usableForBackground(String barcode, DriveRunner d) {
        CartridgeRecord c = cartridges.get(barcode);
        if (c == null || c.disabled() || !fit.fits(d.id(), c)) {
            return false;
        }
        if (barcode.equals(d.mounted())) {
            return true;
        }
        for (DriveRunner other : drives.values()) {
            if (barcode.equals(other.mounted())) {
                return false; // in another drive: mounting it here would fail
            }
        }
        WorkQueue q = queues.cartridgeQueueIfAny(barcode);
        if (q != null && (q.isHeld() || readsExclude(q, d))) {
            return false;
        }
        return !robot.paused(loop.now());
    }

    private boolean readsExclude(WorkQueue q, DriveRunner d) {
        if (!otherDriveCouldServe(d)) {
            return false;
        }
        for (StageItem it : q.reads()) {
            if (it.pending() && d.id().equals(it.excludedDrive())) {
                return true;
            }
        }
        return false;
    }

    boolean knownCartridge(String barcode) {
        return cartridges.get(barcode) != null;
    }

    /** Whether a running background slice should stop at its next boundary: drive down or cartridge disabled. */
    boolean backgroundMustStop(String barcode, DriveRunner d) {
        CartridgeRecord c = cartridges.get(barcode);
        return d.isDown() || c == null || c.disabled();
    }

    boolean catalogReachable() {
        return catalogReachable.getAsBoolean();
    }

    // ---------------------------------------------------------------- admin

    private void runAdminTasks() {
        if (!catalogReachable.getAsBoolean()) {
            return;
        }
        for (var it = adminTasks.iterator(); it.hasNext(); ) {
            AdminTask task = it.next();
            WorkQueue q = queues.cartridgeQueueIfAny(task.barcode());
            DriveRunner target = null;
            if (q != null && q.isHeld()) {
                DriveRunner holder = drives.get(q.holder().id());
                if (holder.isFree() || holder.state() == DriveRunner.State.WAITING_SPACE) {
                    target = holder;
                } else {
                    continue;
                }
            } else {
                for (DriveRunner d : drives.values()) {
                    if (d.isFree() && (target == null || d.mounted() == null) && fit.fits(d.id(), task.barcode())) {
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
