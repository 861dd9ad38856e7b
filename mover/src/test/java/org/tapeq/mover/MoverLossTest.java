package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.testing.support.Poll;

/**
 * A lost mover's drives are unavailable, not down: not an operator's drive down nor a drive fault, the cartridge
 * in one stays there (shown with the reason), and an operator's drive down survives the mover's loss and return.
 */
class MoverLossTest {

    @TempDir
    Path dir;

    @Test
    void aLostMoversDrivesAreUnavailableAndAnOperatorsDriveDownSurvivesItsReturn() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001", "A00002")) {
            site.label("raw", "A00001", "A00002");
            for (String d : MoverSiteFixture.M1_DRIVES) {
                site.scheduler.driveDown(d, "test: only m2").join();
            }
            site.scheduler.driveDown("drive3", "operator: worn head").join();
            List<FlushRequest> flushes = site.flush(1, 6);
            site.awaitOutcomes(flushes);
            Poll.until("drive2 holds the cartridge it wrote", () -> site.drive("drive2").cartridge() != null);
            String barcode = site.drive("drive2").cartridge();
            site.movers[1].close();

            Poll.until("drive2 unavailable for its mover", Duration.ofSeconds(30),
                    () -> site.drive("drive2").state().equals("unavailable"));
            SchedulerStatus.DriveStatus d2 = site.drive("drive2");
            assertTrue(d2.reason().startsWith("mover m2 unreachable since "), d2.reason());
            assertEquals(barcode, d2.cartridge(), "the cartridge stays in the lost mover's drive");
            assertEquals(0, d2.errors(), "a lost mover is no drive error");
            Poll.until("drive3 (down by the operator) unavailable too",
                    () -> String.valueOf(site.drive("drive3").reason()).contains("mover m2 unreachable"));
            SchedulerStatus.DriveStatus d3 = site.drive("drive3");
            assertTrue(d3.reason().contains("operator: worn head") && d3.reason().contains("mover m2 unreachable"),
                    d3.reason());
            SchedulerStatus status = site.scheduler.status(1000).join();
            assertTrue(status.recentFaults().stream().noneMatch(f -> "drive2".equals(f.drive())),
                    "no drive fault for the lost mover's drive: " + status.recentFaults());
            SchedulerStatus.QueueStatus q = status.queues().stream().filter(x -> x.name().contains(barcode))
                    .findFirst().orElse(null);
            if (q != null) {
                assertNotNull(q.reason(), "the cartridge's queue says why it cannot move");
                assertTrue(q.reason().contains("mover m2 unreachable"), q.reason());
            }

            // m1 back in service: the stages of the cartridge in the lost drive wait, nothing mounts it elsewhere
            for (String d : MoverSiteFixture.M1_DRIVES) {
                site.scheduler.driveUp(d).join();
            }
            site.drivesUsed.clear();
            List<StageRequest> stages = site.stage(1, 6);
            Poll.until("the stages' queue shows the cartridge held by the lost drive",
                    () -> site.scheduler.status(1000).join().queues().stream().anyMatch(x -> x.name()
                            .contains(barcode) && String.valueOf(x.reason()).contains("mover m2 unreachable")));
            for (String d : MoverSiteFixture.M1_DRIVES) {
                assertTrue(!barcode.equals(site.drive(d).cartridge()), barcode + " mounted in " + d);
            }

            site.startMover(1);
            Poll.until("drive2 back in service", () -> !site.drive("drive2").state().equals("unavailable")
                    && !site.drive("drive2").state().equals("down"));
            site.awaitOutcomes(stages);
            for (int i = 1; i <= 6; i++) {
                assertInstanceOf(Outcome.Staged.class, site.outcomes.get(stages.get(i - 1).id()), "file " + i);
                assertArrayEquals(Files.readAllBytes(site.source(i)), Files.readAllBytes(site.staged(i)), "file " + i);
            }
            SchedulerStatus.DriveStatus back = site.drive("drive3");
            assertEquals("down", back.state(), "the operator's drive down survives the mover's return");
            assertEquals("by administrator: operator: worn head", back.reason());
        }
    }
}
