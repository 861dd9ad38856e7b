package org.tapeq.scheduler.tape;

/**
 * A tape library as the scheduler drives it: a robot, drives and cartridges. Implemented by the simulated
 * library and by the SCSI backend ({@code tape.scsi.ScsiLibrary}: {@code mtx}, {@code mt}, {@code dd}).
 *
 * <p>Every operation is asynchronous and calls its completion exactly once, on the scheduler's event loop.
 * A drive runs one operation at a time; the scheduler never issues a second one before the first completed.
 * Errors arrive as {@link org.tapeq.scheduler.model.TapeFault} with a {@link org.tapeq.scheduler.model.FaultKind}.
 *
 * <p>Positions are logical block addresses as a drive reports them ({@code mt tell}): block 0 is the first
 * block of the tape, and each filemark occupies one address. Tape file 0 is the label; a tape file is
 * written in blocks of {@link #blockSize()} bytes (the last one may be short) and followed by a filemark.
 */
public interface TapeLibrary {

    /** Bytes per tape block for data this library writes. */
    int blockSize();

    /** Drives, cartridges and what is loaded where. */
    void inventory(Completion<Inventory> done);

    /** Moves the cartridge from its slot into the empty drive and loads it; the tape is at block 0 afterwards. */
    void mount(String drive, String barcode, Completion<Void> done);

    /** Rewinds, unloads and returns the cartridge in the drive to a free slot. */
    void unmount(String drive, Completion<Void> done);

    /** Positions the mounted tape at a block address. */
    void locate(String drive, long block, Completion<Void> done);

    /** Positions the mounted tape at the first block of tape file {@code fileNumber}; returns that block's address. */
    void locateFile(String drive, int fileNumber, Completion<Long> done);

    /**
     * Reads from the current position: skips {@code skipBytes}, then delivers up to {@code length} bytes to the
     * sink. Stops early at a filemark or at the end of data; returns the number of bytes delivered, after
     * which the tape is positioned after the last block read.
     */
    void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done);

    /** Writes a new tape file at the end of data, followed by a filemark. */
    void append(String drive, TapeFileSource source, Completion<WrittenFile> done);

    /**
     * Writes a new tape file at the end of data, followed by a buffered tape mark (WRITE FILEMARKS with the Immed
     * bit): the drive may still hold the file and its mark in its buffer when this completes, so the tape file is
     * durable only after the next {@link #flush}. The completion reports the file's number and blocks as
     * {@link #append} does. Default: {@link #append}, whose synchronous mark leaves nothing buffered. A decorator
     * must pass it on together with {@link #flush}.
     */
    default void appendBuffered(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        append(drive, source, done);
    }

    /**
     * Writes everything the drive buffers to the tape (a synchronous WRITE FILEMARKS of 0 marks), then checks that
     * the tape files the writer holds are there: the drive holds {@code expected.barcode()} and its tape file
     * {@code expected.lastFile()} ends right before block {@code expected.endOfData()} ({@link FlushCheck}); a
     * library that leaves nothing after a failed append (the SCSI backend) checks that end of data is that block, one
     * that keeps the short tape file of a full tape (the simulated library) checks the tape file. Succeeds only then;
     * otherwise fails with the fault of {@link FlushCheck#check} (or {@link FlushCheck#lost}) naming the drive, the
     * cartridge and the expected and found positions: the drive was reset, power-cycled or its cartridge exchanged
     * since the buffered appends, and the held tape files must be written again. A drive operation like the others
     * (one at a time per drive). Abstract on purpose: a default that succeeded without asking the drive let a
     * decorator that forgot it acknowledge files that were never on the tape; a decorator must pass it on with
     * {@code expected} unchanged.
     */
    void flush(String drive, FlushCheck expected, Completion<Void> done);

    /** Writes tape file 0 at the beginning of tape. Everything recorded after it becomes unreadable. */
    void writeLabel(String drive, TapeFileSource label, Completion<WrittenFile> done);

    /**
     * The capacity of the cartridge in the drive as its cartridge memory reported it at the mount, if the library
     * reads it (the SCSI backend: READ ATTRIBUTE); empty otherwise, and the scheduler keeps the media type's
     * nominal capacity. Asked on the loop after a mount (or adoption) completed, before the drive's next operation.
     * Abstract on purpose, like {@link #alerts}: a library in front of another must pass it on.
     */
    java.util.Optional<CartridgeCapacity> capacity(String drive);

    /**
     * The end-of-wrap positions of the cartridge in the drive as the drive reported them at the mount (READ END OF
     * WRAP POSITION: element w is the first block past wrap w), if the drive offers them; empty otherwise, and the
     * scheduler keeps its own estimate. There may be fewer elements than the media has wraps, the last ending at end
     * of data rather than at its wrap's end: inferred from CTA's {@code RAOHelpers} and
     * {@code InterpolationFilePositionEstimator}, not checked against IBM's GA32-0928 5.2.20 (what a blank cartridge
     * answers is not known either); the scheduler completes them ({@code ReportedWrapEnds}). Asked on the loop after
     * a mount (or adoption) completed, like {@link #capacity}.
     * A decorator must pass it on.
     */
    default java.util.Optional<long[]> wrapEnds(String drive) {
        return java.util.Optional.empty();
    }

    /**
     * The generation of the drive, which decides the media it can mount ({@link
     * org.tapeq.scheduler.model.DriveType#mounts}), if the library knows it; empty otherwise, and the scheduler
     * mounts any cartridge in it. Asked on the loop. A decorator must pass it on.
     */
    default java.util.Optional<org.tapeq.scheduler.model.DriveType> driveType(String drive) {
        return java.util.Optional.empty();
    }

    /**
     * How many block ranges the drive in {@code drive} orders in one request of its recommended access order
     * (GENERATE / RECEIVE RECOMMENDED ACCESS ORDER: enterprise and LTO-9 full-height drives), or 0 where the drive
     * does not offer one. Asked on the loop. A decorator must pass it on.
     */
    default int accessOrderLimit(String drive) {
        return 0;
    }

    /**
     * The drive's recommended order of the block ranges {@code [starts[i], ends[i])} of the mounted tape (at most
     * {@link #accessOrderLimit} of them): a permutation of their indices, computed by the drive from its own
     * knowledge of the tape. A drive without it, or that rejects the request (ILLEGAL REQUEST), fails with a
     * {@link org.tapeq.scheduler.model.TapeFault#refusal}; the caller then orders the ranges itself. Any other fault
     * (hardware error, timeout) is a drive fault like those of the other operations. A drive operation like the others (one at a time per drive).
     */
    default void recommendAccessOrder(String drive, long[] starts, long[] ends, Completion<int[]> done) {
        done.failed(org.tapeq.scheduler.model.TapeFault.refusal("drive " + drive
                + " offers no recommended access order"));
    }

    /**
     * Where the library reports what it learns about cartridges and drives besides operation results
     * ({@link DriveAlerts}); set once by the scheduler before its first operation. A library that learns nothing
     * ignores it; a library in front of another (a decorator) must pass it on. No default on purpose: a
     * do-nothing default once let a decorator drop the registration silently.
     */
    void alerts(DriveAlerts alerts);
}
