package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.testing.support.Poll;

class PoolRestartTest {
    @TempDir
    Path tmp;

    @Test
    void restart_requestsInFlight_adoptedWithoutDuplicateStagesAndOrphansRemoved() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "orphantimeout=2")) {
            byte[] x = Fixture.randomBytes(100);
            byte[] y = Fixture.randomBytes(200);
            EmulatedStageRequest stageX = fx.newStage(x, "/d/x");
            EmulatedStageRequest stageY = fx.newStage(y, "/d/y");
            EmulatedStageRequest stageW = fx.newStage(Fixture.randomBytes(5), "/d/w");
            EmulatedFlushRequest flushZ = fx.newFlush(Fixture.randomBytes(300), "/d/z");
            String idX = stageX.pnfsId().toString();
            String idY = stageY.pnfsId().toString();
            String idW = stageW.pnfsId().toString();
            String idZ = flushZ.pnfsId().toString();
            fx.pool.stage(List.of(stageX, stageY, stageW));
            fx.pool.flush(List.of(flushZ));
            Poll.until("all requests written", () -> fx.storage.inFlight() == 4
                    && List.of(idX, idY, idW, idZ).stream().allMatch(id -> Files.exists(fx.dir.requestFile(id)))
                    && Files.exists(fx.dir.outLink(idZ)));

            fx.storage.shutdown(); // the pool goes down with four requests in flight
            for (var r : List.of(stageX, stageY, stageW, flushZ)) {
                assertTrue(Fixture.outcome(r).isCancelled(), r + ": " + r.outcome());
            }
            assertEquals(List.of(idX, idY, idW, idZ).stream().sorted().collect(java.util.stream.Collectors.toList()), fx.list("request"),
                    "request files survive a shutdown so the daemon's work is not lost");
            Path staleTemporary = Files.write(fx.dir.requestDir().resolve("." + idW + ".123.tmp"), new byte[3]);
            Files.setLastModifiedTime(staleTemporary, FileTime.fromMillis(0));
            fx.daemon.deliver(idX, x, true); // the daemon finishes X while the pool is down

            TapeqNearlineStorage restarted = new TapeqNearlineStorage(Fixture.HSM_TYPE, Fixture.HSM_NAME);
            restarted.configure(fx.options(Map.of("orphantimeout", "2")));
            restarted.start();
            try {
                fx.pool.attach(restarted);
                restarted.rescanNow();
                assertTrue(Files.exists(fx.dir.requestFile(idW)), "requests are not deleted at start (ENDIT does)");
                fx.countRequestFilesFromNow();

                EmulatedStageRequest againX = fx.pool.newStage(stageX.pnfsId(), x.length, "atlas:raw", "/d/x",
                        List.of(Fixture.adler32Of(x)));
                EmulatedStageRequest againY = fx.pool.newStage(stageY.pnfsId(), y.length, "atlas:raw", "/d/y",
                        List.of(Fixture.adler32Of(y)));
                EmulatedFlushRequest againZ = fx.pool.newFlush(flushZ.pnfsId(), 300, "atlas:raw", "/d/z", List.of());
                fx.pool.stage(List.of(againX, againY));
                fx.pool.flush(List.of(againZ));
                // The daemon comes back only once Y's request is adopted: serving Y's surviving request earlier
                // would leave a complete in/ file, which the provider rightly uses without writing a request.
                Poll.until("the adopted request for Y is counted", () -> fx.requestFilesCreated().contains(idY));
                fx.daemon.tape.put(idY, y);
                fx.daemon.serve();

                assertTrue(Fixture.outcome(againX).isCompleted(), againX.outcome().toString());
                assertTrue(Fixture.outcome(againY).isCompleted(), againY.outcome().toString());
                assertTrue(Fixture.outcome(againZ).isCompleted(), againZ.outcome().toString());
                assertEquals(1, fx.daemon.deliveries.get(idX).get(), "X staged once");
                assertEquals(1, fx.daemon.deliveries.get(idY).get(), "Y staged once");
                assertFalse(fx.requestFilesCreated().contains(idX), "no new request for the file already staged");

                Poll.until("orphans removed after the orphan timeout", () -> {
                    restarted.rescanNow();
                    try {
                        return fx.list("request").isEmpty();
                    } catch (java.io.IOException e) {
                        return false;
                    }
                });
                assertEquals(List.of(), fx.list("out"));
                assertEquals(List.of(), fx.pool.violations());
            } finally {
                restarted.shutdown();
            }
        }
    }
}
