package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.daemon.bridge.BridgeRig.awaitTrue;
import static org.tapeq.daemon.bridge.BridgeRig.status;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.ErrorReport;
import org.tapeq.protocol.ProtocolFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.ReturnCodes;

/**
 * The bridge against a full intake pool: reads wait for the pool instead of running on the bridge's thread,
 * and every request is still answered once the pool drains.
 */
class IntakeBackPressureTest {

    @TempDir
    Path tmp;

    private BridgeRig rig;

    @BeforeEach
    void start() throws Exception {
        rig = new BridgeRig(tmp);
    }

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    @Test
    void fullIntakePool_readsWaitOffTheBridgeThreadAndEveryRequestIsAnswered() throws Exception {
        RequestDirectory dir = RequestDirectory.create(tmp.resolve("endit"));
        int requests = 2 * Intake.PARSE_BATCH + 7;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            String id = String.format(Locale.ROOT, "0000%032X", i + 1);
            ids.add(id);
            // Stages of files the catalog does not know: the scheduler answers each with "not on tape".
            AtomicFiles.write(dir.requestFile(id), RequestCodec.toBytes(Request.stage(100, 1, "atlas:raw",
                    "/pnfs/test/" + id, 1L, null, null, null)));
        }

        // One intake thread, held by a task; one queue slot, taken by another: the pool is full.
        IntakePool pool = rig.pool(1, 1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocking = new CountDownLatch(1);
        assertTrue(pool.offer(() -> {
            blocking.countDown();
            await(release);
        }, () -> { }));
        blocking.await();
        assertTrue(pool.offer(() -> { }, () -> { }));

        Set<String> readers = ConcurrentHashMap.newKeySet();
        AtomicInteger batchesRead = new AtomicInteger();
        ReadPool watched = (task, whenRoom) -> pool.offer(() -> {
            readers.add(Thread.currentThread().getName());
            batchesRead.incrementAndGet();
            task.run();
        }, whenRoom);

        DirectoryBridge bridge = rig.bridge("bp", dir, watched, 60_000);
        var ready = bridge.start();

        awaitTrue("the bridge finds the pool full", () -> status(bridge).intakePauses() > 0);
        BridgeStatus paused = status(bridge);
        assertEquals(requests, paused.intakeBacklog(), "every request file found waits to be read");
        assertEquals(0, batchesRead.get(), "nothing was read while the pool was full");
        assertFalse(ready.isDone(), "not ready while requests found at start wait");
        assertTrue(new String(rig.metrics.scrape()).contains("tapeq_intake_backlog{directory=\"bp\"} " + requests + ".0"),
                "the backlog is a metric");

        release.countDown();
        ready.get(60, TimeUnit.SECONDS);
        for (String id : ids) {
            awaitTrue("an answer for " + id, () -> Files.exists(dir.errorFile(id)));
            ErrorReport e = ErrorReport.parse(ProtocolFiles.readSmallFile(dir.errorFile(id), 65536));
            assertEquals(ReturnCodes.NOT_ON_TAPE, e.returnCode(), id);
        }
        assertEquals(Set.of("test-intake-1"), readers, "request files were read in the pool only");
        assertEquals((requests + Intake.PARSE_BATCH - 1) / Intake.PARSE_BATCH, batchesRead.get(),
                "each batch was read once");
        assertEquals(0, status(bridge).intakeBacklog());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
