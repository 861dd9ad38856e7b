package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * A write that fails because its drive's mover was lost is not an attempt and not a drive fault: a flush survives
 * more mover losses than {@code maxAttempts}.
 */
class SchedulerMoverLostWriteTest {

    @TempDir
    Path dir;

    @Test
    void writesFailedByMoverLosses_notCountedAsAttempts() throws Exception {
        SchedulerConfig config = EngineFixture.testConfig().build();
        int losses = config.maxAttempts() + 1;
        AtomicInteger lost = new AtomicInteger();
        AtomicReference<EngineFixture> fixture = new AtomicReference<>();
        try (EngineFixture f = EngineFixture.openWrapped(dir, config, lib -> new ForwardingLibrary(lib) {
            @Override // the engine's appends (buffered tape marks, its default)
            public void appendBuffered(String drive, TapeFileSource source, Completion<WrittenFile> done) {
                if (lost.get() >= losses) {
                    super.appendBuffered(drive, source, done);
                    return;
                }
                lost.incrementAndGet();
                // as RemoteLibrary does: the drive is unavailable before the failed call reaches the loop
                EngineFixture e = fixture.get();
                e.scheduler.driveUnavailable(drive, "mover m1 unreachable since T: UNAVAILABLE");
                e.loop.execute(() -> done.failed(new TapeFault(FaultKind.DRIVE,
                        "append failed: mover m1 unreachable: UNAVAILABLE")));
                e.loop.schedule(60_000, () -> e.scheduler.driveReachable(drive));
            }
        }, 1, 2_000_000_000L, "A00001L9")) {
            fixture.set(f);
            f.label("raw", "A00001L9");
            FlushRequest r = f.flushRequest(0, 50_000, "ds", "atlas:raw@osm");
            f.scheduler.flush(r);
            for (int i = 0; i < 86_400 && f.outcome(r) == null; i++) {
                f.loop.runFor(1_000);
            }
            assertEquals(losses, lost.get(), "the mover was lost during each of the first writes");
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r), String.valueOf(f.outcome(r)));
            assertEquals(0L, f.peekStatus().counters().getOrDefault("faults_drive", 0L), "no drive fault counted");
        }
    }
}
