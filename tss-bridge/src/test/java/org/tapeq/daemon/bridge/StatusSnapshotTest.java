package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.daemon.bridge.BridgeRig.awaitTrue;
import static org.tapeq.daemon.bridge.BridgeRig.status;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.SchedulerStatus;

/**
 * A status is answered from the snapshot each part publishes on its own thread: at once while that thread is
 * blocked, with the last snapshot it took before it stopped (no older than one the test saw before blocking it),
 * and fresh again once it runs. Each step waits on an event (a snapshot seen, a refresh asked for), never on time.
 */
class StatusSnapshotTest {

    /** The goal for a status with ten million queued (docs/benchmarks.md). */
    private static final long ANSWER_MILLIS = 1000;

    @TempDir
    Path tmp;

    private BridgeRig rig;
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() {
        release.countDown();
        if (rig != null) {
            rig.close();
        }
    }

    @Test
    void aDirectorysStatus_whileItsThreadIsBlocked_answersAtOnce_withWhatWasTrueWhenItStopped() throws Exception {
        rig = new BridgeRig(tmp);
        RequestDirectory dir = RequestDirectory.create(tmp.resolve("d"));
        DirectoryBridge bridge = rig.bridge("d", dir, rig.pool(2, 16), 3_600_000);
        bridge.start().get(60, TimeUnit.SECONDS);
        flushes(dir, 0, 3); // no out/ link: they wait for it, and stay so
        awaitTrue("3 flushes waiting for their link", () -> waitingLink(status(bridge)) == 3);
        long asked = System.currentTimeMillis();
        awaitTrue("a snapshot taken after " + asked, () -> status(bridge).takenMillis() > asked);
        long seen = status(bridge).takenMillis();

        AtomicLong blockedAt = new AtomicLong();
        bridge.onThread(() -> {
            blockedAt.set(System.currentTimeMillis());
            awaitQuietly(release);
        });
        awaitTrue("the bridge's thread blocked", () -> blockedAt.get() != 0);
        flushes(dir, 3, 5); // read by the intake; admitted on the blocked thread, so not yet

        long t0 = System.nanoTime();
        BridgeStatus s = status(bridge);
        long tookMillis = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(tookMillis < ANSWER_MILLIS, "answered in " + tookMillis + " ms");
        assertEquals(3, waitingLink(s), "what was true when the thread stopped: " + s.requests());
        assertTrue(s.takenMillis() <= blockedAt.get() && s.takenMillis() >= seen, "taken at " + s.takenMillis()
                + ": not between the snapshot seen before the block (" + seen + ") and the block (" + blockedAt.get()
                + ")");

        // A snapshot asked for now is taken after the block, once the thread runs again.
        CompletableFuture<Void> fresh = bridge.publishStatusNow();
        assertFalse(fresh.isDone(), "published while the thread is blocked");
        release.countDown();
        fresh.get(60, TimeUnit.SECONDS);
        assertTrue(status(bridge).takenMillis() > blockedAt.get(), "the asked-for snapshot was taken after the block");
        awaitTrue("all 5 shown once the thread runs again", () -> waitingLink(status(bridge)) == 5);
    }

    @Test
    void theSchedulersStatus_whileItsLoopIsBlocked_answersAtOnce_andShowsWhatAControlCallDid() throws Exception {
        rig = new BridgeRig(tmp);
        Scheduler scheduler = rig.scheduler();
        assertNull(scheduler.publishedStatus(0, 10), "nothing is published before it is asked for");
        ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(); // as the daemon does
        AtomicLong refreshes = new AtomicLong();
        refresher.scheduleWithFixedDelay(() -> {
            scheduler.refreshStatus();
            refreshes.incrementAndGet();
        }, 0, DirectoryBridge.STATUS_REFRESH_MILLIS, TimeUnit.MILLISECONDS);
        try {
            blockedLoop(scheduler, refreshes);
        } finally {
            refresher.shutdownNow();
        }
    }

    private void blockedLoop(Scheduler scheduler, AtomicLong refreshes) throws Exception {
        awaitTrue("a first snapshot", () -> scheduler.publishedStatus(0, 10) != null);
        String drive = scheduler.publishedStatus(0, 10).drives().get(0).id();

        // A control call publishes before its caller hears of it: the next status shows what it did.
        scheduler.driveDown(drive, "snapshot test").get(30, TimeUnit.SECONDS);
        SchedulerStatus afterCall = scheduler.publishedStatus(0, 10);
        assertEquals("down", afterCall.drives().get(0).state());

        AtomicLong blockedAtLoopTime = new AtomicLong();
        rig.loop().execute(() -> {
            blockedAtLoopTime.set(rig.loop().now());
            awaitQuietly(release);
        });
        awaitTrue("the loop blocked", () -> blockedAtLoopTime.get() != 0);
        long asked = refreshes.get();
        awaitTrue("refreshes asked for while the loop is blocked (they wait behind the block)",
                () -> refreshes.get() >= asked + 2);

        long t0 = System.nanoTime();
        SchedulerStatus s = scheduler.publishedStatus(0, 10);
        long tookMillis = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(tookMillis < ANSWER_MILLIS, "answered in " + tookMillis + " ms");
        assertEquals("down", s.drives().get(0).state());
        assertTrue(s.now() >= afterCall.now() && s.now() <= blockedAtLoopTime.get(), "taken at loop time " + s.now()
                + ": not between the control call's snapshot (" + afterCall.now() + ") and the block ("
                + blockedAtLoopTime.get() + ")");
        assertTrue(scheduler.publishedLoad() != null);
        release.countDown();
        awaitTrue("refreshed once the loop runs again", () -> scheduler.publishedStatus(0, 10).now()
                > blockedAtLoopTime.get());
    }

    private static int waitingLink(BridgeStatus s) {
        return s.requests().getOrDefault("waiting_link", 0);
    }

    private static void flushes(RequestDirectory dir, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            String pnfsid = String.format("0000%032X", i);
            AtomicFiles.write(dir.requestFile(pnfsid), RequestCodec.toBytes(Request.flush(10, 1, "atlas:raw",
                    "/p/" + pnfsid, null, null, null)));
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
