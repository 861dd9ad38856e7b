package org.tapeq.scheduler.engine;

import java.util.HashSet;
import java.util.Set;
import java.util.function.LongUnaryOperator;

import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * A library whose read right after an append on the same drive (a write's read-back) delivers only
 * {@code keep(length)} bytes and reports success, as a drive that meets a filemark early would; armed for a
 * number of read-backs.
 */
final class ShortReadBacks extends ForwardingLibrary {
    private final TapeLibrary to;
    private final LongUnaryOperator keep;
    private final Set<String> appended = new HashSet<>();
    private int armed;
    private int shortened;

    ShortReadBacks(TapeLibrary to, LongUnaryOperator keep) {
        super(to);
        this.to = to;
        this.keep = keep;
    }

    /** The next {@code count} read-backs come back short. */
    void arm(int count) {
        armed = count;
    }

    /** How many read-backs were shortened. */
    int shortened() {
        return shortened;
    }

    @Override
    public void append(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        to.append(drive, source, noted(drive, done));
    }

    @Override
    public void appendBuffered(String drive, TapeFileSource source, Completion<WrittenFile> done) {
        to.appendBuffered(drive, source, noted(drive, done));
    }

    /** {@code done}, noting first that {@code drive} appended, so its next read is a read-back. */
    private Completion<WrittenFile> noted(String drive, Completion<WrittenFile> done) {
        return new Completion<>() {
            @Override
            public void succeeded(WrittenFile written) {
                appended.add(drive);
                done.succeeded(written);
            }

            @Override
            public void failed(org.tapeq.scheduler.model.TapeFault fault) {
                done.failed(fault);
            }
        };
    }

    @Override
    public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
        if (appended.remove(drive) && armed > 0) {
            armed--;
            shortened++;
            long n = keep.applyAsLong(length);
            if (n == 0) {
                done.succeeded(0L);
            } else {
                to.read(drive, skipBytes, n, sink, done);
            }
            return;
        }
        to.read(drive, skipBytes, length, sink, done);
    }
}
