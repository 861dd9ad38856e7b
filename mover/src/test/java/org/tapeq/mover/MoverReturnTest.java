package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.testing.support.Poll;

/**
 * A mover that returns is asked what its drives hold, and the engine takes that view: while the mover was away
 * the cartridge left the drive the engine thought it in (an unload that happened) and went into the mover's other
 * drive (a mount that happened); after the return the engine shows the first drive empty, the second holding it,
 * and stages from it.
 */
class MoverReturnTest {

    @TempDir
    Path dir;

    @Test
    void aReturningMoversDrivesAreTakenAsTheMoverReportsThem() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001")) {
            site.label("raw", "A00001");
            for (String d : MoverSiteFixture.M1_DRIVES) {
                site.scheduler.driveDown(d, "test: only m2").join();
            }
            site.awaitOutcomes(site.flush(1, 4));
            Poll.until("a drive of m2 holds A00001", () -> MoverSiteFixture.M2_DRIVES.stream()
                    .anyMatch(d -> "A00001".equals(site.drive(d).cartridge())));
            String thought = "A00001".equals(site.drive("drive2").cartridge()) ? "drive2" : "drive3";
            String other = thought.equals("drive2") ? "drive3" : "drive2";
            site.movers[1].close();
            Poll.until(thought + " unavailable", Duration.ofSeconds(30),
                    () -> site.drive(thought).state().equals("unavailable"));

            // meanwhile, out of the engine's sight: the cartridge is unloaded and loaded into the other drive
            this.<Void>onLibrary(site, done -> site.library.unmount(thought, done));
            this.<Void>onLibrary(site, done -> site.library.mount(other, "A00001", done));
            assertEquals("A00001", site.drive(thought).cartridge(), "the engine cannot know yet");

            site.startMover(1);
            Poll.until("m2's drives back in service", () -> !site.drive(thought).state().equals("unavailable")
                    && !site.drive(other).state().equals("unavailable"));
            assertNull(site.drive(thought).cartridge(), thought + " still shown holding the cartridge it gave up");
            assertEquals("A00001", site.drive(other).cartridge(), other + " not shown holding the cartridge");

            List<StageRequest> stages = site.stage(1, 4);
            site.awaitOutcomes(stages);
            for (int i = 1; i <= 4; i++) {
                assertInstanceOf(Outcome.Staged.class, site.outcomes.get(stages.get(i - 1).id()), "file " + i);
                assertArrayEquals(Files.readAllBytes(site.source(i)), Files.readAllBytes(site.staged(i)), "file " + i);
            }
        }
    }

    /** Runs one library operation on the library's loop, as a mover would, and waits for it. */
    private <T> T onLibrary(MoverSiteFixture site, java.util.function.Consumer<Completion<T>> op) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        site.libraryLoop.execute(() -> op.accept(new Completion<>() {
            @Override
            public void succeeded(T value) {
                f.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                f.completeExceptionally(fault);
            }
        }));
        return f.get(30, TimeUnit.SECONDS);
    }
}
