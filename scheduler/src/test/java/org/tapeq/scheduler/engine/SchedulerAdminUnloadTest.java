package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;

/** An administrative task whose drive cannot give back the cartridge it holds fails instead of waiting forever. */
class SchedulerAdminUnloadTest {

    @TempDir
    Path dir;

    private final AtomicBoolean failUnload = new AtomicBoolean();

    @Test
    void unloadBeforeAnAdminTaskFails_taskFails() throws Exception {
        try (EngineFixture f = EngineFixture.openWrapped(dir, EngineFixture.testConfig().build(),
                lib -> new ForwardingLibrary(lib) {
                    @Override
                    public void unmount(String drive, Completion<Void> done) {
                        if (failUnload.getAndSet(false)) {
                            done.failed(new TapeFault(FaultKind.DRIVE, "injected"));
                            return;
                        }
                        super.unmount(drive, done);
                    }
                }, 1, 2_000_000_000L, "A00001L9", "A00002L9")) {
            f.label("raw", "A00001L9");
            FlushRequest r = f.flushRequest(0, 50_000, "ds", "atlas:raw@osm");
            f.scheduler.flush(r);
            for (int i = 0; i < 86_400 && f.outcome(r) == null; i++) {
                f.loop.runFor(1_000);
            }
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r));
            assertEquals("A00001L9", f.peekStatus().drives().get(0).cartridge());
            failUnload.set(true);
            CompletableFuture<CartridgeRecord> label = f.scheduler.labelCartridge("A00002L9", "raw", false);
            for (int i = 0; i < 3_600 && !label.isDone(); i++) {
                f.loop.runFor(1_000);
            }
            assertTrue(!failUnload.get(), "the unload before the label was tried");
            assertTrue(label.isDone(), "the label task must end");
            ExecutionException e = assertThrows(ExecutionException.class, label::get);
            assertTrue(String.valueOf(e.getCause()).contains("injected"), String.valueOf(e.getCause()));
        }
    }
}
