package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedRemoveRequest;
import org.tapeq.poolemulator.EmulatedRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;

class ConcurrentRequestsTest {
    @TempDir
    Path tmp;

    @Test
    void tenThousandMixedRequests_eachEndsExactlyOnceAndDirectoryIsLeftClean() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "graceperiod=0")) {
            Random random = new Random(42);
            List<EmulatedFlushRequest> flushes = new ArrayList<>();
            List<EmulatedStageRequest> stages = new ArrayList<>();
            List<EmulatedRemoveRequest> removes = new ArrayList<>();
            for (int i = 0; i < 4000; i++) {
                flushes.add(fx.newFlush(Fixture.randomBytes(1 + random.nextInt(64)), "/d" + (i % 7) + "/f" + i));
                byte[] content = Fixture.randomBytes(1 + random.nextInt(64));
                EmulatedStageRequest stage = fx.newStage(content, "/d/s" + i);
                fx.daemon.tape.put(stage.pnfsId().toString(), content);
                stages.add(stage);
            }
            for (int i = 0; i < 2000; i++) {
                removes.add(fx.pool.newRemove(URI.create("osm://tape1?bfid=" + Fixture.newPnfsId())));
            }
            List<EmulatedRequest<?>> all = new ArrayList<>();
            all.addAll(flushes);
            all.addAll(stages);
            all.addAll(removes);
            List<EmulatedRequest<?>> cancellable = new ArrayList<>(flushes);
            cancellable.addAll(stages);
            Collections.shuffle(cancellable, random);
            Set<EmulatedRequest<?>> cancelled = new HashSet<>(cancellable.subList(0, 500));

            fx.daemon.serve();
            Thread submitter = new Thread(() -> {
                for (int i = 0; i < 4000; i += 100) {
                    fx.pool.flush(flushes.subList(i, i + 100));
                    fx.pool.stage(stages.subList(i, i + 100));
                }
            });
            submitter.start();
            fx.pool.remove(removes);
            for (EmulatedRequest<?> r : cancelled) {
                r.cancel(); // before, during or after submission: unknown ids are ignored, so retry below
            }
            submitter.join();
            for (EmulatedRequest<?> r : cancelled) {
                r.cancel();
            }
            fx.pool.awaitIdle(120, TimeUnit.SECONDS);

            int completed = 0;
            int cancelledOutcomes = 0;
            for (EmulatedRequest<?> r : all) {
                Outcome o = r.outcome();
                if (o.isCompleted()) {
                    completed++;
                } else {
                    assertTrue(o.isCancelled() && cancelled.contains(r), r + " failed: " + o);
                    cancelledOutcomes++;
                }
            }
            assertEquals(10_000, completed + cancelledOutcomes);
            assertTrue(completed >= 9_500, "only cancelled requests may fail: " + completed);
            assertTrue(cancelledOutcomes > 0, "the cancel path ran");
            assertEquals(List.of(), fx.pool.violations());
            assertEquals(0, fx.storage.inFlight());
            assertEquals(List.of(), fx.list("request"));
            assertEquals(List.of(), fx.list("out"));
            assertEquals(2000, fx.list("trash").size());
        }
    }
}
