package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.testing.support.Poll;

/**
 * Events lost to an overflow of the watcher's queue: with the periodic rescan an hour away (the one at start is
 * over before any request exists) and the events dropped while the daemon answers, only the recovery scan that
 * the overflow asks for can tell the tasks. It must complete every request and read only the subdirectory
 * whose events were lost: many requests in flight must not make each overflow cost a scan of all of them.
 */
class OverflowRecoveryTest {

    @TempDir
    java.nio.file.Path tmp;

    @Test
    void stage_atomicDeliveriesWhoseEventsWereLost_allCompleteAfterOneScanOfInAlone() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "rescan=3600")) {
            int delivered = 30;
            int waiting = 300; // request files in request/ that no overflow of in/ must make anyone read
            List<EmulatedStageRequest> stages = new ArrayList<>();
            List<byte[]> contents = new ArrayList<>();
            for (int i = 0; i < delivered + waiting; i++) {
                byte[] content = Fixture.randomBytes(50 + i);
                contents.add(content);
                stages.add(fx.newStage(content, "/a/" + i));
            }
            fx.pool.stage(stages);
            Poll.until("every request file written", () -> fx.storage.requestFilesWritten() == delivered + waiting);

            fx.storage.ignoreEvents(true);
            for (int i = 0; i < delivered; i++) {
                fx.daemon.deliver(stages.get(i).pnfsId().toString(), contents.get(i), true);
            }
            fx.settle();
            for (int i = 0; i < delivered; i++) {
                assertNull(stages.get(i).outcome(), "completed without its event: the test would prove nothing");
            }
            fx.storage.ignoreEvents(false);
            ScanCounts before = fx.storage.scanCounts();

            fx.storage.watchListener().overflowed(RequestDirectory.IN, "test");

            for (int i = 0; i < delivered; i++) {
                Outcome outcome = Fixture.outcome(stages.get(i));
                assertTrue(outcome.isCompleted(), outcome.toString());
            }
            Poll.until("the recovery scan counted", () -> fx.storage.scanCounts().recoveries() > before.recoveries());
            ScanCounts after = fx.storage.scanCounts();
            assertEquals(1, after.overflows() - before.overflows(), after.toString());
            assertEquals(1, after.recoveries() - before.recoveries(), after.toString());
            assertEquals(before.fullRescans(), after.fullRescans(), "an overflow of in/ ran a full rescan: " + after);
            // in/ held the data and checksum file of each delivery, fewer as the tasks took them
            long read = after.recoveryEntries() - before.recoveryEntries();
            assertTrue(read <= 2L * delivered, "the recovery read " + read + " entries, more than in/ held ("
                    + 2 * delivered + "); request/ alone has " + (delivered + waiting));
            for (int i = delivered; i < delivered + waiting; i++) {
                assertNull(stages.get(i).outcome(), stages.get(i).pnfsId() + " ended without an answer");
            }
        }
    }

    @Test
    void overflowsOfIn_coalesceAndNeverReadRequest() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "rescan=3600")) {
            int waiting = 200;
            List<EmulatedStageRequest> stages = new ArrayList<>();
            for (int i = 0; i < waiting; i++) {
                stages.add(fx.newStage(Fixture.randomBytes(10), "/a/" + i));
            }
            fx.pool.stage(stages);
            Poll.until("every request file written", () -> fx.storage.requestFilesWritten() == waiting);
            ScanCounts before = fx.storage.scanCounts();

            int overflows = 50;
            for (int i = 0; i < overflows; i++) {
                fx.storage.watchListener().overflowed(RequestDirectory.IN, "test");
            }
            fx.settle();
            fx.storage.runtime().timer.submit(() -> { }).get(); // a recovery scheduled last has run

            ScanCounts after = fx.storage.scanCounts();
            long recoveries = after.recoveries() - before.recoveries();
            assertEquals(overflows, after.overflows() - before.overflows(), after.toString());
            assertTrue(recoveries >= 1 && recoveries <= overflows, after.toString());
            assertEquals(before.fullRescans(), after.fullRescans(), after.toString());
            assertEquals(0, after.recoveryEntries() - before.recoveryEntries(),
                    "in/ is empty, yet the recoveries read entries (request/ has " + waiting + "): " + after);
        }
    }

    @Test
    void stage_errorFileWhoseEventWasLost_failsAfterARecoveryOfRequest() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "rescan=3600")) {
            EmulatedStageRequest stage = fx.newStage(Fixture.randomBytes(10), "/a/b");
            String id = fx.stageAndAwaitRequest(stage);
            fx.storage.ignoreEvents(true);
            fx.daemon.writeError(id, "32\nno such file on tape\n");
            fx.settle();
            assertNull(stage.outcome(), "ended without its event: the test would prove nothing");
            fx.storage.ignoreEvents(false);

            fx.storage.watchListener().overflowed(RequestDirectory.REQUEST, "test");

            Outcome outcome = Fixture.outcome(stage);
            assertTrue(outcome.isFailed(), outcome.toString());
            assertEquals(32, outcome.returnCode(), outcome.toString());
        }
    }

    @Test
    void flush_linkRemovalWhoseEventWasLost_completesAfterARecoveryOfOut() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "rescan=3600")) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            String id = fx.flushAndAwaitLink(flush);
            fx.storage.ignoreEvents(true);
            fx.daemon.archive(id);
            fx.settle();
            assertNull(flush.outcome(), "completed without its event: the test would prove nothing");
            fx.storage.ignoreEvents(false);

            fx.storage.watchListener().overflowed(RequestDirectory.OUT, "test");

            Outcome outcome = Fixture.outcome(flush);
            assertTrue(outcome.isCompleted(), outcome.toString());
        }
    }
}
