package org.tapeq.mover;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.tapeq.mover.proto.DriveCommand;
import org.tapeq.scheduler.format.AggregatePlan;
import org.tapeq.scheduler.tape.DescribedSource;
import org.tapeq.scheduler.tape.TapeFileSource;

/**
 * A write a data mover makes from the pool files its command describes (an aggregate's manifest and its members'
 * files in {@code out/}), on the shared pool filesystem: the aggregate is rebuilt with the scheduler's own code
 * ({@link AggregatePlan#describedSource}), byte for byte what the scheduler would have streamed, each member read
 * through {@link PoolFiles} (only in the configured {@code out/} directories, never through a link) and checked
 * as the scheduler checks it (regular file, same size, same Adler-32), so a file changed since it was planned
 * fails the write as a {@code SOURCE} fault naming it, and nothing is recorded.
 */
final class PoolWrites {

    private PoolWrites() {
    }

    /** {@code c} with {@code source}'s description: the command of a write the mover makes from the pool files. */
    static DriveCommand described(DriveCommand c, DescribedSource source) {
        org.tapeq.mover.proto.DescribedSource.Builder d = org.tapeq.mover.proto.DescribedSource.newBuilder()
                .setFormat(source.format())
                .setDescription(com.google.protobuf.ByteString.copyFrom(source.description()));
        source.sources().forEach(p -> d.addSources(p.toString()));
        return c.toBuilder().setSource(d).build();
    }

    /** The tape file of {@code c} for mover {@code mover} with its pool files {@code pools} (null: none). */
    static Write start(String mover, PoolFiles pools, DriveCommand c) {
        List<Path> sources = new ArrayList<>();
        c.getSource().getSourcesList().forEach(s -> sources.add(Path.of(s)));
        return new Write(mover, pools, c.getLength(), new DescribedSource(c.getSource().getFormat(),
                c.getSource().getDescription().toByteArray(), sources));
    }

    /** One write from pool files: a {@link TapeFileSource} of the length the command announced. */
    static final class Write implements TapeFileSource {
        private final String mover;
        private final PoolFiles pools;
        private final long length;
        private final DescribedSource described;
        private volatile StoppableOutput output;
        private volatile boolean stopped;

        private Write(String mover, PoolFiles pools, long length, DescribedSource described) {
            this.mover = mover;
            this.pools = pools;
            this.length = length;
            this.described = described;
        }

        String what() {
            return "append of " + length + " bytes from " + described.sources().size() + " pool file(s)";
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public void writeTo(OutputStream out) throws IOException {
            if (pools == null) {
                throw new IOException("mover " + mover + " does not read pool files (pools.shared is not set); "
                        + "refusing to write from " + described.sources());
            }
            TapeFileSource rebuilt = AggregatePlan.describedSource(described, pools.sources());
            if (rebuilt.length() != length) {
                throw new IOException("mover " + mover + ": the described tape file is " + rebuilt.length()
                        + " bytes, the command announced " + length);
            }
            StoppableOutput o = new StoppableOutput(out);
            output = o;
            if (stopped) {
                o.stop();
            }
            rebuilt.writeTo(o);
        }

        /** Stops the write: its next byte fails, so the library aborts it. */
        void stop() {
            stopped = true;
            StoppableOutput o = output;
            if (o != null) {
                o.stop();
            }
        }
    }
}
