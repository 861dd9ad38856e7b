package org.tapeq.scheduler.engine;

import java.util.Optional;

import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.CartridgeCapacity;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.DriveAlerts;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * A library that passes every call on to another one; tests override what they change. Buffered appends and flushes
 * are the interface's defaults (a synchronous {@link #append}, a flush with nothing to do), so a test's {@code append}
 * sees every write.
 */
class ForwardingLibrary implements TapeLibrary {
    private final TapeLibrary to;

    ForwardingLibrary(TapeLibrary to) {
        this.to = to;
    }

    @Override
    public int blockSize() {
        return to.blockSize();
    }

    @Override
    public void inventory(Completion<Inventory> done) {
        to.inventory(done);
    }

    @Override
    public void mount(String drive, String barcode, Completion<Void> done) {
        to.mount(drive, barcode, done);
    }

    @Override
    public void unmount(String drive, Completion<Void> done) {
        to.unmount(drive, done);
    }

    @Override
    public void locate(String drive, long block, Completion<Void> done) {
        to.locate(drive, block, done);
    }

    @Override
    public void locateFile(String drive, int fileNumber, Completion<Long> done) {
        to.locateFile(drive, fileNumber, done);
    }

    @Override
    public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
        to.read(drive, skipBytes, length, sink, done);
    }

    @Override
    public void append(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        to.append(drive, source, done);
    }

    @Override
    public void writeLabel(String drive, TapeFileSource label, Completion<WrittenFile> done) {
        to.writeLabel(drive, label, done);
    }

    @Override
    public Optional<CartridgeCapacity> capacity(String drive) {
        return to.capacity(drive);
    }

    @Override
    public void alerts(DriveAlerts alerts) {
        to.alerts(alerts);
    }

    @Override
    public Optional<long[]> wrapEnds(String drive) {
        return to.wrapEnds(drive);
    }

    @Override
    public int accessOrderLimit(String drive) {
        return to.accessOrderLimit(drive);
    }

    @Override
    public Optional<org.tapeq.scheduler.model.DriveType> driveType(String drive) {
        return to.driveType(drive);
    }

    @Override
    public void recommendAccessOrder(String drive, long[] starts, long[] ends, Completion<int[]> done) {
        to.recommendAccessOrder(drive, starts, ends, done);
    }
}
