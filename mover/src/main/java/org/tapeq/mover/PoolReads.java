package org.tapeq.mover;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.mover.proto.Done;
import org.tapeq.mover.proto.DriveCommand;
import org.tapeq.mover.proto.FileResult;
import org.tapeq.mover.proto.PoolFile;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.format.MemberSplitter;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.StageFiles;

/**
 * A read a data mover delivers into the pool files its command names, on the shared pool filesystem: the same
 * split and checksums as the scheduler applies to streamed bytes ({@link MemberSplitter}), each file opened
 * through {@link PoolFiles} (refused outside the configured request directories) and forced to disk when it is
 * complete. The scheduler's checks (sizes, checksums) decide on the results; a checksum that differs from the
 * catalog's is only logged here.
 *
 * <p>Design notes. The splitter is written by the library's copy thread; {@link Read#stop} (a newer epoch) makes
 * the next write fail, so the library aborts the read as when a streamed read's channel is cut. The results are
 * read on the library's loop after the read's completion, once the library has closed the output.
 */
final class PoolReads {

    private static final Logger LOG = LoggerFactory.getLogger(PoolReads.class);

    private PoolReads() {
    }

    /** {@code c} naming the files of {@code files}: the command of a read the mover delivers into them. */
    static DriveCommand described(DriveCommand c, StageFiles files) {
        DriveCommand.Builder b = c.toBuilder();
        for (StageFiles.Member m : files.members()) {
            b.addFiles(PoolFile.newBuilder().setPath(m.target() == null ? "" : m.target().toString())
                    .setOffset(m.offset()).setSize(m.size()).setChecksum(m.checksum() == null ? "" : m.checksum()));
        }
        return b.build();
    }

    /** What the mover's answer reports of each file, in order. */
    static List<StageFiles.Result> results(Done answer) {
        List<StageFiles.Result> results = new ArrayList<>(answer.getFilesCount());
        for (FileResult r : answer.getFilesList()) {
            results.add(new StageFiles.Result(r.getBytes(), r.getChecksum().isEmpty() ? null : r.getChecksum(),
                    r.getError().isEmpty() ? null : r.getError()));
        }
        return results;
    }

    /** A read into the files of {@code c}, by mover {@code mover} with its pool files {@code pools} (null: none). */
    static Read start(String mover, PoolFiles pools, DriveCommand c) {
        List<StageFiles.Member> members = new ArrayList<>(c.getFilesCount());
        for (PoolFile f : c.getFilesList()) {
            members.add(new StageFiles.Member(f.getPath().isEmpty() ? null : Path.of(f.getPath()), f.getOffset(),
                    f.getSize(), f.getChecksum().isEmpty() ? null : f.getChecksum()));
        }
        return new Read(mover, pools, members);
    }

    /** One read into pool files. */
    static final class Read {
        private final String mover;
        private final PoolFiles pools;
        private final List<StageFiles.Member> members;
        private final MemberSplitter files;
        private final StoppableOutput output;

        private Read(String mover, PoolFiles pools, List<StageFiles.Member> members) {
            this.mover = mover;
            this.pools = pools;
            this.members = members;
            this.files = new MemberSplitter(members, i -> pools.openStageTarget(members.get(i).target()), true);
            this.output = new StoppableOutput(files);
        }

        String what() {
            return "read into " + members.size() + " pool file(s)";
        }

        /** The library's sink; fails if this mover writes no pool files (no {@code pools.shared}). */
        OutputStream output() throws IOException {
            if (pools == null) {
                throw new IOException("mover " + mover + " does not write pool files (pools.shared is not set); "
                        + "refusing to write " + members.get(0).target());
            }
            return output;
        }

        /**
         * What the library reads into: {@link #output()}, and for a size-only library the pool files of the right
         * length, made on its copy thread ({@link ByteSink#withoutBytes}).
         */
        ByteSink sink() {
            return new ByteSink() {
                @Override
                public OutputStream open() throws IOException {
                    return output();
                }

                @Override
                public void withoutBytes(long delivered) {
                    if (pools != null) {
                        files.assumeDelivered(delivered);
                    }
                }
            };
        }

        /** Stops the read: its next write fails, so the library aborts it. */
        void stop() {
            output.stop();
        }

        /** Each file's outcome after the library read {@code delivered} bytes; on the library's loop. */
        List<FileResult> results(long delivered) {
            if (pools != null && files.delivered() == 0 && delivered > 0) {
                files.assumeDelivered(delivered); // a size-only library without a copy thread: files of the right length
            }
            if (pools != null) {
                files.close(); // the library closed it already unless it never opened it
            }
            List<FileResult> results = new ArrayList<>(members.size());
            for (int i = 0; i < members.size(); i++) {
                StageFiles.Member m = members.get(i);
                String sum = files.checksum(i);
                String error = pools == null ? "mover " + mover + " does not write pool files" : files.error(i);
                if (error == null && Checksums.contradicts(m.checksum(), sum)) {
                    LOG.warn("Mover {}: {} read with {}, the catalog has {}; the scheduler fails this stage",
                            mover, m.target(), sum, m.checksum());
                }
                results.add(FileResult.newBuilder().setBytes(files.written(i)).setChecksum(sum == null ? "" : sum)
                        .setError(error == null ? "" : error).build());
            }
            return results;
        }
    }
}
