package org.tapeq.provider;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.poolemulator.PoolEmulator;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.testing.support.Poll;

class FlushTest {
    @TempDir
    Path tmp;

    @Test
    void flush_linkRemovedByDaemon_completesWithEnditUriAndCleansUp() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "priority=5", "activity=T0-export")) {
            byte[] content = Fixture.randomBytes(1000);
            EmulatedFlushRequest flush = fx.newFlush(content, "/pnfs/atlas/data18/RAW/file1");
            String id = flush.pnfsId().toString();
            fx.pool.flush(List.of(flush));

            Poll.until("request and link exist", () -> Files.exists(fx.dir.outLink(id))
                    && Files.exists(fx.dir.requestFile(id)));
            assertTrue(Files.isSameFile(fx.dir.outLink(id), fx.pool.replicaPath(flush.pnfsId())), "out/ is a hard link");
            Request request = fx.daemon.request(id);
            assertEquals(Request.Action.MIGRATE, request.action());
            assertEquals(1000, request.fileSize());
            assertEquals("atlas:raw", request.storageClass());
            assertEquals("/pnfs/atlas/data18/RAW/file1", request.path());
            assertEquals("adler32", request.checksumType());
            assertEquals(FakeTapeDaemon.adler32(content), request.checksumValue());
            assertEquals(flush.getId().toString(), request.extension().requestId());
            assertEquals(5, request.extension().priority());
            assertEquals("T0-export", request.extension().activity());
            assertEquals("/pnfs/atlas/data18/RAW", request.extension().colocation());
            assertNull(flush.outcome(), "not complete before the daemon answers");

            fx.daemon.archive(id);
            Outcome outcome = Fixture.outcome(flush);
            assertTrue(outcome.isCompleted(), outcome.toString());
            assertEquals(Set.of(URI.create("osm://tape1?bfid=" + id)), outcome.result());
            assertArrayEquals(content, fx.daemon.tape.get(id));
            Poll.until("request file removed", () -> !Files.exists(fx.dir.requestFile(id)));
            assertEquals(List.of(), fx.pool.violations());
        }
    }

    @Test
    void flush_errorFileWithReturnCode_failsWithThatCodeAndRemovesLink() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            String id = fx.flushAndAwaitLink(flush);

            fx.daemon.writeError(id, "32\ncartridge family for atlas:raw is not configured\n");
            Outcome outcome = Fixture.outcome(flush);
            assertTrue(outcome.isFailed());
            assertEquals(32, outcome.returnCode());
            assertEquals("cartridge family for atlas:raw is not configured", outcome.message());
            assertEquals(List.of(), fx.list("out"));
            assertEquals(List.of(), fx.list("request"));
            assertTrue(Files.exists(fx.pool.replicaPath(flush.pnfsId())), "the replica is untouched");
        }
    }

    @Test
    void flush_replicaSizeDisagreesWithNamespace_failsWithoutRequest() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            var id = Fixture.newPnfsId();
            fx.pool.writeReplica(id, Fixture.randomBytes(10));
            EmulatedFlushRequest flush = fx.pool.newFlush(id, 11, "atlas:raw", "/a/b", List.of());
            fx.pool.flush(List.of(flush));
            Outcome outcome = Fixture.outcome(flush);
            assertEquals(ReturnCodes.DATA_MISMATCH, outcome.returnCode(), outcome.toString());
            assertTrue(outcome.message().contains("has 10 bytes but the namespace says 11"), outcome.message());
            assertEquals(List.of(), fx.list("request"));
            assertEquals(List.of(), fx.list("out"));
        }
    }

    @Test
    void flush_missingReplica_failsNamingIt() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            EmulatedFlushRequest flush = fx.pool.newFlush(Fixture.newPnfsId(), 5, "atlas:raw", "/a/b", List.of());
            fx.pool.flush(List.of(flush));
            Outcome outcome = Fixture.outcome(flush);
            assertEquals(ReturnCodes.INVALID_REQUEST, outcome.returnCode());
            assertTrue(outcome.message().contains("does not exist"), outcome.message());
        }
    }

    @Test
    void flush_staleLinkToOtherFile_isReplaced() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            String id = flush.pnfsId().toString();
            Path stale = Files.write(tmp.resolve("stale"), new byte[3]);
            Files.createLink(fx.dir.outLink(id), stale);
            fx.pool.flush(List.of(flush));
            Poll.until("link replaced", () -> {
                try {
                    return Files.isSameFile(fx.dir.outLink(id), fx.pool.replicaPath(flush.pnfsId()));
                } catch (java.io.IOException e) {
                    return false;
                }
            });
        }
    }

    @Test
    void flush_cancelBeforeActivation_failsCancelledAndWritesNothing() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            fx.pool.setActivationMode(PoolEmulator.ActivationMode.HOLD);
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            fx.pool.flush(List.of(flush));
            flush.cancel();
            assertTrue(Fixture.outcome(flush).isCancelled());
            fx.pool.releaseHeld(); // the activation arrives after the cancel
            fx.settle();
            assertEquals(List.of(), fx.list("request"));
            assertEquals(List.of(), fx.list("out"));
            assertEquals(List.of(), fx.pool.violations());
        }
    }

    @Test
    void flush_cancelWhileQueued_removesLinkAndRequest() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            String id = fx.flushAndAwaitLink(flush);
            flush.cancel();
            assertTrue(Fixture.outcome(flush).isCancelled());
            assertEquals(List.of(), fx.list("out"));
            assertEquals(List.of(), fx.list("request"));
        }
    }

    @Test
    void flush_cancelAfterDaemonRemovedLink_completionWins() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "rescan=3600")) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            fx.storage.ignoreEvents(true);
            String id = fx.flushAndAwaitLink(flush);
            fx.daemon.archive(id);
            flush.cancel();
            fx.storage.ignoreEvents(false);
            Outcome outcome = Fixture.outcome(flush);
            assertTrue(outcome.isCompleted(), outcome.toString());
        }
    }

    @Test
    void flush_deadlinePassed_failsWithTimeoutAndWithdraws() throws Exception {
        try (Fixture fx = Fixture.start(tmp, PoolEmulator.builder().flushTimeoutMillis(300))) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            fx.pool.flush(List.of(flush));
            Outcome outcome = Fixture.outcome(flush);
            assertInstanceOf(TimeoutException.class, outcome.exception(), outcome.toString());
            assertEquals(List.of(), fx.list("out"));
            assertEquals(List.of(), fx.list("request"));
        }
    }

    @Test
    void flush_withoutEvents_rescanFindsTheAnswer() throws Exception {
        try (Fixture fx = Fixture.start(tmp, "rescan=3600")) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            fx.storage.ignoreEvents(true); // events are dropped, as on a filesystem shared with another host
            String id = fx.flushAndAwaitLink(flush);
            fx.daemon.archive(id);
            fx.settle(); // a poll period later, nothing has noticed the link is gone
            assertNull(flush.outcome());
            fx.storage.ignoreEvents(false);
            fx.storage.rescanNow();
            assertTrue(Fixture.outcome(flush).isCompleted());
            assertFalse(Files.exists(fx.dir.requestFile(id)));
        }
    }

    /**
     * The request directory removed under a flush in flight (rm -r, a shared filesystem unmounted): the link is
     * gone, but so is the request file only this provider removes. That is no archive by the daemon, and must
     * never be reported to dCache as a file on tape. Seen in an integration test whose temporary directory was
     * deleted by another process: three flushes completed without reaching tape.
     */
    @Test
    void flush_requestAndLinkRemovedTogether_isNotReportedAsOnTape() throws Exception {
        try (Fixture fx = Fixture.start(tmp)) {
            EmulatedFlushRequest flush = fx.newFlush(Fixture.randomBytes(10), "/a/b");
            String id = fx.flushAndAwaitLink(flush);

            Files.delete(fx.dir.requestFile(id)); // rm -r reached request/ first, as in the incident
            Files.delete(fx.dir.outLink(id));
            Outcome outcome = Fixture.outcome(flush);
            assertTrue(outcome.isFailed(), "not on tape: " + outcome);
            assertEquals(ReturnCodes.FAILED, outcome.returnCode(), "dCache retries the flush later");
            assertTrue(outcome.message().contains("removed or replaced"), outcome.message());
            assertFalse(fx.daemon.tape.containsKey(id));
            assertTrue(Files.exists(fx.pool.replicaPath(flush.pnfsId())), "the replica is untouched");
            assertEquals(List.of(), fx.pool.violations());
        }
    }
}
