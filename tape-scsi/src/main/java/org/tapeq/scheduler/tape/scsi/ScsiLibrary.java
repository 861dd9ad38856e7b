package org.tapeq.scheduler.tape.scsi;

import static org.tapeq.scheduler.tape.scsi.DriveCommands.check;
import static org.tapeq.scheduler.tape.scsi.DriveCommands.parseTell;
import static org.tapeq.scheduler.tape.scsi.DriveCommands.pause;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.CartridgeCapacity;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.DriveAlerts;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.LabelVerifier;
import org.tapeq.scheduler.tape.RobotMoves;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.EventLoop;

/**
 * A real tape library driven through the standard Linux tools on the tape host: {@code mtx} for the changer,
 * {@code mt} (mt-st) for positioning, {@code dd} on the non-rewinding device for data, one command line at a
 * time through {@link CommandRunner} (locally or behind a command prefix such as {@code ssh tapehost}).
 *
 * <p>Design notes.
 * <ul>
 * <li>Positions are the logical object numbers of {@code mt tell} / {@code mt seek} (READ POSITION / LOCATE),
 *     in which each filemark takes one address, as {@link TapeLibrary} defines them. The drive runs in
 *     variable-block mode ({@code mt setblk 0}), so each {@code write()} of {@code dd} is one tape block;
 *     {@code dd iflag=fullblock} makes every block but the last of a tape file exactly {@link #blockSize()}
 *     bytes. The {@code st} driver writes the filemark after a tape file when {@code dd} closes the device.</li>
 * <li>End of data is found once per mount ({@code mt rewind; mt eod; mt tell; mt status}, which also counts
 *     the tape files) and then followed by the writes this library makes; {@link #locate} and
 *     {@link #locateFile} beyond a known end of data fail {@code NOT_FOUND} without moving the tape; before it is
 *     known, a {@link #locate} beyond it fails at the drive.</li>
 * <li>Never writes an unlabelled or foreign cartridge: before the first {@link #append} after a mount the
 *     label (tape file 0) is read and checked against the barcode by the {@link LabelVerifier} it was given;
 *     only {@link #writeLabel} (an administrator's {@code tapeq cartridge label}) writes a cartridge without one.</li>
 * <li>A failed append leaves nothing behind: the partial tape file is cut off by writing a filemark over
 *     the one in front of it, so end of data is where it was (a tape-full fault therefore never leaves a
 *     short tape file whose manifest promises more than is there).</li>
 * <li>One {@code mtx} command at a time (one robot: {@link Changer}, which also returns a cartridge a drive holds
 *     against this library's view); each drive runs one operation at a time (the scheduler's
 *     contract). Per-drive state ({@link DriveState}) is only touched by the job running on that drive.</li>
 * <li>The parts: mount and unmount, with the reconcile after a failed mount, and their robot and drive parts
 *     apart ({@link RobotMoves}: a site whose changer one host drives) are {@link MountSequence}; the
 *     TapeAlert readings and who is blamed for them are {@link AlertBlame}; the inventory, with the drives'
 *     reconcile at start, is {@link LibraryInventory}; this class keeps positioning and data.</li>
 * </ul>
 */
public final class ScsiLibrary implements TapeLibrary, RobotMoves, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ScsiLibrary.class);
    private static final Pattern RECORDS_OUT = Pattern.compile("(\\d+)\\+(\\d+) records out");
    private static final int BUSY_RETRIES = 20;

    private final ScsiSettings settings;
    private final LabelVerifier labels;
    private final CommandRunner runner;
    private final DriveProbe probe;
    private final DriveOrder order;
    private final DriveCommands mt;
    private final Map<String, DriveState> drives = new LinkedHashMap<>();
    private final Changer changer;
    private final AlertBlame blame;
    private final MountSequence mounts;
    private final LibraryInventory inventory;

    /**
     * @param labels checks tape file 0 before the first append after a mount (the on-tape format's
     *               {@code TapeLabel::parseFor})
     */
    public ScsiLibrary(EventLoop loop, ScsiSettings settings, LabelVerifier labels) {
        Objects.requireNonNull(loop, "loop");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.labels = Objects.requireNonNull(labels, "labels");
        for (ScsiSettings.Drive d : settings.drives()) {
            if (drives.put(d.name(), new DriveState(d)) != null) {
                throw new IllegalArgumentException("drive " + d.name() + " configured twice");
            }
        }
        this.runner = new CommandRunner(loop, settings.commandPrefix(), settings.drives().size() + 2);
        this.probe = new DriveProbe(runner, settings.tapeTimeoutMillis());
        this.order = new DriveOrder(probe);
        this.mt = new DriveCommands(runner, settings.tapeTimeoutMillis());
        this.changer = new Changer(runner, settings);
        this.blame = new AlertBlame(loop, probe);
        this.mounts = new MountSequence(changer, probe, order, blame, mt, settings.tapeTimeoutMillis());
        this.inventory = new LibraryInventory(changer, probe, order, mt, drives.values(), settings.changer());
    }

    @Override
    public int blockSize() {
        return settings.blockSize();
    }

    @Override
    public Optional<CartridgeCapacity> capacity(String drive) {
        DriveState d = drives.get(drive);
        return d == null || d.barcode == null ? Optional.empty() : Optional.ofNullable(d.capacity);
    }

    /** Known from the first inventory on (the scheduler's start): configured, or from the drive's INQUIRY. */
    @Override
    public Optional<DriveType> driveType(String drive) {
        DriveState d = drives.get(drive);
        return d == null ? Optional.empty() : Optional.ofNullable(d.type);
    }

    @Override
    public Optional<long[]> wrapEnds(String drive) {
        return order.wrapEnds(drives.get(drive));
    }

    @Override
    public int accessOrderLimit(String drive) {
        return order.limit(drives.get(drive));
    }

    /** What the drive was found to lack for good ({@link DriveOrder#lacking}). */
    List<String> lacking(String drive) {
        return DriveOrder.lacking(drives.get(drive));
    }

    @Override
    public void recommendAccessOrder(String drive, long[] starts, long[] ends, Completion<int[]> done) {
        submit(drive, "recommended access order on " + drive, done, d -> order.order(d, starts, ends));
    }

    @Override
    public void alerts(DriveAlerts alerts) {
        blame.reportTo(alerts);
    }

    @Override
    public void close() {
        runner.close();
    }

    // ------------------------------------------------------------------ operations

    @Override
    public void inventory(Completion<Inventory> done) {
        runner.submit("inventory", inventory::read, done);
    }

    @Override
    public void mount(String drive, String barcode, Completion<Void> done) {
        submit(drive, "mount " + barcode + " into " + drive, done, d -> mounts.mount(d, barcode));
    }

    @Override
    public void unmount(String drive, Completion<Void> done) {
        submit(drive, "unmount " + drive, done, mounts::unmount);
    }

    /**
     * The robot's part only, for a drive another host loads (its device is not opened): the drive must be configured
     * here with its changer index, as every drive of the changer is on the host that drives it.
     */
    @Override
    public void robotLoad(String drive, String barcode, Completion<Void> done) {
        submit(drive, "robot move of " + barcode + " into " + drive, done, d -> mounts.robotLoad(d.config, barcode));
    }

    @Override
    public void robotUnload(String drive, Completion<Void> done) {
        submit(drive, "robot move out of " + drive, done, d -> mounts.robotUnload(d.config));
    }

    @Override
    public void load(String drive, String barcode, Completion<Void> done) {
        submit(drive, "load " + barcode + " in " + drive, done, d -> mounts.load(d, barcode));
    }

    @Override
    public void unload(String drive, Completion<Void> done) {
        submit(drive, "unload " + drive, done, mounts::unload);
    }

    @Override
    public void locate(String drive, long block, Completion<Void> done) {
        submit(drive, "locate to block " + block + " on " + drive, done, d -> {
            doLocate(d, block, "locate to block " + block + " on " + drive);
            return null;
        });
    }

    @Override
    public void locateFile(String drive, int fileNumber, Completion<Long> done) {
        submit(drive, "locate to tape file " + fileNumber + " on " + drive, done, d -> doLocateFile(d, fileNumber));
    }

    @Override
    public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
        Objects.requireNonNull(sink, "sink");
        if (skipBytes < 0 || length < 0) {
            throw new IllegalArgumentException("negative skip " + skipBytes + " or length " + length);
        }
        submit(drive, "read on " + drive, done, d -> doRead(d, skipBytes, length, sink));
    }

    @Override
    public void append(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        Objects.requireNonNull(source, "source");
        submit(drive, "append of " + source.length() + " bytes on " + drive, done, d -> doAppend(d, source));
    }

    /**
     * A synchronous WRITE FILEMARKS of 0 marks ({@code mt weof 0}) at end of data, then the position ({@code mt
     * tell}) checked against {@code expected}: the drive writes what it buffers to the tape before it answers (the
     * Linux st driver's MTWEOF without the Immed bit, Documentation/scsi/st.rst, "Writing filemarks without the
     * immediate bit set ... acts as a synchronization point"), and after it end of data must be the block after the
     * last held tape file. A drive reset or power-cycled since the appends answers the mark all the same; its end of
     * data is then short of the expected block (or {@code mt eod} fails while the st driver no longer knows the
     * position), and the flush fails naming both. The cartridge compared is the one this library loaded: an exchange
     * behind its back with the same end of data is not seen here (the label is read before the next append after a
     * load). {@link #appendBuffered} is the interface's synchronous {@link #append}, so there is little to flush: a
     * tape file written by {@code dd} ends with the filemark the st driver writes when {@code dd} closes the device,
     * which "is always flushing the drive buffers" (same file) unless the driver's MT_ST_NOWAIT_EOF option is set,
     * which this library does not do (not tried on a drive). Whether a drive takes a count of 0 as documented (SSC:
     * no filemark, the buffer written) is not checked on a drive either.
     */
    @Override
    public void flush(String drive, FlushCheck expected, Completion<Void> done) {
        Objects.requireNonNull(expected, "expected");
        submit(drive, "flush on " + drive, done, d -> {
            String what = "flush of " + d.config.name();
            needTape(d, what);
            // at end of data: a write-type command elsewhere (after a read-back) could cut off what follows it
            CommandRunner.Result r = mt.run(d, List.of("eod"), List.of("weof", 0), List.of("tell"));
            check(r, FaultMap.Op.WRITE, what);
            TapeFault lost = expected.check(d.config.name(), d.barcode, parseTell(r, what));
            if (lost != null) { // before the next append: end of data counted again, the label read again
                d.eod = -1;
                d.files = -1;
                d.labelVerified = false;
                throw lost;
            }
            return null;
        });
    }

    @Override
    public void writeLabel(String drive, TapeFileSource label, Completion<WrittenFile> done) {
        Objects.requireNonNull(label, "label");
        submit(drive, "write label on " + drive, done, d -> doWriteLabel(d, label));
    }

    @FunctionalInterface
    private interface DriveJob<T> {
        T run(DriveState drive) throws TapeFault;
    }

    private <T> void submit(String drive, String what, Completion<T> done, DriveJob<T> job) {
        Objects.requireNonNull(done, "done");
        DriveState d = drives.get(drive);
        runner.submit(what, () -> {
            if (d == null) {
                throw new TapeFault(FaultKind.DRIVE, what + ": no drive " + drive + " is configured");
            }
            return job.run(d);
        }, done);
    }

    // ------------------------------------------------------------------ positioning

    private void doLocate(DriveState d, long block, String what) throws TapeFault {
        needTape(d, what);
        if (block < 0) {
            throw new TapeFault(FaultKind.NOT_FOUND, what + ": no such block");
        }
        if (d.eod >= 0 && block > d.eod) {
            throw new TapeFault(FaultKind.NOT_FOUND, what + ": beyond end of data (block " + d.eod + ") of "
                    + d.barcode);
        }
        CommandRunner.Result r = mt.run(d, List.of("seek", block), List.of("tell"));
        if (!r.ok()) {
            TapeFault fault = FaultMap.fault(FaultMap.Op.POSITION, what, r);
            d.eod = -1;
            long eod = endOfData(d, what);
            if (block > eod) {
                throw new TapeFault(FaultKind.NOT_FOUND, what + ": beyond end of data (block " + eod + ") of "
                        + d.barcode);
            }
            throw fault;
        }
        long at = parseTell(r, what);
        if (at != block) {
            throw new TapeFault(FaultKind.DRIVE, what + ": the drive reports block " + at + " after the seek");
        }
    }

    private Long doLocateFile(DriveState d, int fileNumber) throws TapeFault {
        String what = "locate to tape file " + fileNumber + " on " + d.config.name();
        needTape(d, what);
        if (fileNumber < 0) {
            throw new TapeFault(FaultKind.NOT_FOUND, what + ": no such file");
        }
        long eod = endOfData(d, what);
        CommandRunner.Result r = mt.run(d, List.of("asf", fileNumber), List.of("tell"));
        if (!r.ok()) {
            if (atEndOfData(d)) {
                throw new TapeFault(FaultKind.NOT_FOUND, what + ": beyond end of data of " + d.barcode);
            }
            throw FaultMap.fault(FaultMap.Op.POSITION, what, r);
        }
        long at = parseTell(r, what);
        if (at >= eod) {
            throw new TapeFault(FaultKind.NOT_FOUND, what + ": beyond end of data (block " + eod + ") of "
                    + d.barcode);
        }
        return at;
    }

    /**
     * End of data of the loaded cartridge: remembered, or found once per mount by spacing from the beginning
     * of tape to end of data ({@code mt rewind; mt eod}), which also counts the tape files (after a
     * {@code mt seek} the st driver no longer knows the file number). Only {@link #locateFile} and
     * {@link #append} need it; a {@link #locate} beyond it fails at the drive.
     */
    private long endOfData(DriveState d, String what) throws TapeFault {
        if (d.eod < 0 || d.files < 0) {
            CommandRunner.Result r = mt.run(d, List.of("rewind"), List.of("eod"), List.of("tell"), List.of("status"));
            check(r, FaultMap.Op.POSITION, what + " (finding end of data)");
            d.eod = parseTell(r, what);
            d.files = fileNumber(r, what);
        }
        return d.eod;
    }

    private long tell(DriveState d, String what) throws TapeFault {
        CommandRunner.Result r = mt.run(d, "tell");
        check(r, FaultMap.Op.POSITION, what);
        return parseTell(r, what);
    }

    /** Whether {@code mt status} reports end of data (after a failed read or space). */
    private boolean atEndOfData(DriveState d) {
        CommandRunner.Result r = mt.run(d, "status");
        try {
            return r.ok() && DriveStatus.parse(r.stdout()).atEndOfData();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ data

    private Long doRead(DriveState d, long skip, long length, ByteSink sink) throws TapeFault {
        String what = "read of " + length + " bytes on " + d.config.name();
        needTape(d, what);
        long bs = settings.blockSize();
        long blocks = (skip + length + bs - 1) / bs;
        long[] delivered = new long[1];
        Pipes.SinkFailure[] sinkFailure = new Pipes.SinkFailure[1];
        Pipes.Gate gate = new Pipes.Gate();
        CommandRunner.Result r = runner.drain(Shell.line("dd", "if=" + d.device(), "bs=" + bs, "count=" + blocks),
                settings.dataStallMillis(), settings.dataLimitMillis(blocks * bs), in -> {
                    try (OutputStream out = gate.open(sink)) {
                        delivered[0] = Pipes.copy(in, skip, length, out);
                    } catch (Pipes.SinkFailure e) {
                        sinkFailure[0] = e;
                        throw e;
                    } catch (IOException e) {
                        if (e instanceof Pipes.PipeFailure) {
                            throw e;
                        }
                        sinkFailure[0] = new Pipes.SinkFailure(e);
                        throw sinkFailure[0];
                    }
                });
        gate.shut(); // a transfer abandoned after a kill delivers nothing more
        if (sinkFailure[0] != null && !r.limitReached()) {
            throw new TapeFault(FaultKind.TARGET, what + " of " + d.barcode + ": the sink failed: "
                    + sinkFailure[0].getCause(), sinkFailure[0].getCause());
        }
        if (!r.ok()) {
            if (delivered[0] == 0 && r.exitCode() != 0 && !r.limitReached() && atEndOfData(d)) {
                throw new TapeFault(FaultKind.NOT_FOUND, what + " of " + d.barcode + ": end of data");
            }
            if (delivered[0] == 0 && r.exitCode() != 0 && !r.limitReached() && probe.blankAtBot(d.device())) {
                throw new TapeFault(FaultKind.NOT_FOUND, what + " of " + d.barcode + ": end of data at block 0,"
                        + " a blank cartridge (" + r.diagnostic() + ")");
            }
            throw dataFault(d, FaultMap.Op.READ, what + " of " + d.barcode, r);
        }
        return delivered[0];
    }

    private WrittenFile doAppend(DriveState d, TapeFileSource source) throws TapeFault {
        String what = "append of " + source.length() + " bytes to " + d.barcode + " in " + d.config.name();
        needTape(d, what);
        if (source.length() < 0) {
            throw new TapeFault(FaultKind.SOURCE, what + ": negative length");
        }
        verifyLabel(d, what);
        if (d.mediaAlert != null) {
            throw new TapeFault(FaultKind.MEDIA, what + ": the drive raised TapeAlert " + d.mediaAlert
                    + " for this cartridge since its load; it is not written");
        }
        long eod = endOfData(d, what);
        CommandRunner.Result r = mt.run(d, List.of("eod"), List.of("tell"));
        check(r, FaultMap.Op.POSITION, what + " (positioning to end of data)");
        long start = parseTell(r, what);
        if (start != eod) {
            LOG.warn("{}: end of data is at block {}, not at block {} as last seen; counting the tape files again",
                    what, start, eod);
            d.eod = -1;
            start = endOfData(d, what);
        }
        return writeFile(d, d.files, start, source, what);
    }

    private WrittenFile doWriteLabel(DriveState d, TapeFileSource label) throws TapeFault {
        String what = "write label on " + d.barcode + " in " + d.config.name();
        needTape(d, what);
        check(mt.run(d, "rewind"), FaultMap.Op.POSITION, what);
        d.labelVerified = false;
        d.eod = -1;
        d.files = -1;
        d.wrapEnds = null; // the data they described is gone
        WrittenFile written = writeFile(d, 0, 0, label, what);
        d.labelVerified = true;
        return written;
    }

    /** Writes one tape file at the current position {@code start}; on failure cuts off what was written. */
    private WrittenFile writeFile(DriveState d, int fileNumber, long start, TapeFileSource source, String what)
            throws TapeFault {
        long bs = settings.blockSize();
        long length = source.length();
        long[] fed = new long[1];
        CommandRunner.Result r = runner.feed(Shell.line("dd", "of=" + d.device(), "bs=" + bs, "iflag=fullblock"),
                settings.dataStallMillis(), settings.dataLimitMillis(length), stdin -> {
                    Pipes.CountingPipe out = new Pipes.CountingPipe(stdin);
                    source.writeTo(out);
                    fed[0] = out.count;
                });
        TapeFault fault = null;
        if (r.ioError() != null && !(r.ioError() instanceof Pipes.PipeFailure)) {
            fault = new TapeFault(FaultKind.SOURCE, what + ": the source failed: " + r.ioError().getMessage(),
                    r.ioError());
        } else if (!r.ok()) {
            fault = dataFault(d, FaultMap.Op.WRITE, what, r);
        } else if (fed[0] != length) {
            fault = new TapeFault(FaultKind.SOURCE, what + ": the source wrote " + fed[0] + " bytes, not " + length);
        }
        long blocks = (length + bs - 1) / bs;
        if (fault == null) {
            long end = tell(d, what);
            Matcher m = RECORDS_OUT.matcher(r.stderr());
            long records = m.find() ? Long.parseLong(m.group(1)) + Long.parseLong(m.group(2)) : -1;
            if (end == start + blocks + 1 && (records < 0 || records == blocks)) {
                d.eod = end;
                d.files = fileNumber + 1;
                return new WrittenFile(fileNumber, start, blocks, length);
            }
            fault = new TapeFault(FaultKind.MEDIA, what + ": expected " + blocks + " blocks and a filemark from block "
                    + start + ", but dd wrote " + records + " records and the tape is at block " + end);
        }
        cutOff(d, start, what);
        if (fault.kind() == FaultKind.TAPE_FULL) {
            fault = new TapeFault(FaultKind.TAPE_FULL, fault.getMessage() + "; cartridge full, the partial tape file "
                    + fileNumber + " was cut off");
        }
        throw fault;
    }

    /**
     * Makes {@code start} end of data again after a failed write: a filemark written over the one before it
     * (at BOT, after a failed label write: a filemark at block 0, an empty label the check refuses).
     */
    private void cutOff(DriveState d, long start, String what) {
        long at = Math.max(0, start - 1);
        for (int attempt = 0; attempt < BUSY_RETRIES; attempt++) {
            CommandRunner.Result seek = start == 0 ? mt.run(d, "rewind") : mt.run(d, "seek", at);
            if (!seek.ok() && seek.stderr().toLowerCase().contains("busy")) {
                pause(DriveCommands.POLL_MILLIS); // the killed dd may still hold the device on the tape host
                continue;
            }
            CommandRunner.Result weof = seek.ok() ? mt.run(d, "weof", 1) : seek;
            if (weof.ok()) {
                d.eod = start == 0 ? 1 : start; // after a failed label: an empty tape file 0
                d.files = start == 0 ? 1 : d.files;
                LOG.info("{}: cut off the partial tape file at block {}", what, start);
            } else {
                d.eod = -1;
                d.files = -1;
                LOG.error("{}: could not cut off the partial tape file at block {}: {}: {}", what, start,
                        weof.line(), weof.diagnostic());
            }
            return;
        }
        d.eod = -1;
        d.files = -1;
        LOG.error("{}: could not cut off the partial tape file at block {}: the device stayed busy", what, start);
    }

    /** Before the first append after a mount: the cartridge must carry a tapeq label for its barcode. */
    private void verifyLabel(DriveState d, String what) throws TapeFault {
        if (d.labelVerified) {
            return;
        }
        blame.checkLoaded(d, what);
        check(mt.run(d, "rewind"), FaultMap.Op.POSITION, what + " (reading the label)");
        ByteArrayOutputStream label = new ByteArrayOutputStream();
        try {
            doRead(d, 0, settings.blockSize(), () -> label);
        } catch (TapeFault f) {
            if (f.kind() != FaultKind.NOT_FOUND) {
                throw f;
            }
        }
        labels.verify(label.toByteArray(), d.barcode);
        d.labelVerified = true;
    }

    /** The tape file number at end of data, as the st driver counted it ({@code mt status} in {@code r}). */
    private static int fileNumber(CommandRunner.Result r, String what) throws TapeFault {
        try {
            DriveStatus s = DriveStatus.parse(r.stdout());
            if (s.fileNumber() < 0) {
                throw new TapeFault(FaultKind.DRIVE, what + ": the drive lost count of tape files at end of data ("
                        + r.stdout().strip() + ")");
            }
            return s.fileNumber();
        } catch (IllegalArgumentException e) {
            throw new TapeFault(FaultKind.DRIVE, what + ": " + e.getMessage());
        }
    }

    /** A failed data command, with an I/O error checked against the drive: a drive that is gone is no media error. */
    private TapeFault dataFault(DriveState d, FaultMap.Op op, String what, CommandRunner.Result r) {
        TapeFault f = FaultMap.fault(op, what, r);
        if (f.kind() == FaultKind.MEDIA || f.kind() == FaultKind.DRIVE) {
            TapeFault byFlags = blame.afterTransferError(d, f);
            if (byFlags != null) {
                return byFlags;
            }
        }
        if (f.kind() == FaultKind.MEDIA) {
            CommandRunner.Result s = mt.run(d, "status");
            boolean online;
            try {
                online = s.ok() && DriveStatus.parse(s.stdout()).online();
            } catch (IllegalArgumentException e) {
                online = false;
            }
            if (!online) {
                return new TapeFault(FaultKind.DRIVE, f.getMessage() + "; the drive does not answer: "
                        + (s.ok() ? s.stdout().strip() : s.diagnostic()));
            }
        }
        return f;
    }

    // ------------------------------------------------------------------ helpers

    private void needTape(DriveState d, String what) throws TapeFault {
        if (d.barcode == null) {
            throw new TapeFault(FaultKind.DRIVE, what + ": no cartridge in drive " + d.config.name());
        }
        mt.prepare(d, what);
    }
}
