package org.tapeq.mover;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.mover.proto.Cartridge;
import org.tapeq.mover.proto.Done;
import org.tapeq.mover.proto.Drive;
import org.tapeq.mover.proto.DriveCommand;
import org.tapeq.mover.proto.Fault;
import org.tapeq.mover.proto.Fence;
import org.tapeq.mover.proto.HelloReply;
import org.tapeq.mover.proto.HelloRequest;
import org.tapeq.mover.proto.InventoryReply;
import org.tapeq.mover.proto.Library;
import org.tapeq.mover.proto.MountFacts;
import org.tapeq.mover.proto.Order;
import org.tapeq.mover.proto.ReadChunk;
import org.tapeq.mover.proto.WriteChunk;
import org.tapeq.mover.proto.Written;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.CartridgeCapacity;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.RobotMoves;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * The mover's gRPC service: each command is fenced ({@link EpochFence}), checked against the drives this mover
 * owns, and passed to the local library on the mover's loop; the library's completion becomes the answer.
 *
 * <p>Design notes. gRPC threads only decode, check and hand over; every library call starts on {@code loop}
 * (the library's own event loop), and its completion, also on that loop, sends the answer. Read and write move
 * their bytes on the library's copy thread through {@link ChunkedOutput} and {@link IncomingBytes}, both flow
 * controlled, so neither side buffers a whole tape file; a read whose command names pool files (a mover with
 * {@code pools.shared}) writes them itself instead ({@link PoolReads}) and sends only the answer, and a write whose
 * command describes its tape file reads the pool files itself ({@link PoolWrites}), receiving no data. A refused
 * command never reaches the library. An admitted command waits for its drive ({@link DriveTurns}: one operation per drive, a deposed epoch's commands stopped).
 */
final class MoverService {

    private static final Logger LOG = LoggerFactory.getLogger(MoverService.class);

    private final String name;
    private final Set<String> drives;
    private final TapeLibrary library;
    private final AlertBox alerts;
    private final Executor loop;
    private final EpochFence fence;
    private final SiteIdentity identity;
    private final long stallMillis;
    private final AtomicLong refused = new AtomicLong();
    private final DriveTurns turns;
    /** The pool files this mover reads and writes itself, or null: bytes cross the stream. */
    private final PoolFiles pools;
    /** Whether this mover drives the changer: it alone takes robot commands, for any mover's drive. */
    private final boolean changer;
    private static final Runnable NOTHING = () -> { };
    /** The turns of the robot's commands: one at a time, fenced like a drive's (no drive is named so). */
    static final String ROBOT = "(robot)";

    MoverService(String name, Set<String> drives, TapeLibrary library, AlertBox alerts, Executor loop,
                 EpochFence fence, SiteIdentity identity, long stallMillis, PoolFiles pools, boolean changer) {
        this.pools = pools;
        this.name = name;
        this.changer = changer;
        this.drives = Set.copyOf(drives);
        this.library = library;
        this.alerts = alerts;
        this.loop = loop;
        this.fence = fence;
        this.identity = identity;
        this.stallMillis = stallMillis;
        this.turns = new DriveTurns(name, fence::newest);
        fence.onRise(turns::fence);
    }

    /**
     * Stops every command on the mover's drives (transfers through their byte streams) and refuses new ones, then
     * waits at most {@code millis} for the library's operations to end; returns those still running.
     */
    List<String> stop(long millis) throws InterruptedException {
        turns.stopAll("mover " + name + " is stopping");
        return turns.awaitIdle(millis);
    }

    DriveTurns turns() {
        return turns;
    }

    EpochFence fence() {
        return fence;
    }

    /** Commands refused so far (fenced, or for a drive this mover does not own). */
    long refused() {
        return refused.get();
    }

    void hello(HelloRequest request, StreamObserver<HelloReply> out) {
        String foreign = identity.refusal(name, request.getFence(), "hello");
        if (foreign != null) {
            refused.incrementAndGet();
            LOG.error("{}", foreign);
            out.onError(Status.PERMISSION_DENIED.withDescription(foreign).asRuntimeException());
            return;
        }
        fence.refusal(request.getFence(), "hello"); // a newer epoch is remembered; an older one learns it is deposed
        out.onNext(HelloReply.newBuilder().setMover(name).setSite(identity.site())
                .addAllDrives(drives.stream().sorted().toList())
                .setEpochSeen(fence.newest()).setBlockSize(library.blockSize()).setSharedPools(pools != null)
                .setChanger(changer).build());
        out.onCompleted();
    }

    void inventory(Fence request, StreamObserver<InventoryReply> out) {
        String refused = refusal(request, "inventory");
        if (refused != null) {
            this.refused.incrementAndGet();
            out.onNext(InventoryReply.newBuilder().setFault(refusalFault(refused)).build());
            out.onCompleted();
            return;
        }
        loop.execute(() -> library.inventory(new Completion<>() {
            @Override
            public void succeeded(Inventory inv) {
                Library.Builder b = Library.newBuilder();
                for (Inventory.Drive d : inv.drives()) {
                    if (drives.contains(d.id())) {
                        Drive.Builder db = Drive.newBuilder().setId(d.id()).setOnline(d.online())
                                .setOrphanRunning(turns.orphanRunning(d.id()))
                                .setLoadedBarcode(d.loadedBarcode() == null ? "" : d.loadedBarcode());
                        library.driveType(d.id()).ifPresent(t -> db.setType(t.name()));
                        if (d.loadedBarcode() != null) {
                            db.setFacts(facts(d.id())); // a cartridge adopted without a mount: what the drive knows
                        }
                        b.addDrives(db);
                    }
                }
                for (Inventory.Cartridge c : inv.cartridges()) {
                    b.addCartridges(Cartridge.newBuilder().setBarcode(c.barcode()).setLocation(c.location())
                            .setMediaType(c.mediaType() == null ? "" : c.mediaType()));
                }
                out.onNext(InventoryReply.newBuilder().setLibrary(b).build());
                out.onCompleted();
            }

            @Override
            public void failed(TapeFault fault) {
                out.onNext(InventoryReply.newBuilder().setFault(fault(fault)).build());
                out.onCompleted();
            }
        }));
    }

    void mount(DriveCommand c, StreamObserver<Done> out) {
        if (robotNotOurs(c, "mount of " + c.getBarcode(), out)) {
            return;
        }
        run(c, "mount of " + c.getBarcode(), out, NOTHING, t -> library.mount(c.getDrive(), c.getBarcode(),
                answer(t, out, v -> Done.newBuilder().setValue(0).setFacts(facts(c.getDrive())))));
    }

    void unmount(DriveCommand c, StreamObserver<Done> out) {
        if (robotNotOurs(c, "unmount", out)) {
            return;
        }
        run(c, "unmount", out, NOTHING, t -> library.unmount(c.getDrive(),
                answer(t, out, v -> Done.newBuilder().setValue(0))));
    }

    void locate(DriveCommand c, StreamObserver<Done> out) {
        run(c, "locate to block " + c.getBlock(), out, NOTHING, t -> library.locate(c.getDrive(), c.getBlock(),
                answer(t, out, v -> Done.newBuilder().setValue(0))));
    }

    void locateFile(DriveCommand c, StreamObserver<Done> out) {
        run(c, "locate to tape file " + c.getFileNumber(), out, NOTHING, t -> library.locateFile(c.getDrive(),
                c.getFileNumber(), answer(t, out, block -> Done.newBuilder().setValue(block))));
    }

    void accessOrder(DriveCommand c, StreamObserver<Done> out) {
        long[] starts = c.getStartsList().stream().mapToLong(Long::longValue).toArray();
        long[] ends = c.getEndsList().stream().mapToLong(Long::longValue).toArray();
        run(c, "recommended access order of " + c.getStartsCount() + " ranges", out, NOTHING,
                t -> library.recommendAccessOrder(c.getDrive(), starts, ends, answer(t, out, order -> Done.newBuilder()
                        .setOrder(Order.newBuilder().addAllIndex(java.util.Arrays.stream(order).boxed().toList())))));
    }

    void flush(DriveCommand c, StreamObserver<Done> out) {
        // a check the scheduler did not fill in (a flush from an older scheduler) fails to start, never succeeds
        run(c, "flush", out, NOTHING, t -> library.flush(c.getDrive(), new FlushCheck(c.getBarcode(),
                c.getFileNumber(), c.getEndOfData()), answer(t, out, v -> Done.newBuilder().setValue(0))));
    }

    /**
     * Whether a mount or unmount (a robot move and a load or unload) is refused: this mover does not drive the
     * changer and its library could leave the robot to the mover that does (a real library's shared changer, which
     * only one host may move), so the scheduler must split it ({@code movers.robot: changer}). A library that cannot
     * split (the simulated one, or one served elsewhere) keeps mounting through its own robot.
     */
    private boolean robotNotOurs(DriveCommand c, String what, StreamObserver<Done> out) {
        if (changer || !(library instanceof RobotMoves)) {
            return false;
        }
        refuse(out, "mover " + name + " does not drive the changer (mover.changer): " + what + " on drive "
                + c.getDrive() + " refused; its drives are loaded and unloaded, the changer's mover moves the"
                + " cartridges (movers.robot: changer in the scheduler's configuration)");
        return true;
    }

    /** The robot moves a cartridge from its slot into a drive, any mover's: only the changer's mover does. */
    void robotLoad(DriveCommand c, StreamObserver<Done> out) {
        robot(c, "robot move of " + c.getBarcode() + " into drive " + c.getDrive(), out,
                (m, t) -> m.robotLoad(c.getDrive(), c.getBarcode(),
                        answer(t, out, v -> Done.newBuilder().setValue(0))));
    }

    /** The robot returns the cartridge a drive (any mover's) ejected to a slot: only the changer's mover does. */
    void robotUnload(DriveCommand c, StreamObserver<Done> out) {
        robot(c, "robot move out of drive " + c.getDrive(), out,
                (m, t) -> m.robotUnload(c.getDrive(), answer(t, out, v -> Done.newBuilder().setValue(0))));
    }

    /** The drive loads the cartridge the robot put into it; the answer carries what it learnt, as a mount's. */
    void load(DriveCommand c, StreamObserver<Done> out) {
        RobotMoves m = split(out, "load of " + c.getBarcode() + " on drive " + c.getDrive());
        if (m != null) {
            run(c, "load of " + c.getBarcode(), out, NOTHING, t -> m.load(c.getDrive(), c.getBarcode(),
                    answer(t, out, v -> Done.newBuilder().setValue(0).setFacts(facts(c.getDrive())))));
        }
    }

    /** The drive rewinds and ejects its cartridge for the robot. */
    void unload(DriveCommand c, StreamObserver<Done> out) {
        RobotMoves m = split(out, "unload of drive " + c.getDrive());
        if (m != null) {
            run(c, "unload", out, NOTHING, t -> m.unload(c.getDrive(),
                    answer(t, out, v -> Done.newBuilder().setValue(0))));
        }
    }

    /**
     * A robot command: refused unless this mover drives the changer and its library moves the robot apart from the
     * drives; fenced like a drive command, and run one at a time (the robot's own turns), whichever drive it names.
     */
    private void robot(DriveCommand c, String what, StreamObserver<Done> out,
                       java.util.function.BiConsumer<RobotMoves, DriveTurns.Turn> operation) {
        String refused = refusal(c.getFence(), what);
        if (refused == null && !changer) {
            refused = "mover " + name + " does not drive the changer (mover.changer): " + what + " refused";
        }
        if (refused != null) {
            refuse(out, refused);
            return;
        }
        RobotMoves m = split(out, what);
        if (m != null) {
            turns.submit(new DriveTurns.Turn(ROBOT, c.getFence().getEpoch(), what,
                    t -> startOnLoop(t, out, x -> operation.accept(m, x)), NOTHING, why -> refuse(out, why),
                    ((ServerCallStreamObserver<?>) out)::isCancelled));
        }
    }

    /** The library as robot moves apart from drive loads, or null (the caller refused: it cannot split them). */
    private RobotMoves split(StreamObserver<Done> out, String what) {
        if (library instanceof RobotMoves m) {
            return m;
        }
        refuse(out, "mover " + name + "'s library does not move the robot apart from the drives: " + what
                + " refused");
        return null;
    }

    void read(DriveCommand c, StreamObserver<ReadChunk> out) {
        ServerCallStreamObserver<ReadChunk> call = (ServerCallStreamObserver<ReadChunk>) out;
        if (c.getFilesCount() > 0) {
            readIntoFiles(c, call);
            return;
        }
        ReadyGate gate = new ReadyGate(call, stallMillis);
        call.setOnReadyHandler(gate);
        call.setOnCancelHandler(gate::close);
        StreamObserver<Done> last = lastChunk(call, gate::close);
        run(c, "read", last, call::isCancelled, gate::close, t -> library.read(c.getDrive(), c.getSkipBytes(),
                c.getLength(),
                () -> new ChunkedOutput(gate, chunk -> call.onNext(ReadChunk.newBuilder().setData(chunk).build())),
                answer(t, last, n -> Done.newBuilder().setValue(n))));
    }

    /**
     * A read whose bytes the mover writes into the pool files the command names ({@link PoolFiles}: only under
     * its configured request directories), each forced to disk before the answer; only the answer crosses the
     * stream, with each file's bytes and Adler-32 ({@link PoolReads}).
     */
    private void readIntoFiles(DriveCommand c, ServerCallStreamObserver<ReadChunk> call) {
        PoolReads.Read read = PoolReads.start(name, pools, c);
        call.setOnCancelHandler(read::stop); // the caller gave up (deadline, lost connection): stop writing the files
        StreamObserver<Done> last = lastChunk(call, () -> { });
        run(c, read.what(), last, call::isCancelled, read::stop, t -> library.read(c.getDrive(), c.getSkipBytes(),
                c.getLength(), read.sink(), answer(t, last, n -> Done.newBuilder().setValue(n)
                        .addAllFiles(read.results(n)))));
    }

    /** The last message of a read's stream: its answer ({@code before} runs first), then the stream's end. */
    private static StreamObserver<Done> lastChunk(ServerCallStreamObserver<ReadChunk> call, Runnable before) {
        return new StreamObserver<>() {
            @Override
            public void onNext(Done done) {
                before.run();
                call.onNext(ReadChunk.newBuilder().setDone(done).build());
            }

            @Override
            public void onError(Throwable t) {
                call.onError(t);
            }

            @Override
            public void onCompleted() {
                call.onCompleted();
            }
        };
    }

    StreamObserver<WriteChunk> write(StreamObserver<Done> out) {
        ServerCallStreamObserver<Done> call = (ServerCallStreamObserver<Done>) out;
        call.disableAutoRequest();
        call.request(1); // the command; the data is asked for as the drive takes it (IncomingBytes)
        // a write from the pool files gets no data and may be half-closed at once: its caller's cancel (deadline,
        // lost connection) reaches it only here, and stops it as a newer epoch would
        AtomicReference<Runnable> stopOnCancel = new AtomicReference<>();
        call.setOnCancelHandler(() -> {
            Runnable stop = stopOnCancel.get();
            if (stop != null) {
                stop.run();
            }
        });
        return new StreamObserver<>() {
            private IncomingBytes in;
            private boolean started;

            @Override
            public void onNext(WriteChunk chunk) {
                if (chunk.hasCommand()) {
                    start(chunk.getCommand());
                } else if (in != null) {
                    in.offer(chunk.getData());
                }
            }

            private void start(DriveCommand c) {
                if (started) {
                    return;
                }
                started = true;
                if (c.hasSource()) { // written from the pool files: no data follows
                    PoolWrites.Write source = PoolWrites.start(name, pools, c);
                    stopOnCancel.set(source::stop);
                    if (call.isCancelled()) {
                        return;
                    }
                    run(c, source.what(), call, call::isCancelled, source::stop, t -> write(t, c, source, call));
                    return;
                }
                String what = c.getLabel() ? "label write" : "append of " + c.getLength() + " bytes";
                IncomingBytes source = new IncomingBytes(call, c.getLength(), stallMillis);
                in = source;
                // stopped by a newer epoch: the library sees its source fail and aborts, keeping no partial file;
                // bytes already all queued are written all the same, and the answer names that tape file
                run(c, what, call, call::isCancelled, () -> source.fail(new IOException(
                        "stopped: a newer lease epoch has taken the site over")), t -> write(t, c, source, call));
            }

            @Override
            public void onError(Throwable t) {
                if (in != null) {
                    in.fail(t);
                }
            }

            @Override
            public void onCompleted() {
                if (in != null) {
                    in.end();
                }
            }
        };
    }

    /** Turn {@code t}'s append (or label write) of {@code source}, answered on {@code out}. */
    private void write(DriveTurns.Turn t, DriveCommand c, org.tapeq.scheduler.tape.TapeFileSource source,
                       StreamObserver<Done> out) {
        Completion<WrittenFile> done = answer(t, out, w -> Done.newBuilder().setWritten(
                Written.newBuilder().setFileNumber(w.fileNumber()).setStartBlock(w.startBlock())
                        .setBlockCount(w.blockCount()).setBytes(w.bytes())));
        if (c.getLabel()) {
            library.writeLabel(c.getDrive(), source, done);
        } else if (c.getBuffered()) {
            library.appendBuffered(c.getDrive(), source, done);
        } else {
            library.append(c.getDrive(), source, done);
        }
    }

    /**
     * Runs {@code operation} on the library's loop once the command is admitted and its drive is free
     * ({@link DriveTurns}); {@code cancel} stops it early when a newer epoch fences it. A refused command is
     * answered with the refusal and never reaches the library.
     */
    private void run(DriveCommand c, String what, StreamObserver<Done> out, Runnable cancel,
                     Consumer<DriveTurns.Turn> operation) {
        run(c, what, out, ((ServerCallStreamObserver<?>) out)::isCancelled, cancel, operation);
    }

    /** As above, {@code abandoned} telling whether the caller has gone (its call cancelled). */
    private void run(DriveCommand c, String what, StreamObserver<Done> out, BooleanSupplier abandoned,
                     Runnable cancel, Consumer<DriveTurns.Turn> operation) {
        if (!admitted(c, what, out)) {
            return;
        }
        turns.submit(new DriveTurns.Turn(c.getDrive(), c.getFence().getEpoch(), what,
                t -> startOnLoop(t, out, operation), cancel, why -> refuse(out, why), abandoned));
    }

    /**
     * Hands {@code operation} to the library's loop. One that throws there (bad arguments the library refuses by
     * an exception) or that the loop rejects (closing) is answered as failed, so its turn ends and the drive's next
     * command can start; {@link DriveTurns#ended} ignores a second end of a turn that the library had answered.
     */
    private void startOnLoop(DriveTurns.Turn t, StreamObserver<Done> out, Consumer<DriveTurns.Turn> operation) {
        try {
            loop.execute(() -> {
                try {
                    operation.accept(t);
                } catch (RuntimeException e) {
                    notStarted(t, out, e);
                }
            });
        } catch (RuntimeException e) {
            notStarted(t, out, e);
        }
    }

    private void notStarted(DriveTurns.Turn t, StreamObserver<Done> out, RuntimeException e) {
        LOG.error("Mover {}: {} on drive {} failed to start: {}", name, t.what, t.drive, e.toString(), e);
        this.<Object>answer(t, out, v -> Done.newBuilder()).failed(new TapeFault(FaultKind.DRIVE,
                t.what + " on drive " + t.drive + " failed at mover " + name + ": " + e, e));
    }

    /** Whether the command may run; if not, it is answered with the refusal. */
    private boolean admitted(DriveCommand c, String what, StreamObserver<Done> out) {
        String refused = refusal(c.getFence(), what + " on drive " + c.getDrive());
        if (refused == null && !drives.contains(c.getDrive())) {
            refused = "mover " + name + " does not own drive " + c.getDrive() + " (it owns " + drives + ")";
        }
        if (refused != null) {
            refuse(out, refused);
            return false;
        }
        return true;
    }

    private void refuse(StreamObserver<Done> out, String why) {
        refused.incrementAndGet();
        LOG.warn("{}", why);
        try {
            out.onNext(Done.newBuilder().setFault(refusalFault(why)).build());
            out.onCompleted();
        } catch (RuntimeException e) { // the caller has gone meanwhile (its call cancelled): nobody to tell
            LOG.debug("Mover {}: refusal not sent: {}", name, e.toString());
        }
    }

    /** Why a command is refused: another site or token first (its epoch must not count), then the epoch. */
    private String refusal(Fence f, String what) {
        String foreign = identity.refusal(name, f, what);
        return foreign != null ? foreign : fence.refusal(f, what);
    }

    /**
     * The library's completion of turn {@code t} as the answer, with the drive's alerts reported meanwhile; a turn
     * fenced while it ran is answered as fenced whatever the library's outcome. Then the drive's next command starts.
     */
    private <T> Completion<T> answer(DriveTurns.Turn t, StreamObserver<Done> out, Function<T, Done.Builder> success) {
        return new Completion<>() {
            @Override
            public void succeeded(T value) {
                send(t.fenced() != null ? fencedDone(t, value) : success.apply(value));
            }

            @Override
            public void failed(TapeFault f) {
                send(t.fenced() != null ? fencedDone(t, null) : Done.newBuilder().setFault(fault(f)));
            }

            private void send(Done.Builder b) {
                try {
                    out.onNext(b.addAllAlerts(alerts.drain(t.drive)).build());
                    out.onCompleted();
                } catch (RuntimeException e) { // the call was cancelled meanwhile: the drive is free all the same
                    LOG.debug("Mover {}: answer of {} on drive {} not sent: {}", name, t.what, t.drive, e.toString());
                } finally {
                    turns.ended(t);
                }
            }
        };
    }

    /**
     * The answer of turn {@code t}, fenced while it ran: a refusal saying so, and, when the library completed it all
     * the same ({@code value} not null), what it did. A write whose bytes had all arrived before the stop cannot be
     * told apart from a whole one and is written: its tape file is named, so the refusal does not claim that
     * nothing was written (the catalog fence keeps the deposed scheduler from recording it).
     */
    private Done.Builder fencedDone(DriveTurns.Turn t, Object value) {
        String why = t.fenced();
        if (value instanceof WrittenFile w) {
            why += "; its bytes had all arrived and it was written all the same, as tape file " + w.fileNumber()
                    + " (" + w.bytes() + " bytes): an unrecorded tape file";
        } else if (value != null) {
            why += "; it completed all the same";
        }
        refused.incrementAndGet();
        LOG.warn("{}", why);
        return Done.newBuilder().setFault(refusalFault(why));
    }

    /** What the drive learnt at the mount; asked on the loop right after it, as the interface says. */
    private MountFacts facts(String drive) {
        MountFacts.Builder f = MountFacts.newBuilder().setAccessOrderLimit(library.accessOrderLimit(drive));
        Optional<CartridgeCapacity> cap = library.capacity(drive);
        cap.ifPresent(c -> f.setRemainingBytes(c.remainingBytes()).setMaximumBytes(c.maximumBytes()));
        library.wrapEnds(drive).ifPresent(w -> {
            f.setHasWrapEnds(true);
            for (long e : w) {
                f.addWrapEnds(e);
            }
        });
        return f.build();
    }

    static Fault fault(TapeFault f) {
        return Fault.newBuilder().setKind(f.kind().name()).setMessage(String.valueOf(f.getMessage()))
                .setRefusal(f.refusal()).build();
    }

    /** A fence refusal: nothing is wrong with the drive, so the scheduler counts no drive error for it. */
    private static Fault refusalFault(String message) {
        return Fault.newBuilder().setKind(FaultKind.DRIVE.name()).setMessage(message).setRefusal(true).build();
    }
}
