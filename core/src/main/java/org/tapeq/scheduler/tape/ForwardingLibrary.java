package org.tapeq.scheduler.tape;

import java.util.Optional;

import org.tapeq.scheduler.model.DriveType;

/**
 * A library in front of another that passes every call on to it: a decorator (a hold, a ledger, a test's fault)
 * extends it and overrides only what it changes. It declares every method of {@link TapeLibrary}, the default ones
 * too, so that a decorator never answers for the library behind it by an interface default (no wrap ends, no
 * recommended order, drive alerts dropped) without a word.
 */
public abstract class ForwardingLibrary implements TapeLibrary {

    private final TapeLibrary delegate;

    protected ForwardingLibrary(TapeLibrary delegate) {
        this.delegate = delegate;
    }

    /** The library behind this one. */
    protected final TapeLibrary delegate() {
        return delegate;
    }

    @Override
    public int blockSize() {
        return delegate.blockSize();
    }

    @Override
    public void inventory(Completion<Inventory> done) {
        delegate.inventory(done);
    }

    @Override
    public void mount(String drive, String barcode, Completion<Void> done) {
        delegate.mount(drive, barcode, done);
    }

    @Override
    public void unmount(String drive, Completion<Void> done) {
        delegate.unmount(drive, done);
    }

    @Override
    public void locate(String drive, long block, Completion<Void> done) {
        delegate.locate(drive, block, done);
    }

    @Override
    public void locateFile(String drive, int fileNumber, Completion<Long> done) {
        delegate.locateFile(drive, fileNumber, done);
    }

    @Override
    public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
        delegate.read(drive, skipBytes, length, sink, done);
    }

    @Override
    public void append(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        delegate.append(drive, source, done);
    }

    @Override
    public void appendBuffered(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        delegate.appendBuffered(drive, source, done);
    }

    @Override
    public void flush(String drive, FlushCheck expected, Completion<Void> done) {
        delegate.flush(drive, expected, done);
    }

    @Override
    public void writeLabel(String drive, TapeFileSource label, Completion<WrittenFile> done) {
        delegate.writeLabel(drive, label, done);
    }

    @Override
    public Optional<CartridgeCapacity> capacity(String drive) {
        return delegate.capacity(drive);
    }

    @Override
    public Optional<long[]> wrapEnds(String drive) {
        return delegate.wrapEnds(drive);
    }

    @Override
    public Optional<DriveType> driveType(String drive) {
        return delegate.driveType(drive);
    }

    @Override
    public int accessOrderLimit(String drive) {
        return delegate.accessOrderLimit(drive);
    }

    @Override
    public void recommendAccessOrder(String drive, long[] starts, long[] ends, Completion<int[]> done) {
        delegate.recommendAccessOrder(drive, starts, ends, done);
    }

    @Override
    public void alerts(DriveAlerts alerts) {
        delegate.alerts(alerts);
    }

    @Override
    public String toString() {
        return String.valueOf(delegate);
    }
}
