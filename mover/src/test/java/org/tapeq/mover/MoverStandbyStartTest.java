package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.engine.IoGate;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.StageSpace;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.testing.support.Poll;

/**
 * A scheduler that starts while a mover does not answer: that mover's drives come up unavailable (not recorded
 * down), the cartridge the changer sees in one of them stays that drive's (no other drive tries to mount it), and
 * the drives serve again when the mover answers.
 */
class MoverStandbyStartTest {

    @TempDir
    Path dir;

    @Test
    void moverLostAtStart_drivesUnavailableKeepTheirCartridge_andServeWhenItReturns() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001", "A00002")) {
            site.label("raw", "A00001", "A00002");
            for (String d : MoverSiteFixture.M1_DRIVES) {
                site.scheduler.driveDown(d, "test").join();
            }
            site.scheduler.driveDown("drive3", "test").join();
            site.awaitOutcomes(site.flush(1, 6));
            Poll.until("drive2 holds the written cartridge", () -> site.drive("drive2").cartridge() != null);
            String held = site.drive("drive2").cartridge();
            for (String d : MoverSiteFixture.M1_DRIVES) {
                site.scheduler.driveUp(d).join();
            }
            site.remote.close(); // the active scheduler is gone
            site.loop.close();
            site.catalog.close();
            site.movers[1].close(); // and m2 is lost meanwhile

            Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
            RealTimeEventLoop loop = new RealTimeEventLoop("standby", MoverSiteFixture.SPEED);
            try (RemoteLibrary remote = new RemoteLibrary(site.site(MoverSiteFixture.SITE), loop,
                    site.library.blockSize(), () -> 2, "standby");
                    Catalog catalog = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
                Scheduler s = Scheduler.builder().loop(loop).library(remote).catalog(catalog)
                        .config(MoverSiteFixture.config()).io(new IoGate(loop, site.io, 1_000))
                        .stageSpace(StageSpace.UNLIMITED).repackSpool(dir.resolve("spool2"))
                        .listener((request, outcome) -> outcomes.put(request.id(), outcome)).build();
                s.start().join();
                remote.events(new MoverDrives(s));
                SchedulerStatus.DriveStatus drive2 = drive(s, "drive2");
                assertEquals("unavailable", drive2.state(), String.valueOf(drive2));
                assertEquals(held, drive2.cartridge(), "the cartridge in drive2 is drive2's");
                assertEquals(true, catalog.drives().stream().filter(d -> d.id().equals("drive2")).findFirst()
                        .map(d -> d.up()).orElse(true), "drive2 is not recorded down");

                List<StageRequest> stages = new ArrayList<>();
                for (int i = 1; i <= 3; i++) {
                    stages.add(new StageRequest(1000 + i, MoverSiteFixture.pnfsid(i), -1, "atlas:raw@osm", "/f" + i,
                            "atlas", null, 0, 0, site.staged(i)));
                }
                stages.forEach(s::stage);
                site.startMover(1);
                Poll.until("the stages are answered", java.time.Duration.ofSeconds(120),
                        () -> stages.stream().allMatch(r -> outcomes.containsKey(r.id())));
                for (StageRequest r : stages) {
                    assertInstanceOf(Outcome.Staged.class, outcomes.get(r.id()), r.pnfsid());
                }
                Map<String, Long> counters = s.status(1000).join().counters();
                assertEquals(0L, counters.getOrDefault("faults_robot", 0L),
                        "no other drive tried to mount " + held + ": " + s.status(1000).join().recentFaults());
            } finally {
                loop.close();
            }
        }
    }

    private static SchedulerStatus.DriveStatus drive(Scheduler s, String id) {
        return s.status(1000).join().drives().stream().filter(d -> d.id().equals(id)).findFirst().orElseThrow();
    }
}
