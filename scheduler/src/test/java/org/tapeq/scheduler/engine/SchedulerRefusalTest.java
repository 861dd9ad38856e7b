package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;

/** A command the drive's mover refuses (fenced: another epoch, site or token) counts no drive error. */
class SchedulerRefusalTest {

    @TempDir
    Path dir;

    /** Mounts are refused only after the cartridge was labelled. */
    private final AtomicBoolean labelled = new AtomicBoolean();

    @Test
    void refusedMounts_driveNotTakenDown() throws Exception {
        SchedulerConfig config = EngineFixture.testConfig().build();
        int refusals = config.driveErrorLimit() + 1;
        AtomicInteger refused = new AtomicInteger();
        try (EngineFixture f = EngineFixture.openWrapped(dir, config, lib -> new ForwardingLibrary(lib) {
            @Override
            public void mount(String drive, String barcode, Completion<Void> done) {
                if (refused.get() < refusals && !barcode.isEmpty() && labelled.get()) {
                    refused.incrementAndGet();
                    done.failed(TapeFault.refusal("mover m1 refuses mount of " + barcode + ": epoch 1 is older "
                            + "than 2 (fenced)"));
                    return;
                }
                super.mount(drive, barcode, done);
            }
        }, 1, 2_000_000_000L, "A00001L9")) {
            f.label("raw", "A00001L9");
            labelled.set(true);
            f.await(f.scheduler.unloadIdleDrives());
            FlushRequest r = f.flushRequest(0, 50_000, "ds", "atlas:raw@osm");
            f.scheduler.flush(r);
            for (int i = 0; i < 86_400 && f.outcome(r) == null; i++) {
                f.loop.runFor(1_000);
            }
            assertEquals(refusals, refused.get(), "the mounts were refused");
            SchedulerStatus.DriveStatus d = f.peekStatus().drives().get(0);
            assertEquals(0, d.errors(), String.valueOf(d));
            assertTrue(!d.state().equals("down"), String.valueOf(d));
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r), String.valueOf(f.outcome(r)));
        }
    }
}
