package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;

/**
 * The provider's use of the shared directory watcher: with the rescan an hour away (the one at start is over
 * before the request exists), only events can tell a task that its answer is there.
 */
class EventSignalsTest {

    @TempDir
    Path tmp;

    @Test
    void flush_linkRemovedByTheDaemon_completesThroughTheOutEvent() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "rescan=3600")) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            String id = fx.flushAndAwaitLink(flush);
            fx.daemon.archive(id);
            Outcome outcome = Fixture.outcome(flush);
            assertTrue(outcome.isCompleted(), outcome.toString());
        }
    }

    @Test
    void flush_errorFileWritten_failsThroughTheRequestEvent() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "rescan=3600")) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            String id = fx.flushAndAwaitLink(flush);
            fx.daemon.writeError(id, "32\nno such family\n");
            Outcome outcome = Fixture.outcome(flush);
            assertTrue(outcome.isFailed(), outcome.toString());
            assertEquals(32, outcome.returnCode(), outcome.toString());
        }
    }

    @Test
    void stage_fileDelivered_completesThroughTheInEvent() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "rescan=3600")) {
            byte[] content = Fixture.randomBytes(100);
            EmulatedStageRequest stage = fx.newStage(content, "/a/b");
            String id = fx.stageAndAwaitRequest(stage);
            fx.daemon.deliver(id, content, true);
            Outcome outcome = Fixture.outcome(stage);
            assertTrue(outcome.isCompleted(), outcome.toString());
            assertArrayEquals(content, Files.readAllBytes(fx.pool.replicaPath(stage.pnfsId())));
        }
    }
}
