package org.tapeq.scheduler.tape.sim;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.tape.DriveAlerts;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.EventLoop;

/**
 * A tape library simulated on an {@link EventLoop}: drives, cartridges and a robot whose operations take the time
 * the physical model ({@link TapePhysics}) gives them. Every completion is delivered through
 * {@code loop.schedule(modelledMillis, ...)}, so in virtual time a campaign of days runs in seconds and in real
 * time the library behaves like a slow device. Built with {@link #builder(EventLoop)}.
 *
 * <p>Semantics beyond {@link TapeLibrary}:
 * <ul>
 * <li>A drive accepts one operation at a time; a second one fails at once with {@code DRIVE}.</li>
 * <li>{@code read} from the middle of a block delivers from there, and leaves the position after the last block
 *     it touched: a read ending inside a block loses the rest of that block for the next read, as on a real
 *     drive. At a filemark it delivers 0 bytes and stays there; at or beyond end of data it fails
 *     {@code NOT_FOUND}. {@code locate}/{@code locateFile} beyond end of data spend the time to reach end of data
 *     and then fail {@code NOT_FOUND}, leaving the tape there.</li>
 * <li>{@code append} first positions to end of data (charged as locate time). If the file does not fit, the
 *     whole blocks that fit are recorded as a short tape file followed by a filemark, and the operation fails
 *     {@code TAPE_FULL} naming that file; earlier files are untouched. If not even one block fits, nothing is
 *     recorded.</li>
 * <li>A failed source (exception or wrong length: {@code SOURCE}) or an injected fault records nothing: end of
 *     data and every earlier file stay as they were, also for {@code writeLabel}.</li>
 * <li>Unmount = rewind + unload + robot move. If the robot move fails the cartridge stays, unloaded, in the drive;
 *     only {@code unmount} (robot move only) works on it then.</li>
 * <li>Mount = robot move + load (+ one-time calibration of a never-loaded cartridge if configured). A failed robot
 *     move leaves the cartridge in its slot. Robot moves are served first come, first served by the arm free
 *     earliest.</li>
 * <li>Tape files appended with {@link #appendBuffered} and not flushed since are lost (cut off the tape, end of
 *     data where the first of them started) when the drive is reset ({@link SimFaults#resetDriveBeforeNextOp}),
 *     an injected drive fault fails an operation, or the cartridge is unloaded before a flush. A synchronous
 *     {@link #append} or {@link #flush} makes them durable. {@link #flush} checks its {@link FlushCheck} against
 *     the tape, so it fails after such a loss.</li>
 * <li>Injected drive faults fail after {@link #DRIVE_FAULT_MILLIS}; media errors after the skip was streamed and
 *     {@link #MEDIA_ERROR_MILLIS} of retries, leaving the position unchanged.</li>
 * <li>In BYTES mode the recorded data, which cartridge is in which drive and which cartridges were ever loaded
 *     survive {@link #close()} and a new library on the same directory; after such a restart a loaded tape is at
 *     block 0. A drive configured with a {@link DriveType} refuses a cartridge of other media (incompatible
 *     medium); one without accepts any cartridge.</li>
 * </ul>
 * Methods may be called from any thread; they hop onto the loop.
 */
public final class SimulatedLibrary implements TapeLibrary, AutoCloseable {

    public static final int DEFAULT_BLOCK_SIZE = 256 * 1024;
    public static final long DEFAULT_EXCHANGE_MILLIS = 12_000;
    public static final long DEFAULT_FILEMARK_MILLIS = 2_000;
    /** One-time calibration of a brand-new LTO-9 cartridge (typically 40 min, up to 2 h). */
    public static final long LTO9_CALIBRATION_MILLIS = 40 * 60_000L;
    /** Time until an injected drive failure is reported. */
    public static final long DRIVE_FAULT_MILLIS = 1_000;
    /** Time a drive retries before it reports a media error. */
    public static final long MEDIA_ERROR_MILLIS = 20_000;

    private static final Logger LOG = LoggerFactory.getLogger(SimulatedLibrary.class);

    private final EventLoop loop;
    private final int blockSize;
    private final DataMode dataMode;
    private final Transfers transfers;
    private final TapeMarks tapeMarks;
    private final long calibrationMillis;
    private final boolean reportsWrapEnds;
    private final int accessOrderLimit;
    private final Map<String, SimDrive> drives = new LinkedHashMap<>();
    private int incompatibleMounts;
    private int lostTapeFiles;
    private final Map<String, SimCartridge> cartridges = new LinkedHashMap<>();
    private final Robot robot;
    private final SimFaults faults = new SimFaults();
    private volatile DriveAlerts alerts = DriveAlerts.NONE;
    private final StatsRecorder stats;
    private final LibraryStore store;
    private volatile boolean closed;

    SimulatedLibrary(SimLibraryBuilder b) throws IOException {
        this.loop = b.loop;
        this.blockSize = b.blockSize;
        this.dataMode = b.dataMode;
        this.transfers = new Transfers(b.loop, b.copyExecutor);
        this.tapeMarks = b.tapeMarks;
        this.calibrationMillis = b.calibrationMillis;
        this.reportsWrapEnds = b.wrapEnds;
        this.accessOrderLimit = b.accessOrderLimit;
        this.robot = new Robot(b.robotArms, b.exchangeMillis);
        this.store = b.directory == null ? LibraryStore.inMemory()
                : LibraryStore.open(b.directory, b.dataMode, b.blockSize);
        this.stats = new StatsRecorder(b.driveIds);
        try {
            load(b);
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    private void load(SimLibraryBuilder b) throws IOException {
        for (String id : b.driveIds) {
            drives.put(id, new SimDrive(id, drives.size(), b.driveTypes.get(id)));
        }
        int slot = 1;
        for (SimLibraryBuilder.CartridgeSpec spec : b.cartridges.values()) {
            SimCartridge cartridge = new SimCartridge(spec.barcode(), spec.media(), spec.capacity(), slot++, b.seed,
                    blockSize, b.physics);
            store.load(cartridge);
            cartridges.put(spec.barcode(), cartridge);
        }
        for (Map.Entry<String, LibraryStore.Loaded> e : store.loadDrives().entrySet()) {
            SimDrive drive = drives.get(e.getKey());
            SimCartridge cartridge = cartridges.get(e.getValue().barcode());
            if (drive == null || cartridge == null || cartridge.drive != null) {
                LOG.warn("Ignoring recorded load of {} in drive {}: not configured now", e.getValue().barcode(),
                        e.getKey());
                continue;
            }
            drive.cartridge = cartridge;
            drive.ejected = e.getValue().ejected();
            drive.head = cartridge.headAt(0);
            cartridge.drive = drive;
        }
    }

    /** A builder for a library running on {@code loop}. */
    public static SimLibraryBuilder builder(EventLoop loop) {
        return new SimLibraryBuilder(loop);
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    public DataMode dataMode() {
        return dataMode;
    }

    @Override
    public void alerts(DriveAlerts alerts) {
        this.alerts = alerts;
    }

    /** The simulation has no cartridge memory: the scheduler keeps each media type's nominal capacity. */
    @Override
    public java.util.Optional<org.tapeq.scheduler.tape.CartridgeCapacity> capacity(String drive) {
        return java.util.Optional.empty();
    }

    /**
     * Where the scheduler takes reports of TapeAlert findings (it never gets any from the simulation itself): a
     * test reports as the SCSI backend would, on the loop.
     */
    public DriveAlerts alerts() {
        return alerts;
    }

    /** The fault switches. */
    public SimFaults faults() {
        return faults;
    }

    /**
     * Tape files appended with a buffered mark on {@code drive} and not flushed since ({@link #appendBuffered}); 0 for
     * an unknown drive. Read on the library's loop.
     */
    public int unflushedFiles(String drive) {
        SimDrive d = drives.get(drive);
        return d == null ? 0 : d.unflushedFiles;
    }

    /**
     * Tape files lost so far because they were appended with a buffered mark and the drive was reset, failed or
     * unloaded before a flush. Read on the library's loop.
     */
    public int lostTapeFiles() {
        return lostTapeFiles;
    }

    /**
     * Whether tape file {@code fileNumber} of a cartridge is on the tape: recorded, and not only in the buffer of the
     * drive it is in (appended with a buffered mark and not flushed since). Loop thread only.
     */
    public boolean onTape(String barcode, int fileNumber) {
        SimCartridge c = knownCartridge(barcode);
        int held = c.drive == null ? -1 : c.drive.heldFrom;
        return fileNumber >= 0 && fileNumber < c.files.count() && (held < 0 || fileNumber < held);
    }

    /** What the library has done so far. */
    public SimStats stats() {
        return stats.snapshot();
    }

    /** Drive ids in configuration order. */
    public List<String> driveIds() {
        return List.copyOf(drives.keySet());
    }

    /** Barcodes in slot order. */
    public List<String> barcodes() {
        return List.copyOf(cartridges.keySet());
    }

    /**
     * Records a tape file of {@code bytes} at end of data of a cartridge in its slot, at once: no loop time, no
     * statistics. For simulations that start with written tapes (size-only, in memory, before the loop runs);
     * tape file 0 is whatever was preloaded first, conventionally a label.
     *
     * @throws IllegalStateException    if the library keeps bytes or a directory, or the cartridge is in a drive
     * @throws IllegalArgumentException if the cartridge is unknown or the file does not fit
     */
    public WrittenFile preload(String barcode, long bytes) {
        if (dataMode != DataMode.SIZE_ONLY || store.keepsDirectory()) {
            throw new IllegalStateException("preload needs a size-only library kept in memory");
        }
        SimCartridge cartridge = knownCartridge(barcode);
        if (cartridge.drive != null || cartridge.moving) {
            throw new IllegalStateException("preload of " + barcode + ": the cartridge is not in its slot");
        }
        if (bytes < 0 || bytes > cartridge.capacity - cartridge.files.eodOffset()) {
            throw new IllegalArgumentException("preload of " + bytes + " bytes to " + barcode + ": only "
                    + (cartridge.capacity - cartridge.files.eodOffset()) + " bytes free");
        }
        cartridge.dataFiles.add(null);
        return cartridge.files.append(bytes);
    }

    /**
     * A slot mix-up: from now on a mount of {@code a} loads the tape that was {@code b}'s and the other way
     * round (the barcode stickers swapped, each tape keeps its own label and data). Both must be in their slots.
     * Loop thread only.
     *
     * @throws IllegalStateException    if either cartridge is in a drive or moving
     * @throws IllegalArgumentException if either cartridge is unknown
     */
    public void swapTapes(String a, String b) {
        SimCartridge first = knownCartridge(a);
        SimCartridge second = knownCartridge(b);
        for (SimCartridge c : List.of(first, second)) {
            if (c.drive != null || c.moving) {
                throw new IllegalStateException("swapTapes: " + c.barcode + " is not in its slot");
            }
        }
        cartridges.put(a, second);
        cartridges.put(b, first);
    }

    /**
     * Milliseconds this library's physics needs to locate from the load point to {@code block} of a cartridge
     * (the first positioning after a mount). Does not move anything.
     */
    public long locateFromLoadPointMillis(String barcode, long block) {
        return locateMillis(barcode, 0, block);
    }

    /**
     * Milliseconds this library's physics needs to move the head of a cartridge from {@code fromBlock} to
     * {@code toBlock} (reading through when that is quicker, as a locate does). Does not move anything.
     */
    public long locateMillis(String barcode, long fromBlock, long toBlock) {
        SimCartridge c = knownCartridge(barcode);
        return c.physics.locateMillis(c.headAt(c.files.offsetOf(fromBlock)), c.headAt(c.files.offsetOf(toBlock)),
                c.media.rateBytesPerSecond());
    }

    /** The wrap (0 = the first, BOT to EOT) on which a block of a cartridge is recorded. */
    public int wrapOf(String barcode, long block) {
        SimCartridge c = knownCartridge(barcode);
        return c.headAt(c.files.offsetOf(block)).wrap();
    }

    /**
     * Milliseconds this library's physics needs to bring a cartridge from {@code block} back to the load point for
     * an unload: a rewind, or a locate to the start and a rewind from there where that is quicker.
     */
    public long rewindMillisFrom(String barcode, long block) {
        SimCartridge c = knownCartridge(barcode);
        return c.physics.unloadRewindMillis(c.headAt(c.files.offsetOf(block)), c.headAt(0));
    }

    /** The barcodes of the cartridges now in drives, loaded or not. Loop thread only. */
    public List<String> barcodesInDrives() {
        List<String> out = new ArrayList<>();
        for (SimDrive d : drives.values()) {
            if (d.cartridge != null) {
                out.add(d.cartridge.barcode);
            }
        }
        return out;
    }

    /** The true positions of some blocks of a cartridge, to price references with this library's physics. */
    public TruePositions truePositions(String barcode, long[] blocks) {
        return new TruePositions(knownCartridge(barcode), blocks);
    }

    /**
     * The block address at which each wrap of a cartridge ends, as a drive reports them (READ END OF WRAP
     * POSITION): the truth, not an estimate. Past the end of data, addresses continue at one block per block size.
     */
    public long[] wrapEndBlocks(String barcode) {
        SimCartridge c = knownCartridge(barcode);
        return TruePositions.wrapEndBlocks(c, blockSize);
    }

    /** Duration of one robot move. */
    public long exchangeMillis() {
        return robot.exchangeMillis();
    }

    /** Number of robot arms. */
    public int robotArms() {
        return robot.arms();
    }

    private SimCartridge knownCartridge(String barcode) {
        SimCartridge c = cartridges.get(barcode);
        if (c == null) {
            throw new IllegalArgumentException("no cartridge " + barcode + " in the simulated library");
        }
        return c;
    }

    /**
     * Rejects further operations and lets go of the directory's lock; recorded data stay in the directory for
     * the next library opened on it.
     */
    @Override
    public void close() {
        closed = true;
        try {
            store.close();
        } catch (IOException e) {
            LOG.warn("Closing the simulated library's lock: {}", e.toString());
        }
    }

    @Override
    public void inventory(Completion<Inventory> done) {
        Objects.requireNonNull(done, "done");
        onLoop(null, done, () -> loop.schedule(0, () -> done.succeeded(inventoryNow())));
    }

    @Override
    public void mount(String drive, String barcode, Completion<Void> done) {
        Objects.requireNonNull(done, "done");
        onLoop(drive, done, () -> doMount(drive, barcode, done));
    }

    @Override
    public void unmount(String drive, Completion<Void> done) {
        Objects.requireNonNull(done, "done");
        onLoop(drive, done, () -> doUnmount(drive, done));
    }

    /** The true end-of-wrap positions of the cartridge in the drive, where the library reports them. */
    @Override
    public Optional<long[]> wrapEnds(String driveId) {
        SimDrive drive = drives.get(driveId);
        if (!reportsWrapEnds || drive == null || drive.cartridge == null) {
            return Optional.empty();
        }
        return Optional.of(TruePositions.wrapEndBlocks(drive.cartridge, blockSize));
    }

    @Override
    public Optional<DriveType> driveType(String drive) {
        SimDrive d = drives.get(drive);
        return d == null ? Optional.empty() : Optional.ofNullable(d.type);
    }

    /** Mounts refused because the drive cannot read the cartridge's media. Loop thread only. */
    public int incompatibleMounts() {
        return incompatibleMounts;
    }

    @Override
    public int accessOrderLimit(String drive) {
        return accessOrderLimit;
    }

    @Override
    public void recommendAccessOrder(String driveId, long[] starts, long[] ends, Completion<int[]> done) {
        Objects.requireNonNull(done, "done");
        onLoop(driveId, done, () -> {
            String operation = "recommended access order of " + starts.length + " ranges";
            SimDrive drive = claim(driveId, operation, true, done);
            if (drive == null) {
                return;
            }
            if (accessOrderLimit == 0 || starts.length > accessOrderLimit || starts.length != ends.length) {
                TapeFault refused = TapeFault.refusal(operation + " on " + drive.describe()
                        + ": ILLEGAL REQUEST (the drive orders at most " + accessOrderLimit + " ranges)");
                loop.schedule(0, () -> fail(drive, done, refused, 0, 0));
                return;
            }
            int[] order = DriveAccessOrder.order(drive.cartridge, drive.head, starts, ends, rate(drive));
            loop.schedule(DriveAccessOrder.COMPUTE_MILLIS, () -> {
                drive.busy = false;
                done.succeeded(order);
            });
        });
    }

    @Override
    public void locate(String drive, long block, Completion<Void> done) {
        Objects.requireNonNull(done, "done");
        onLoop(drive, done, () -> doLocate(drive, block, done));
    }

    @Override
    public void locateFile(String drive, int fileNumber, Completion<Long> done) {
        Objects.requireNonNull(done, "done");
        onLoop(drive, done, () -> doLocateFile(drive, fileNumber, done));
    }

    @Override
    public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(done, "done");
        if (skipBytes < 0 || length < 0) {
            throw new IllegalArgumentException("negative skip " + skipBytes + " or length " + length);
        }
        onLoop(drive, done, () -> doRead(drive, skipBytes, length, sink, done));
    }

    @Override
    public void append(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(done, "done");
        onLoop(drive, done, () -> doAppend(drive, source, false, done));
    }

    /** An append whose tape mark waits in the drive's buffer for {@link #flush} ({@link TapeMarks}). */
    @Override
    public void appendBuffered(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(done, "done");
        onLoop(drive, done, () -> doAppend(drive, source, true, done));
    }

    /**
     * One synchronous flush if anything was appended with a buffered mark since the last one, else nothing; then
     * fails unless the drive holds {@code expected}'s cartridge with its last tape file ending where expected.
     */
    @Override
    public void flush(String drive, FlushCheck expected, Completion<Void> done) {
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(done, "done");
        onLoop(drive, done, () -> doFlush(drive, expected, done));
    }

    @Override
    public void writeLabel(String drive, TapeFileSource label, Completion<WrittenFile> done) {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(done, "done");
        onLoop(drive, done, () -> doWriteLabel(drive, label, done));
    }

    // ---- operations, on the loop thread ----

    private void doMount(String driveId, String barcode, Completion<Void> done) {
        String operation = "mount " + barcode + " into " + driveId;
        SimDrive drive = claim(driveId, operation, false, done);
        if (drive == null) {
            return;
        }
        if (drive.cartridge != null) {
            failLater(drive, done, 0, FaultKind.DRIVE, operation + ": the drive already holds "
                    + drive.cartridge.barcode);
            return;
        }
        SimCartridge cartridge = cartridges.get(barcode);
        if (cartridge == null) {
            failLater(drive, done, 0, FaultKind.ROBOT, operation + ": no such cartridge in the library");
            return;
        }
        if (cartridge.moving || cartridge.drive != null) {
            failLater(drive, done, 0, FaultKind.ROBOT, operation + ": the cartridge is "
                    + (cartridge.moving ? "being moved" : "in drive " + cartridge.drive.id));
            return;
        }
        if (drive.type != null && !drive.type.mounts(cartridge.media.name())) {
            // a real drive ejects it after the robot put it in; here it is refused before the move
            incompatibleMounts++;
            failLater(drive, done, 0, FaultKind.DRIVE, operation + ": incompatible medium, a " + drive.type.name()
                    + " drive does not read " + cartridge.media.name() + " cartridges");
            return;
        }
        cartridge.moving = true;
        long start = loop.now();
        long armStart = robot.book(start);
        long robotEnd = armStart + robot.exchangeMillis();
        stats.robotMove(armStart - start);
        if (faults.robotMoveFails()) {
            loop.schedule(robotEnd - start, () -> {
                cartridge.moving = false;
                fail(drive, done, new TapeFault(FaultKind.ROBOT, operation + ": the robot failed to move it from "
                        + cartridge.location() + " (simulated)"), robotEnd - start, 0);
            });
            return;
        }
        boolean calibrate = calibrationMillis > 0 && !cartridge.calibrated;
        long end = robotEnd + cartridge.media.loadMillis() + (calibrate ? calibrationMillis : 0);
        loop.schedule(end - start, () -> {
            cartridge.moving = false;
            cartridge.drive = drive;
            drive.cartridge = cartridge;
            drive.ejected = false;
            drive.position = 0;
            drive.head = cartridge.headAt(0);
            if (!cartridge.calibrated) {
                cartridge.calibrated = true;
                try {
                    store.markCalibrated(cartridge);
                } catch (IOException e) {
                    LOG.warn("Could not record that {} was loaded: {}", barcode, e.toString());
                }
            }
            saveDrives();
            drive.busy = false;
            stats.mounted(drive.index, barcode, end - start);
            done.succeeded(null);
        });
    }

    private void doUnmount(String driveId, Completion<Void> done) {
        SimDrive drive = claim(driveId, "unmount " + driveId, false, done);
        if (drive == null) {
            return;
        }
        SimCartridge cartridge = drive.cartridge;
        if (cartridge == null) {
            failLater(drive, done, 0, FaultKind.DRIVE, "unmount " + driveId + ": the drive is empty");
            return;
        }
        String operation = "unmount " + cartridge.barcode + " from " + driveId;
        loseHeld(drive, "unloaded before a flush");
        long start = loop.now();
        long rewind = drive.ejected ? 0 : cartridge.physics.unloadRewindMillis(drive.head, cartridge.headAt(0));
        long unload = drive.ejected ? 0 : cartridge.media.unloadMillis();
        loop.schedule(rewind + unload, () -> {
            stats.rewound(rewind);
            drive.ejected = true;
            drive.position = 0;
            drive.head = cartridge.headAt(0);
            long now = loop.now();
            long armStart = robot.book(now);
            long end = armStart + robot.exchangeMillis();
            stats.robotMove(armStart - now);
            boolean robotFails = faults.robotMoveFails();
            loop.schedule(end - now, () -> {
                long total = loop.now() - start;
                if (robotFails) {
                    saveDrives();
                    fail(drive, done, new TapeFault(FaultKind.ROBOT, operation + ": the robot failed to return it to"
                            + " slot:" + cartridge.slot + "; it is unloaded but still in the drive (simulated)"),
                            total, 0);
                    return;
                }
                drive.cartridge = null;
                drive.ejected = false;
                drive.head = null;
                drive.unflushedFiles = 0; // nothing buffered is left: loseHeld dropped it above (TapeMarks)
                drive.unflushedBytes = 0;
                cartridge.drive = null;
                saveDrives();
                drive.busy = false;
                stats.unmounted(drive.index, total);
                done.succeeded(null);
            });
        });
    }

    private void doLocate(String driveId, long block, Completion<Void> done) {
        String operation = "locate to block " + block;
        SimDrive drive = claim(driveId, operation, true, done);
        if (drive == null) {
            return;
        }
        if (block < 0) {
            failLater(drive, done, 0, FaultKind.NOT_FOUND, operation + " on " + drive.describe() + ": no such block");
            return;
        }
        if (block > drive.cartridge.files.eodBlock()) {
            searchPastEndOfData(drive, done, operation);
            return;
        }
        moveTo(drive, block, () -> done.succeeded(null));
    }

    private void doLocateFile(String driveId, int fileNumber, Completion<Long> done) {
        String operation = "locate to tape file " + fileNumber;
        SimDrive drive = claim(driveId, operation, true, done);
        if (drive == null) {
            return;
        }
        TapeFileTable files = drive.cartridge.files;
        if (fileNumber < 0) {
            failLater(drive, done, 0, FaultKind.NOT_FOUND, operation + " on " + drive.describe() + ": no such file");
            return;
        }
        if (fileNumber >= files.count()) {
            searchPastEndOfData(drive, done, operation);
            return;
        }
        long block = files.startBlock(fileNumber);
        moveTo(drive, block, () -> done.succeeded(block));
    }

    private void moveTo(SimDrive drive, long block, Runnable then) {
        SimCartridge cartridge = drive.cartridge;
        Head target = cartridge.headAt(cartridge.files.offsetOf(block));
        long millis = cartridge.physics.locateMillis(drive.head, target, rate(drive));
        loop.schedule(millis, () -> {
            drive.head = target;
            drive.position = block;
            drive.busy = false;
            stats.located(drive.index, millis);
            then.run();
        });
    }

    /** The drive runs to end of data looking for the target, and reports it missing. */
    private void searchPastEndOfData(SimDrive drive, Completion<?> done, String operation) {
        SimCartridge cartridge = drive.cartridge;
        TapeFileTable files = cartridge.files;
        long eod = files.eodBlock();
        Head target = cartridge.headAt(files.eodOffset());
        long millis = cartridge.physics.locateMillis(drive.head, target, rate(drive));
        loop.schedule(millis, () -> {
            drive.head = target;
            drive.position = eod;
            fail(drive, done, new TapeFault(FaultKind.NOT_FOUND, operation + " on " + drive.describe()
                    + ": beyond end of data (block " + eod + ", " + files.count() + " tape files)"), millis, millis);
        });
    }

    private void doRead(String driveId, long skip, long length, ByteSink sink, Completion<Long> done) {
        SimDrive drive = claim(driveId, "read", true, done);
        if (drive == null) {
            return;
        }
        SimCartridge cartridge = drive.cartridge;
        TapeFileTable files = cartridge.files;
        long position = drive.position;
        if (position >= files.eodBlock()) {
            failLater(drive, done, 0, FaultKind.NOT_FOUND, "read on " + drive.describe() + " at block " + position
                    + ": end of data");
            return;
        }
        int file = files.fileAt(position);
        long fileStart = files.startBlock(file);
        long fileBytes = files.bytes(file);
        long from = Math.min(fileBytes, (position - fileStart) * blockSize);
        long available = fileBytes - from;
        long skipped = Math.min(skip, available);
        long delivered = Math.min(length, available - skipped);
        long end = from + skipped + delivered;
        long newPosition = end == from ? position : fileStart + (end + blockSize - 1) / blockSize;
        long streamedTo = Math.min(fileBytes, (newPosition - fileStart) * blockSize);
        long streamed = streamedTo - from;
        double rate = rate(drive);
        if (streamed > 0 && faults.mediaErrorAt(cartridge.barcode, file)) {
            failLater(drive, done, TapePhysics.streamMillis(skipped, rate) + MEDIA_ERROR_MILLIS, FaultKind.MEDIA,
                    "read of tape file " + file + " on " + drive.describe() + ": unrecoverable read error (simulated)");
            return;
        }
        long millis = TapePhysics.streamMillis(streamed, rate);
        Head endHead = cartridge.headAt(files.startOffset(file) + streamedTo);
        Transfers.Copy<Void> copy = null;
        if (store.keepsBytes()) {
            String name = cartridge.dataFiles.get(file);
            long copyFrom = from + skipped;
            Set<Long> corrupt = faults.corruptOffsets(cartridge.barcode, file);
            copy = () -> {
                try (OutputStream out = CorruptingStream.wrap(sink.open(), copyFrom, corrupt)) {
                    if (delivered > 0) {
                        store.copyOut(cartridge.barcode, name, copyFrom, delivered, out);
                    }
                } catch (IOException e) {
                    throw new TapeFault(FaultKind.TARGET, "read of tape file " + file + " of " + cartridge.barcode
                            + ": the sink failed: " + e, e);
                }
                return null;
            };
        } else if (delivered > 0) {
            // size-only: what the sink makes of bytes it never gets (sparse stage files) is made where a copy
            // would run, off the loop when there is a copy executor, as a real drive's transfer thread would
            copy = () -> {
                sink.withoutBytes(delivered);
                return null;
            };
        }
        transfers.thenCopy(millis, copy, (ignored, fault) -> {
            drive.head = endHead;
            drive.position = newPosition;
            if (fault != null) {
                fail(drive, done, fault, millis, 0);
                return;
            }
            drive.busy = false;
            stats.read(drive.index, millis, delivered, streamed - delivered);
            done.succeeded(delivered);
        });
    }

    private void doAppend(String driveId, TapeFileSource source, boolean buffered, Completion<WrittenFile> done) {
        SimDrive drive = claim(driveId, "append", true, done);
        if (drive == null) {
            return;
        }
        SimCartridge cartridge = drive.cartridge;
        TapeFileTable files = cartridge.files;
        double rate = rate(drive);
        long length = source.length();
        Head eodHead = cartridge.headAt(files.eodOffset());
        long eodBlock = files.eodBlock();
        long locate = cartridge.physics.locateMillis(drive.head, eodHead, rate);
        String operation = "append of " + length + " bytes to " + drive.describe();
        if (length < 0) {
            failLater(drive, done, 0, FaultKind.SOURCE, operation + ": negative length");
            return;
        }
        if (faults.takeTapeFull(cartridge.barcode)) {
            loop.schedule(locate, () -> {
                drive.head = eodHead;
                drive.position = eodBlock;
                fail(drive, done, new TapeFault(FaultKind.TAPE_FULL, operation + ": end of tape (simulated)"),
                        locate, locate);
            });
            return;
        }
        long free = cartridge.capacity - files.eodOffset();
        boolean full = length > free;
        long keep = full ? free / blockSize * blockSize : length;
        boolean records = !full || keep > 0;
        long mark = !records || buffered ? 0 : tapeMarks.costAfterTapeFile(drive, keep);
        long write = TapePhysics.streamMillis(keep, rate) + mark;
        WrittenFile planned = files.next(keep);
        Transfers.Copy<String> copy = store.keepsBytes() && records
                ? () -> store.stage(cartridge.barcode, planned.fileNumber(), source, keep) : null;
        transfers.afterModelled(locate + write, copy, (name, copyFault) -> {
            TapeFault fault = copyFault != null ? copyFault : closedFault(operation);
            if (fault == null && records) {
                try {
                    store.commitAppend(cartridge, planned, name);
                } catch (IOException e) {
                    fault = new TapeFault(FaultKind.DRIVE, operation + ": could not record the tape file: " + e, e);
                }
            }
            if (fault != null) {
                store.discard(cartridge.barcode, name);
                drive.head = eodHead;
                drive.position = eodBlock;
                fail(drive, done, fault, locate + write, locate);
                return;
            }
            if (records) {
                files.append(keep);
                cartridge.dataFiles.add(name);
                if (buffered) {
                    tapeMarks.bufferedByWriter(drive, keep);
                    if (drive.heldFrom < 0) {
                        drive.heldFrom = planned.fileNumber();
                    }
                } else {
                    tapeMarks.written(drive, keep);
                    drive.heldFrom = -1; // its synchronous mark wrote the buffer to the tape
                }
            }
            drive.head = cartridge.headAt(files.eodOffset());
            drive.position = files.eodBlock();
            drive.busy = false;
            stats.wrote(drive.index, false, locate, write, keep, records ? 1 : 0, !full);
            if (!full) {
                done.succeeded(planned);
            } else if (records) {
                done.failed(new TapeFault(FaultKind.TAPE_FULL, operation + ": cartridge full after " + keep
                        + " bytes; they remain as short tape file " + planned.fileNumber()));
            } else {
                done.failed(new TapeFault(FaultKind.TAPE_FULL, operation + ": cartridge full, nothing written"));
            }
        });
    }

    private void doFlush(String driveId, FlushCheck expected, Completion<Void> done) {
        SimDrive drive = claim(driveId, "flush", true, done);
        if (drive == null) {
            return;
        }
        long cost = tapeMarks.flushCost(drive);
        loop.schedule(cost, () -> {
            TapeMarks.flushed(drive);
            drive.heldFrom = -1;
            drive.busy = false;
            stats.flushed(drive.index, cost);
            TapeFault lost = DriveBuffer.notOnTape(drive, expected);
            if (lost != null) {
                done.failed(lost);
            } else {
                done.succeeded(null);
            }
        });
    }

    /** The drive's buffer is gone ({@code why}): what it held is cut off the tape ({@link DriveBuffer#lose}). */
    private void loseHeld(SimDrive drive, String why) {
        lostTapeFiles += DriveBuffer.lose(drive, store, why);
    }

    private void doWriteLabel(String driveId, TapeFileSource label, Completion<WrittenFile> done) {
        SimDrive drive = claim(driveId, "write label", true, done);
        if (drive == null) {
            return;
        }
        SimCartridge cartridge = drive.cartridge;
        TapeFileTable files = cartridge.files;
        double rate = rate(drive);
        long length = label.length();
        String operation = "write label of " + length + " bytes on " + drive.describe();
        Head bot = cartridge.headAt(0);
        long locate = cartridge.physics.locateMillis(drive.head, bot, rate);
        if (length < 0 || length > cartridge.capacity) {
            loop.schedule(locate, () -> {
                drive.head = bot;
                drive.position = 0;
                fail(drive, done, new TapeFault(length < 0 ? FaultKind.SOURCE : FaultKind.TAPE_FULL,
                        operation + ": does not fit on the cartridge"), locate, locate);
            });
            return;
        }
        long write = TapePhysics.streamMillis(length, rate) + tapeMarks.filemarkMillis(); // a label is flushed
        Transfers.Copy<String> copy = store.keepsBytes()
                ? () -> store.stage(cartridge.barcode, 0, label, length) : null;
        transfers.afterModelled(locate + write, copy, (name, copyFault) -> {
            TapeFault fault = copyFault != null ? copyFault : closedFault(operation);
            if (fault == null) {
                try {
                    store.commitLabel(cartridge, length, name, cartridge.dataFiles);
                } catch (IOException e) {
                    fault = new TapeFault(FaultKind.DRIVE, operation + ": could not record the label: " + e, e);
                }
            }
            if (fault != null) {
                store.discard(cartridge.barcode, name);
                drive.head = bot;
                drive.position = 0;
                fail(drive, done, fault, locate + write, locate);
                return;
            }
            files.clear();
            cartridge.dataFiles.clear();
            drive.heldFrom = -1;
            WrittenFile written = files.append(length);
            cartridge.dataFiles.add(name);
            drive.head = cartridge.headAt(files.eodOffset());
            drive.position = files.eodBlock();
            drive.busy = false;
            stats.wrote(drive.index, true, locate, write, length, 1, true);
            done.succeeded(written);
        });
    }

    // ---- helpers ----

    /**
     * Runs an operation on the loop thread. Should the simulator itself throw while starting it, the operation
     * fails with {@code DRIVE} and the drive is released, rather than leaving the caller waiting forever.
     */
    private void onLoop(String driveId, Completion<?> done, Runnable operation) {
        Runnable guarded = () -> {
            SimDrive drive = driveId == null ? null : drives.get(driveId);
            boolean wasBusy = drive != null && drive.busy;
            try {
                operation.run();
            } catch (RuntimeException e) {
                LOG.error("Simulated library failed internally on drive {}: {}", driveId, e.toString(), e);
                if (drive != null && !wasBusy) {
                    drive.busy = false;
                }
                loop.schedule(0, () -> {
                    stats.failed(-1, 0, 0);
                    done.failed(new TapeFault(FaultKind.DRIVE, "simulated library internal error on drive " + driveId
                            + ": " + e, e));
                });
            }
        };
        if (loop.inLoop()) {
            guarded.run();
        } else {
            loop.execute(guarded);
        }
    }

    /**
     * Takes the drive for an operation, or fails the operation and returns null: closed library, unknown or busy
     * drive, injected drive fault, and (if {@code needsTape}) no usable tape in the drive.
     */
    private SimDrive claim(String driveId, String operation, boolean needsTape, Completion<?> done) {
        if (closed) {
            reject(done, operation + " on " + driveId + ": the simulated library is closed");
            return null;
        }
        SimDrive drive = drives.get(driveId);
        if (drive == null) {
            reject(done, operation + ": no drive " + driveId + " in the library");
            return null;
        }
        if (drive.busy) {
            reject(done, operation + ": drive " + drive.describe() + " is busy with another operation");
            return null;
        }
        drive.busy = true;
        if (faults.takeReset(drive.id)) {
            loseHeld(drive, "reset (simulated)");
            if (drive.cartridge != null && !drive.ejected) {
                drive.position = 0;
                drive.head = drive.cartridge.headAt(0);
            }
        }
        if (faults.driveOpFails(drive.id)) {
            loseHeld(drive, "failed (simulated)");
            failLater(drive, done, DRIVE_FAULT_MILLIS, FaultKind.DRIVE, operation + ": drive " + drive.describe()
                    + " failed (simulated)");
            return null;
        }
        if (needsTape && drive.cartridge == null) {
            failLater(drive, done, 0, FaultKind.DRIVE, operation + ": drive " + driveId + " is empty");
            return null;
        }
        if (needsTape && drive.ejected) {
            failLater(drive, done, 0, FaultKind.DRIVE, operation + ": " + drive.cartridge.barcode + " in drive "
                    + driveId + " is unloaded (the robot failed to take it); only unmount works");
            return null;
        }
        return drive;
    }

    /** Fails an operation that never took a drive. */
    private void reject(Completion<?> done, String message) {
        loop.schedule(0, () -> {
            stats.failed(-1, 0, 0);
            done.failed(new TapeFault(FaultKind.DRIVE, message));
        });
    }

    /** Fails a claimed operation after {@code millis}, releasing its drive. */
    private void failLater(SimDrive drive, Completion<?> done, long millis, FaultKind kind, String message) {
        loop.schedule(millis, () -> fail(drive, done, new TapeFault(kind, message), millis, 0));
    }

    /** Releases the drive and reports a fault; {@code located} of {@code millis} were spent positioning. */
    private void fail(SimDrive drive, Completion<?> done, TapeFault fault, long millis, long located) {
        drive.busy = false;
        stats.failed(drive.index, millis, located);
        done.failed(fault);
    }

    private TapeFault closedFault(String operation) {
        return closed ? new TapeFault(FaultKind.DRIVE, operation + ": the simulated library was closed") : null;
    }

    private double rate(SimDrive drive) {
        return drive.cartridge.media.rateBytesPerSecond() * faults.rateFactor(drive.id);
    }

    private void saveDrives() {
        try {
            store.saveDrives(drives.values());
        } catch (IOException e) {
            LOG.warn("Could not record which cartridges are in which drives: {}", e.toString());
        }
    }

    private Inventory inventoryNow() {
        List<Inventory.Drive> driveList = new ArrayList<>(drives.size());
        for (SimDrive d : drives.values()) {
            driveList.add(new Inventory.Drive(d.id, d.cartridge == null ? null : d.cartridge.barcode,
                    !faults.driveFailed(d.id)));
        }
        List<Inventory.Cartridge> cartridgeList = new ArrayList<>(cartridges.size());
        for (SimCartridge c : cartridges.values()) {
            cartridgeList.add(new Inventory.Cartridge(c.barcode, c.media.name(), c.location()));
        }
        return new Inventory(driveList, cartridgeList);
    }

    /** Package-private view for tests. */
    SimCartridge cartridge(String barcode) {
        return cartridges.get(barcode);
    }

    /** Package-private view for tests. */
    SimDrive drive(String id) {
        return drives.get(id);
    }
}
