package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The files of one read are answered as each is whole, not all at the read's end: a pool gets the first files of a
 * long read of small members while the drive still reads the rest; a fault after that leaves them answered once.
 */
class ReadAnswersTest {

    /** What the read reports at its end, {@link #LATE} ms after its bytes arrived. */
    private static final long LATE = 20_000;

    @TempDir
    Path dir;

    /**
     * A library whose reads report their end {@link #LATE} ms after the bytes arrived, as a drive still reading a long
     * range would; {@code failReads}: that end is a media error.
     */
    private static final class LateReadEnds extends ForwardingLibrary {
        private final TapeLibrary to;
        final List<Long> readEnds = new ArrayList<>();
        /** Null: reads pass through unchanged (the flushes' own reads). */
        EventLoop loop;
        boolean failReads;

        LateReadEnds(TapeLibrary to) {
            super(to);
            this.to = to;
        }

        @Override
        public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
            if (loop == null) {
                to.read(drive, skipBytes, length, sink, done);
                return;
            }
            to.read(drive, skipBytes, length, sink, new Completion<>() {
                @Override
                public void succeeded(Long n) {
                    loop.schedule(LATE, () -> {
                        readEnds.add(loop.now());
                        if (failReads) {
                            done.failed(new TapeFault(FaultKind.MEDIA, "unrecoverable read error after the last file"));
                        } else {
                            done.succeeded(n);
                        }
                    });
                }

                @Override
                public void failed(TapeFault fault) {
                    done.failed(fault);
                }
            });
        }
    }

    private record Run(EngineFixture fixture, LateReadEnds library, List<StageRequest> stages) {
    }

    /** Four files in one aggregate flushed, then staged in one read through {@link LateReadEnds}. */
    private Run flushedThenStaged(boolean failReads) throws IOException {
        LateReadEnds[] late = new LateReadEnds[1];
        EngineFixture f = EngineFixture.openWrapped(dir, EngineFixture.testConfig().checkLabels(false)
                .aggregateFiles(4).build(), lib -> late[0] = new LateReadEnds(lib), 1, 2_000_000_000L, "A00001L9");
        f.label("raw", "A00001L9");
        List<FlushRequest> flushes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            flushes.add(f.flushRequest(i, 20_000 + i, "ds", "atlas:raw@osm"));
        }
        flushes.forEach(f.scheduler::flush);
        f.loop.runUntilIdle();
        flushes.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid()));
        late[0].loop = f.loop;
        late[0].failReads = failReads;
        List<StageRequest> stages = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            stages.add(f.stageRequest(i, dir.resolve("staged-" + i)));
        }
        stages.forEach(f.scheduler::stage);
        return new Run(f, late[0], stages);
    }

    @Test
    void longRead_eachFileAnsweredWhenWhole_beforeTheReadEnds_bytesIdentical() throws IOException {
        Run run = flushedThenStaged(false);
        try (EngineFixture f = run.fixture()) {
            f.loop.runUntilIdle();
            assertEquals(1, run.library().readEnds.size(), "one read for the four: " + run.library().readEnds);
            long readEnd = run.library().readEnds.get(0);
            for (StageRequest s : run.stages()) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid());
                assertTrue(f.finishedAt.get(s.id()) <= readEnd - LATE, s.pnfsid() + " answered at "
                        + f.finishedAt.get(s.id()) + ", the read ended at " + readEnd);
                assertArrayEquals(Files.readAllBytes(dir.resolve("src").resolve(s.pnfsid())),
                        Files.readAllBytes(s.target()), s.pnfsid());
            }
            assertEquals(0, f.status().queueCount());
        }
    }

    @Test
    void longRead_faultAfterItsFilesWereWhole_answeredOnceNotReadAgain() throws IOException {
        Run run = flushedThenStaged(true);
        try (EngineFixture f = run.fixture()) {
            f.loop.runUntilIdle(); // a second outcome for a request fails the fixture's listener
            assertEquals(1, run.library().readEnds.size(), "nothing read again: " + run.library().readEnds);
            for (StageRequest s : run.stages()) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid());
            }
            assertEquals(0, f.status().queueCount());
        }
    }
}
