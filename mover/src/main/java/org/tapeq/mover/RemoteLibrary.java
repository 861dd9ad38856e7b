package org.tapeq.mover;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

import io.grpc.stub.StreamObserver;
import org.tapeq.mover.proto.Alert;
import org.tapeq.mover.proto.Done;
import org.tapeq.mover.proto.DriveCommand;
import org.tapeq.mover.proto.Fault;
import org.tapeq.mover.proto.HelloReply;
import org.tapeq.mover.proto.InventoryReply;
import org.tapeq.mover.proto.MountFacts;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.CartridgeCapacity;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.DriveAlerts;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.EventLoop;
import org.tapeq.scheduler.time.Threads;

/**
 * The library of a site whose drives sit on several tape servers, as the active scheduler sees it: each drive
 * operation goes by gRPC to the mover that owns the drive, carrying the scheduler's site lease epoch; the
 * cartridges are those the changer's mover reports. Every answer completes on the scheduler's loop, which never
 * waits for a mover.
 *
 * <p>Design notes. A call's callbacks run on {@code tapeq-mover-call-N}; they only decode and hop onto the loop
 * (except a read's bytes, written to the stage target there, and a write's bytes, sent from
 * {@code tapeq-mover-send-N}: see {@link RemoteTransfers}). A mover that cannot be reached fails the call as a
 * {@code DRIVE} fault naming it, and {@link MoverWatch} takes its drives out of service until it answers. What a
 * mount learnt of the cartridge (capacity, wrap ends) comes back with the mount's answer and is kept per drive,
 * on the loop, for the scheduler's questions after the mount. The drive's alerts come with each answer and are
 * reported before its completion.
 */
public final class RemoteLibrary implements TapeLibrary, AutoCloseable {

    /** Callback threads for all movers' calls; their queue never fills (one call per drive at a time). */
    private static final int CALL_THREADS = 4;
    private static final int CALL_QUEUE = 10_000;

    private final EventLoop loop;
    private final int blockSize;
    private final LongSupplier epoch;
    private final MoverSite site;
    private final Map<String, MoverClient> byDrive = new LinkedHashMap<>();
    private final List<MoverClient> movers = new ArrayList<>();
    private final MoverClient changer;
    private final RobotSplit robot;
    private final ThreadPoolExecutor calls;
    private final RemoteTransfers transfers;
    private final MoverWatch watch;
    /** What each drive's last mount learnt; owned by the loop. */
    private final Map<String, MountFacts> facts = new HashMap<>();
    /** Each drive's generation as its mover reported it at the last inventory; owned by the loop. */
    private final Map<String, org.tapeq.scheduler.model.DriveType> types = new HashMap<>();
    private volatile DriveAlerts alerts = DriveAlerts.NONE;
    /** Whether the one server serves more drives than these (a mover's part of a library served elsewhere). */
    private final boolean part;

    /**
     * A library over the movers of {@code site} for a scheduler on {@code loop} named {@code scheduler} (its
     * host and process, for the movers' logs), whose current lease epoch {@code epoch} gives.
     */
    public RemoteLibrary(MoverSite site, EventLoop loop, int blockSize, LongSupplier epoch, String scheduler) {
        this(site, loop, blockSize, epoch, scheduler, false);
    }

    /**
     * A mover's drives of a library that another process serves over the mover protocol (the {@code remote}
     * backend: {@code tapeq sim-library}, which drives the robot and every drive). {@code library} names that
     * process as its one server, with the drives this mover owns; it may serve more. Each command carries the
     * epoch {@code epoch} gives at the moment it is sent, the newest the mover admitted (not the epoch of the
     * scheduler command it relays), with the mover's site and token, which the mover checked are the
     * scheduler's. The fencing of a deposed scheduler is the mover's own (its {@code DriveTurns} stops or refuses
     * every older-epoch command when the epoch rises); the serving process adds only that it refuses a command
     * relayed by a mover the successor has not spoken to yet once another mover forwarded the newer epoch. A
     * command admitted at the old epoch whose library call is sent after the rise carries the new epoch and is
     * not refused there (see docs/architecture.md, "The library as its own process").
     */
    public static RemoteLibrary partOf(MoverSite library, EventLoop loop, int blockSize, LongSupplier epoch,
                                       String mover) {
        if (library.movers().size() != 1) {
            throw new IllegalArgumentException("a library served elsewhere is one server, not " + library.movers());
        }
        return new RemoteLibrary(library, loop, blockSize, epoch, mover, true);
    }

    private RemoteLibrary(MoverSite site, EventLoop loop, int blockSize, LongSupplier epoch, String scheduler,
                          boolean part) {
        this.part = part;
        this.loop = loop;
        this.blockSize = blockSize;
        this.epoch = epoch;
        this.site = site;
        this.calls = new ThreadPoolExecutor(CALL_THREADS, CALL_THREADS, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(CALL_QUEUE), Threads.numbered("tapeq-mover-call"),
                new ThreadPoolExecutor.AbortPolicy());
        MoverClient chosen = null;
        for (MoverEndpoint e : site.movers()) {
            MoverClient c = new MoverClient(e, scheduler, site.identity(), calls);
            movers.add(c);
            e.drives().forEach(d -> byDrive.put(d, c));
            if (e.name().equals(site.changer())) {
                chosen = c;
            }
        }
        if (chosen == null) {
            throw new IllegalArgumentException("the changer's mover '" + site.changer() + "' is not one of the movers");
        }
        this.changer = chosen;
        this.robot = new RobotSplit(this, chosen);
        this.transfers = new RemoteTransfers(this, byDrive.size(), site.stallMillis());
        this.watch = new MoverWatch(movers, epoch, site.probeMillis(), site.probeTimeoutMillis());
        watch.check(this::mismatch);
        watch.reconcile(new MoverReturn(this, watch)::check);
    }

    /**
     * Starts watching the movers; lost and returning ones are told to {@code events} (the daemon: their drives
     * out of and back into service). Called once the scheduler has started (its drives are known).
     */
    public void events(MoverEvents events) {
        watch.events(events);
        watch.start();
    }

    /**
     * Why the mover's answer to the probe does not fit this scheduler's configuration (another site, other
     * drives, another block size), or null. Such a mover is not used: its drives stay unavailable with this reason.
     */
    String mismatch(MoverClient m, HelloReply r) {
        m.sharedPools(r.getSharedPools()); // what the mover says of itself, whatever else fits
        String site = this.site.identity().site();
        if (!site.equals(r.getSite())) {
            return "refused: mover " + m.name() + " reports site '" + r.getSite() + "', this scheduler's site is '"
                    + site + "' (mover.site in its configuration)";
        }
        if (!r.getMover().equals(m.name())) {
            return "refused: the mover at " + m.address() + " calls itself '" + r.getMover() + "', not " + m.name();
        }
        List<String> drives = m.drives().stream().sorted().toList();
        if (part && !r.getDrivesList().containsAll(drives)) {
            return "refused: the library at " + m.address() + " (" + m.name() + ") serves drives "
                    + r.getDrivesList() + ", not all of this mover's " + drives;
        }
        if (!part && !drives.equals(r.getDrivesList().stream().sorted().toList())) {
            return "refused: mover " + m.name() + " owns drives " + r.getDrivesList() + ", movers.servers gives "
                    + drives;
        }
        String role = robot.roleMismatch(m, r);
        if (role != null) {
            return role;
        }
        if (r.getBlockSize() != blockSize) {
            return "refused: mover " + m.name() + "'s library writes blocks of " + r.getBlockSize()
                    + " bytes, this scheduler's library.blockSize is " + blockSize;
        }
        return null;
    }

    /**
     * Bytes of reads and writes that crossed the gRPC channels to and from the movers so far (none for a read a
     * mover delivered into the pool files itself).
     */
    public long streamedBytes() {
        return transfers.streamedBytes();
    }

    /** Whether {@code mover} is known not to answer now. */
    public boolean lost(String mover) {
        return watch.isLost(mover);
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public void inventory(Completion<Inventory> done) {
        new InventoryRound(this, movers, changer, done).start();
    }

    void inventoryCall(MoverClient m, StreamObserver<InventoryReply> answer) {
        m.unary(MoverRpc.INVENTORY, m.fence(epoch.getAsLong()), site.commandMillis(), answer);
    }

    /** A mount; at a site whose changer one mover drives, of a drive of another mover: {@link RobotSplit}. */
    @Override
    public void mount(String drive, String barcode, Completion<Void> done) {
        Consumer<Done> learnt = d -> facts.put(drive, d.getFacts());
        MoverClient m = splitMover(drive);
        if (m != null) {
            robot.mount(m, drive, barcode, learnt, done);
            return;
        }
        command(MoverRpc.MOUNT, drive, "mount of " + barcode, c -> c.setBarcode(barcode), done, d -> null, learnt);
    }

    /** An unmount; at a site whose changer one mover drives, of a drive of another mover: {@link RobotSplit}. */
    @Override
    public void unmount(String drive, Completion<Void> done) {
        MoverClient m = splitMover(drive);
        if (m != null) {
            robot.unmount(m, drive, d -> facts.remove(drive), done);
            return;
        }
        command(MoverRpc.UNMOUNT, drive, "unmount", c -> { }, done, d -> null, d -> facts.remove(drive));
    }

    /**
     * The mover of {@code drive} when its mount and unmount are split between it and the changer's mover (the site
     * says so, and it is not the changer's mover, which does both itself); null otherwise.
     */
    private MoverClient splitMover(String drive) {
        MoverClient m = byDrive.get(drive);
        return site.robotByChanger() && m != null && m != changer ? m : null;
    }

    @Override
    public void locate(String drive, long block, Completion<Void> done) {
        command(MoverRpc.LOCATE, drive, "locate", c -> c.setBlock(block), done, d -> null, d -> { });
    }

    @Override
    public void locateFile(String drive, int fileNumber, Completion<Long> done) {
        command(MoverRpc.LOCATE_FILE, drive, "locate to a tape file", c -> c.setFileNumber(fileNumber), done,
                Done::getValue, d -> { });
    }

    @Override
    public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
        MoverClient m = mover(drive, done);
        if (m != null) {
            transfers.read(m, m.command(epoch.getAsLong(), drive).setSkipBytes(skipBytes).setLength(length).build(),
                    sink, done);
        }
    }

    @Override
    public void append(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        write(drive, source, false, false, done);
    }

    /** The mover's library appends with a buffered tape mark; {@link #flush} makes it durable. */
    @Override
    public void appendBuffered(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        write(drive, source, false, true, done);
    }

    @Override
    public void flush(String drive, FlushCheck expected, Completion<Void> done) {
        command(MoverRpc.FLUSH, drive, "flush", c -> c.setBarcode(expected.barcode())
                .setFileNumber(expected.lastFile()).setEndOfData(expected.endOfData()), done, d -> null, d -> { });
    }

    @Override
    public void writeLabel(String drive, TapeFileSource label, Completion<WrittenFile> done) {
        write(drive, label, true, false, done);
    }

    private void write(String drive, TapeFileSource source, boolean label, boolean buffered,
                       Completion<WrittenFile> done) {
        MoverClient m = mover(drive, done);
        if (m != null) {
            transfers.write(m, m.command(epoch.getAsLong(), drive).setLength(source.length()).setLabel(label)
                    .setBuffered(buffered).build(), source, done);
        }
    }

    @Override
    public Optional<CartridgeCapacity> capacity(String drive) {
        MountFacts f = facts.get(drive);
        return f == null || f.getMaximumBytes() <= 0 ? Optional.empty()
                : Optional.of(new CartridgeCapacity(f.getRemainingBytes(), f.getMaximumBytes()));
    }

    @Override
    public Optional<long[]> wrapEnds(String drive) {
        MountFacts f = facts.get(drive);
        return f == null || !f.getHasWrapEnds() ? Optional.empty()
                : Optional.of(f.getWrapEndsList().stream().mapToLong(Long::longValue).toArray());
    }

    @Override
    public Optional<org.tapeq.scheduler.model.DriveType> driveType(String drive) {
        return Optional.ofNullable(types.get(drive));
    }

    @Override
    public void recommendAccessOrder(String drive, long[] starts, long[] ends, Completion<int[]> done) {
        command(MoverRpc.ACCESS_ORDER, drive, "recommended access order", c -> {
            for (int i = 0; i < starts.length; i++) {
                c.addStarts(starts[i]).addEnds(ends[i]);
            }
        }, done, d -> d.getOrder().getIndexList().stream().mapToInt(Integer::intValue).toArray(), d -> { });
    }

    /**
     * What a mover's inventory reported of {@code drive} ({@code d}, null: not reported), on the loop: its
     * generation, and what it knows of a cartridge it holds (adopted at start, so no mount told it).
     */
    void reported(String drive, org.tapeq.mover.proto.Drive d) {
        if (d == null) {
            return;
        }
        org.tapeq.scheduler.model.DriveType.byName(d.getType()).ifPresentOrElse(t -> types.put(drive, t),
                () -> types.remove(drive));
        if (d.hasFacts()) {
            facts.put(drive, d.getFacts());
        }
    }

    @Override
    public int accessOrderLimit(String drive) {
        MountFacts f = facts.get(drive);
        return f == null ? 0 : f.getAccessOrderLimit();
    }

    @Override
    public void alerts(DriveAlerts alerts) {
        this.alerts = alerts;
    }

    /** One unary drive command: sent from the caller's thread (the loop: it does not block), answered on the loop. */
    private <T> void command(io.grpc.MethodDescriptor<DriveCommand, Done> method, String drive, String what,
                             Consumer<DriveCommand.Builder> fill, Completion<T> done, Function<Done, T> value,
                             Consumer<Done> beforeSuccess) {
        MoverClient m = mover(drive, done);
        if (m != null) {
            call(m, method, drive, what, fill, done, value, beforeSuccess);
        }
    }

    /**
     * One unary command to mover {@code m} about {@code drive} (its own, or any drive for the changer's robot),
     * fenced with the epoch of the moment it is sent; answered on the loop.
     */
    <T> void call(MoverClient m, io.grpc.MethodDescriptor<DriveCommand, Done> method, String drive, String what,
                  Consumer<DriveCommand.Builder> fill, Completion<T> done, Function<Done, T> value,
                  Consumer<Done> beforeSuccess) {
        DriveCommand.Builder c = m.command(epoch.getAsLong(), drive);
        fill.accept(c);
        m.unary(method, c.build(), site.commandMillis(), new StreamObserver<>() {
            private Done answer;

            @Override
            public void onNext(Done d) {
                answer = d;
            }

            @Override
            public void onError(Throwable t) {
                failed(m, what + " on drive " + drive, t, done);
            }

            @Override
            public void onCompleted() {
                answered(m, drive, answer, done, value, beforeSuccess);
            }
        });
    }

    private MoverClient mover(String drive, Completion<?> done) {
        MoverClient m = byDrive.get(drive);
        if (m == null) {
            done.failed(new TapeFault(FaultKind.DRIVE, "no mover owns drive " + drive));
        }
        return m;
    }

    /** A mover's answer, on the loop: its alerts first, then the fault or the value. */
    <T> void answered(MoverClient m, String drive, Done d, Completion<T> done, Function<Done, T> value,
                      Consumer<Done> beforeSuccess) {
        if (d == null) {
            loop.execute(() -> done.failed(new TapeFault(FaultKind.DRIVE, "mover " + m.name()
                    + " ended its call for drive " + drive + " without an answer")));
            return;
        }
        if (!d.hasFault() && d.getResultCase() == Done.ResultCase.RESULT_NOT_SET) {
            loop.execute(() -> done.failed(new TapeFault(FaultKind.DRIVE, "mover " + m.name()
                    + " answered for drive " + drive + " with neither a result nor a fault")));
            return;
        }
        loop.execute(() -> {
            DriveAlerts a = alerts;
            for (Alert alert : d.getAlertsList()) {
                if (alert.getCleaning()) {
                    a.cleaningDue(drive, alert.getReason());
                } else {
                    a.cartridgeSuspect(drive, alert.getBarcode().isEmpty() ? null : alert.getBarcode(),
                            alert.getReason());
                }
            }
            if (d.hasFault()) {
                done.failed(fault(m, d.getFault()));
            } else {
                beforeSuccess.accept(d);
                done.succeeded(value.apply(d));
            }
        });
    }

    /**
     * A call that got no answer, on the loop. An unreachable mover is lost (its drives go out of service). So is
     * one whose command ran past its deadline: the command may still run there and its outcome is unknown, so
     * its drives stay out of service until the mover reports them idle and says what they hold ({@link
     * MoverReturn}). A call this scheduler cancelled or closed itself says nothing of the mover.
     */
    void failed(MoverClient m, String what, Throwable t, Completion<?> done) {
        TapeFault f;
        if (m.closed() || MoverClient.cancelledHere(t)) {
            f = new TapeFault(FaultKind.DRIVE, what + " failed: cancelled by this scheduler ("
                    + (m.closed() ? "closing" : m.unreachableReason(t)) + ")", t);
        } else if (MoverClient.slow(t) || MoverClient.unreachable(t)) {
            String reason = MoverClient.slow(t) ? what + " ran past its deadline of " + site.commandMillis()
                    + " ms; its outcome is unknown until the mover reports the drive idle" : m.unreachableReason(t);
            watch.lost(m, reason); // before the fault reaches the loop: the drive is unavailable, not faulty
            f = new TapeFault(FaultKind.DRIVE, what + " failed: mover " + m.name() + " unreachable: " + reason, t);
        } else {
            f = new TapeFault(FaultKind.DRIVE, what + " failed at mover " + m.name() + ": " + t, t);
        }
        loop.execute(() -> done.failed(f));
    }

    /**
     * {@code m} did not answer an inventory or cannot be used: lost, so its drives are reported unreachable
     * (holding what the changer sees in them) rather than empty and offline, whatever the cause.
     */
    void lostAtInventory(MoverClient m, Throwable t) {
        lostAtInventory(m, m.unreachableReason(t));
    }

    /** As above, with the reason given. */
    void lostAtInventory(MoverClient m, String why) {
        if (!m.closed() && !watch.isLost(m.name())) {
            watch.lost(m, why);
        }
    }

    /**
     * Asks {@code m} who it is before its inventory is used: a mover that does not fit this scheduler's
     * configuration ({@link #mismatch}) is lost with the reason and its inventory is not asked.
     */
    void checkedInventoryCall(MoverClient m, StreamObserver<InventoryReply> answer) {
        m.hello(epoch.getAsLong(), site.probeTimeoutMillis(), new StreamObserver<>() {
            private HelloReply reply;

            @Override
            public void onNext(HelloReply r) {
                reply = r;
            }

            @Override
            public void onError(Throwable t) {
                answer.onError(t);
            }

            @Override
            public void onCompleted() {
                String wrong = reply == null ? "no answer to hello" : mismatch(m, reply);
                if (wrong != null) {
                    watch.lost(m, wrong);
                    answer.onError(io.grpc.Status.FAILED_PRECONDITION.withDescription(wrong).asRuntimeException());
                } else {
                    inventoryCall(m, answer);
                }
            }
        });
    }

    /** The scheduler's fault for a mover's: same kind, the mover named. */
    static TapeFault fault(MoverClient m, Fault f) {
        String message = "mover " + m.name() + ": " + f.getMessage();
        if (f.getRefusal()) {
            return TapeFault.refusal(message);
        }
        FaultKind kind;
        try {
            kind = FaultKind.valueOf(f.getKind());
        } catch (IllegalArgumentException e) {
            kind = FaultKind.DRIVE;
        }
        return new TapeFault(kind, message);
    }

    /** Whether the changer's mover makes every robot move ({@code movers.robot: changer}). */
    boolean robotByChanger() {
        return site.robotByChanger();
    }

    long siteCommandMillis() {
        return site.commandMillis();
    }

    EventLoop loop() {
        return loop;
    }

    @Override
    public void close() {
        watch.close();
        transfers.close();
        movers.forEach(MoverClient::close);
        calls.shutdownNow();
    }
}
