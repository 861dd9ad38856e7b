package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.poolemulator.PoolEmulator;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.testing.support.Poll;

class StageTest {
    @TempDir
    Path tmp;

    @Test
    void stage_tapeqDelivery_movesFileAndReturnsChecksum() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "graceperiod=60000")) {
            byte[] content = Fixture.randomBytes(4096);
            EmulatedStageRequest stage = fx.newStage(content, "/pnfs/cms/store/x/file.root");
            String id = fx.stageAndAwaitRequest(stage);
            Request request = fx.daemon.request(id);
            assertEquals(Request.Action.RECALL, request.action());
            assertEquals(4096, request.fileSize());
            assertEquals(ProcessHandle.current().pid(), request.parentPid());
            assertEquals("/pnfs/cms/store/x/file.root", request.path());
            assertEquals(stage.getId().toString(), request.extension().requestId());
            assertFalse(stage.isAllocated(), "late allocation: no space before data arrives");

            fx.daemon.deliver(id, content, true);
            Outcome outcome = Fixture.outcome(stage); // a 60 s grace period would time out: the checksum file skips it
            assertTrue(outcome.isCompleted(), outcome.toString());
            assertEquals(Set.of(Fixture.adler32Of(content)), outcome.result());
            assertArrayEquals(content, Files.readAllBytes(fx.pool.replicaPath(stage.pnfsId())));
            assertEquals(List.of(), fx.list("in"));
            assertEquals(List.of(), fx.list("request"));
            assertEquals(List.of(), fx.pool.violations());
        }
    }

    @Test
    void stage_enditInPlaceWrite_waitsForFullSizeAndGracePeriod() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "graceperiod=300")) {
            byte[] content = Fixture.randomBytes(1000);
            EmulatedStageRequest stage = fx.newStage(content, "/a/b");
            String id = fx.stageAndAwaitRequest(stage);

            fx.daemon.writeInPlace(id, content, 400); // short: still being written
            Poll.until("space allocated when data arrives", stage::isAllocated);
            fx.settle(); // the task looked at the file after the allocation, and the poll since
            assertTrue(fx.polling(id), "a short file is watched as it grows");
            assertNull(stage.outcome(), "a short file is not complete");

            fx.daemon.writeInPlace(id, content, 1000);
            long complete = System.nanoTime();
            Outcome outcome = Fixture.outcome(stage);
            long waitedMillis = (System.nanoTime() - complete) / 1_000_000;
            assertTrue(outcome.isCompleted(), outcome.toString());
            assertTrue(waitedMillis >= 250, "moved only after the grace period, waited " + waitedMillis + " ms");
            assertEquals(Set.of(), outcome.result(), "no checksums from an ENDIT daemon");
            assertArrayEquals(content, Files.readAllBytes(fx.pool.replicaPath(stage.pnfsId())));
        }
    }

    @Test
    void stage_partialFileAlreadyBeingWritten_isWatchedWithoutWaitingForARescan() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "rescan=3600", "graceperiod=0")) {
            byte[] content = Fixture.randomBytes(1000);
            EmulatedStageRequest stage = fx.newStage(content, "/a/b");
            String id = stage.pnfsId().toString();
            fx.daemon.writeInPlace(id, content, 300); // an ENDIT daemon still writing for the pre-restart request
            fx.stageAndAwaitRequest(stage);
            fx.daemon.writeInPlace(id, content, 1000); // grows in place: no create event, no rescan for an hour
            Outcome outcome = Fixture.outcome(stage);
            assertTrue(outcome.isCompleted(), outcome.toString());
            assertArrayEquals(content, Files.readAllBytes(fx.pool.replicaPath(stage.pnfsId())));
        }
    }

    @Test
    void stage_oversizedFile_failsAndRemovesIt() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            EmulatedStageRequest stage = fx.newStage(Fixture.randomBytes(100), "/a/b");
            String id = fx.stageAndAwaitRequest(stage);
            fx.daemon.deliver(id, Fixture.randomBytes(101), false);
            Outcome outcome = Fixture.outcome(stage);
            assertEquals(ReturnCodes.DATA_MISMATCH, outcome.returnCode(), outcome.toString());
            assertTrue(outcome.message().contains("101 bytes, more than the 100 expected"), outcome.message());
            assertEquals(List.of(), fx.list("in"));
            assertEquals(List.of(), fx.list("request"));
        }
    }

    @Test
    void stage_checksumContradictsNamespace_failsAndRemovesStagedFile() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            byte[] content = Fixture.randomBytes(100);
            EmulatedStageRequest stage = fx.newStage(content, "/a/b");
            String id = fx.stageAndAwaitRequest(stage);
            byte[] corrupt = content.clone();
            corrupt[7] ^= 1;
            fx.daemon.deliver(id, corrupt, true);
            Outcome outcome = Fixture.outcome(stage);
            assertEquals(ReturnCodes.DATA_MISMATCH, outcome.returnCode(), outcome.toString());
            assertTrue(outcome.message().startsWith("checksum mismatch for " + id), outcome.message());
            assertEquals(List.of(), fx.list("in"));
            assertFalse(Files.exists(fx.pool.replicaPath(stage.pnfsId())));
        }
    }

    @ParameterizedTest(name = "[{index}] error file ''{0}''")
    @CsvSource(delimiter = '|', value = {
        "33\\nfile not found on tape VOL001|33|file not found on tape VOL001",
        "ANS1345E No objects on the server match|1|ANS1345E No objects on the server match",
        "''|1|the tape daemon reported a failure without a reason (empty error file)",
        "42\\nread error on drive 3|1|read error on drive 3 (the daemon's return code 42 is reported as 1: 41-43 and 204 would disable the pool)",
        "204\\ndisk I/O error|1|disk I/O error (the daemon's return code 204 is reported as 1: 41-43 and 204 would disable the pool)",
        "210\\nalready there|1|already there (the daemon's return code 210 is reported as 1: dCache would report 210 as a success)",
        "34|34|the tape daemon reported return code 34",
    })
    void stage_errorFile_failsPerProtocol(String content, int rc, String message) throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            EmulatedStageRequest stage = fx.newStage(Fixture.randomBytes(10), "/a/b");
            String id = fx.stageAndAwaitRequest(stage);
            fx.daemon.writeError(id, content.replace("\\n", "\n"));
            Outcome outcome = Fixture.outcome(stage);
            assertEquals(rc, outcome.returnCode(), outcome.toString());
            assertEquals(message, outcome.message());
            assertEquals(List.of(), fx.list("request"));
            assertEquals(List.of(), fx.pool.violations());
        }
    }

    @Test
    void stage_completeFileAlreadyInDirectory_isUsedWithoutNewRequest() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            byte[] content = Fixture.randomBytes(100);
            EmulatedStageRequest stage = fx.newStage(content, "/a/b");
            String id = stage.pnfsId().toString();
            fx.daemon.deliver(id, content, true); // e.g. staged while the pool restarted
            fx.countRequestFilesFromNow();
            fx.pool.stage(List.of(stage));
            assertTrue(Fixture.outcome(stage).isCompleted());
            EmulatedStageRequest control = fx.newStage(content, "/a/c"); // shows the counter does see requests
            String controlId = fx.stageAndAwaitRequest(control);
            Poll.until("the control's request is counted", () -> fx.requestFilesCreated().contains(controlId));
            assertEquals(List.of(controlId), fx.requestFilesCreated(), "no request for " + id + ": nothing is staged twice");
        }
    }

    @Test
    void stage_withoutLateAllocation_allocatesBeforeRequesting() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "lateallocate=false")) {
            fx.pool.setAllocationMode(PoolEmulator.AllocationMode.HOLD);
            byte[] content = Fixture.randomBytes(100);
            EmulatedStageRequest stage = fx.newStage(content, "/a/b");
            String id = stage.pnfsId().toString();
            fx.pool.stage(List.of(stage));
            Poll.until("allocation requested", () -> fx.pool.heldCount() == 1);
            fx.settle(); // the step that asked for the allocation is over
            assertFalse(Files.exists(fx.dir.requestFile(id)), "no request before space is allocated");
            fx.pool.releaseHeld();
            Poll.until("request written", () -> Files.exists(fx.dir.requestFile(id)));
            fx.daemon.deliver(id, content, true);
            assertTrue(Fixture.outcome(stage).isCompleted());
        }
    }

    @Test
    void stage_allocationFails_failsWithTheCause() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            fx.pool.setAllocationMode(PoolEmulator.AllocationMode.NO_SPACE);
            byte[] content = Fixture.randomBytes(100);
            EmulatedStageRequest stage = fx.newStage(content, "/a/b");
            String id = fx.stageAndAwaitRequest(stage);
            fx.daemon.deliver(id, content, true);
            Outcome outcome = Fixture.outcome(stage);
            assertTrue(outcome.message().contains("no space"), outcome.toString());
            assertEquals(List.of(), fx.list("request"));
            assertTrue(Files.exists(fx.dir.inFile(id)), "the staged file stays for a retry");
        }
    }

    @Test
    void stage_activationFails_failsWithTheCause() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            fx.pool.setActivationMode(PoolEmulator.ActivationMode.FAIL);
            EmulatedStageRequest stage = fx.newStage(Fixture.randomBytes(100), "/a/b");
            fx.pool.stage(List.of(stage));
            Outcome outcome = Fixture.outcome(stage);
            assertTrue(outcome.message().contains("activation"), outcome.toString());
            assertEquals(List.of(), fx.list("request"));
        }
    }

    @Test
    void stage_activateThrows_failsAndIsNotLeftInFlight() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            fx.pool.setActivationMode(PoolEmulator.ActivationMode.THROW);
            EmulatedStageRequest stage = fx.newStage(Fixture.randomBytes(100), "/a/b");
            fx.pool.stage(List.of(stage));
            Outcome outcome = Fixture.outcome(stage);
            assertTrue(outcome.message().contains("threw"), outcome.toString());
            Poll.until("nothing in flight", () -> fx.storage.inFlight() == 0);
        }
    }

    @Test
    void stage_cancelAtEveryStep_failsCancelledAndLeavesNoRequest() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "graceperiod=5000")) {
            byte[] content = Fixture.randomBytes(100);
            // 1. before activation
            fx.pool.setActivationMode(PoolEmulator.ActivationMode.HOLD);
            EmulatedStageRequest queued = fx.newStage(content, "/a/b");
            fx.pool.stage(List.of(queued));
            queued.cancel();
            assertTrue(Fixture.outcome(queued).isCancelled());
            fx.pool.releaseHeld();
            fx.pool.setActivationMode(PoolEmulator.ActivationMode.IMMEDIATE);
            // 2. waiting for the daemon
            EmulatedStageRequest waiting = fx.newStage(content, "/a/b");
            fx.stageAndAwaitRequest(waiting);
            waiting.cancel();
            assertTrue(Fixture.outcome(waiting).isCancelled());
            // 3. while space is being allocated for arriving data
            fx.pool.setAllocationMode(PoolEmulator.AllocationMode.HOLD);
            EmulatedStageRequest allocating = fx.newStage(content, "/a/b");
            String allocatingId = fx.stageAndAwaitRequest(allocating);
            fx.daemon.writeInPlace(allocatingId, content, 10);
            Poll.until("allocation held", () -> fx.pool.heldCount() == 1);
            allocating.cancel();
            assertTrue(Fixture.outcome(allocating).isCancelled());
            fx.pool.releaseHeld();
            fx.pool.setAllocationMode(PoolEmulator.AllocationMode.IMMEDIATE);
            // 4. during the grace period
            EmulatedStageRequest grace = fx.newStage(content, "/a/b");
            String graceId = fx.stageAndAwaitRequest(grace);
            fx.daemon.writeInPlace(graceId, content, content.length);
            Poll.until("allocated", grace::isAllocated);
            fx.settle(); // the step after the allocation found the file complete
            assertNull(grace.outcome(), "waiting out the grace period");
            grace.cancel();
            assertTrue(Fixture.outcome(grace).isCancelled());
            assertTrue(Files.exists(fx.dir.inFile(graceId)), "a complete staged file stays for a retry");

            fx.settle(); // every step signalled so far (the held activation of the first one included) has run
            assertEquals(List.of(), fx.list("request"));
            assertEquals(List.of(), fx.pool.violations());
            assertEquals(0, fx.storage.inFlight());
        }
    }

    @Test
    void stage_deadlineCountsFromActivation() throws Exception {
        try (Fixture fx = Fixture.start(tmp, PoolEmulator.builder().stageTimeoutMillis(600))) {
            EmulatedStageRequest stage = fx.newStage(Fixture.randomBytes(10), "/a/b");
            assertEquals(Long.MAX_VALUE, stage.getDeadline(), "no deadline before activation");
            Thread.sleep(800); // the request exists longer than the timeout before the pool hands it over
            long handedOver = System.currentTimeMillis();
            fx.stageAndAwaitRequest(stage);
            assertTrue(stage.getDeadline() >= handedOver + 600, "the deadline counts from activation, not from "
                    + "creation: " + (stage.getDeadline() - handedOver) + " ms after the hand-over");
            assertTrue(stage.outcome() == null || System.currentTimeMillis() >= stage.getDeadline(),
                    "not ended before its deadline: " + stage.outcome());
            Request request = fx.daemon.request(stage.pnfsId().toString());
            assertEquals(stage.getDeadline(), request.extension().deadline());
            Outcome outcome = Fixture.outcome(stage);
            assertInstanceOf(TimeoutException.class, outcome.exception(), outcome.toString());
            assertEquals(List.of(), fx.list("request"));
        }
    }
}
