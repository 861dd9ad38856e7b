package org.tapeq.scheduler.engine.drive;

import java.io.IOException;
import java.io.OutputStream;

import org.tapeq.scheduler.format.SourceChangedException;
import org.tapeq.scheduler.tape.DescribedSource;
import org.tapeq.scheduler.tape.TapeFileSource;

/** Remembers the first exception the aggregate's source threw, to tell a source problem from a tape one. */
final class GuardedSource implements TapeFileSource {
    private final TapeFileSource source;
    volatile IOException failure;

    GuardedSource(TapeFileSource source) {
        this.source = source;
    }

    @Override
    public long length() {
        return source.length();
    }

    /** A data mover that rebuilds the aggregate from it reports a changed source as a SOURCE fault itself. */
    @Override
    public DescribedSource described() {
        return source.described();
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
        try {
            source.writeTo(out);
        } catch (SourceChangedException e) {
            failure = e;
            throw e;
        }
    }
}
