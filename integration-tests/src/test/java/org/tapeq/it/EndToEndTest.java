package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

import org.dcache.util.Checksum;
import org.dcache.util.ChecksumType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.bridge.BridgeStatus;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedRemoveRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.poolemulator.PoolEmulator;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.testing.support.Poll;

/**
 * The whole chain in one JVM: the pool emulator drives the real tapeq provider plugin, which talks through the
 * request directory to the real daemon (started from its YAML configuration) with a simulated library that keeps
 * the bytes. Every test ends by checking that the pool saw no violation of the SPI contract.
 */
class EndToEndTest {

    private static final long WAIT_SECONDS = 60;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    java.nio.file.Path tmp;

    Site site;
    Daemon daemon;
    Pool pool;
    final Random random = new Random(42);

    @BeforeEach
    void start() throws Exception {
        site = new Site(tmp);
        daemon = site.startDaemon();
        Site.label(daemon);
    }

    private Pool pool() throws Exception {
        if (pool == null) {
            pool = Pool.start(site);
        }
        return pool;
    }

    @AfterEach
    void stop() {
        Pool.closeAndCheck(pool, daemon);
    }

    @Test
    void flushThenStageInRandomOrder_returnsIdenticalBytesAndTheirChecksums() throws Exception {
        List<TestFile> files = new ArrayList<>();
        long[] sizes = {0, 1, 4095, 65_536, 262_144, 262_145, 1_000_003, 3_145_728};
        for (int i = 0; i < sizes.length; i++) {
            files.add(TestFile.of(random, i % 5, sizes[i]));
        }
        files.addAll(TestFile.generate(random, 16, 5, 1000, 2_000_000));

        List<EmulatedFlushRequest> flushes = pool().flush(files);
        Pool.awaitAll(flushes, WAIT_SECONDS);
        for (int i = 0; i < files.size(); i++) {
            TestFile f = files.get(i);
            Outcome o = flushes.get(i).outcome();
            assertTrue(o.isCompleted(), f + ": " + o);
            assertEquals(Set.of(Pool.flushUri(f)), o.result(), f.toString());
            FileRecord r = daemon.catalog().file(f.pnfsid()).orElseThrow(() -> new AssertionError(f + " not in the catalog"));
            assertEquals(f.size(), r.size(), f.toString());
            assertEquals("adler32:" + f.adler32(), r.checksum(), f.toString());
            assertEquals(f.path(), r.path(), f.toString());
            CartridgeRecord c = daemon.catalog().cartridge(r.cartridge()).orElseThrow();
            assertEquals(f.storageClass().substring(0, f.storageClass().indexOf(':')), c.family(),
                    f + " is on " + r.cartridge() + " of family " + c.family());
        }
        assertEquals(List.of(), site.list(RequestDirectory.OUT), "every link removed");
        assertEquals(List.of(), site.list(RequestDirectory.REQUEST), "every request collected");

        for (TestFile f : files) {
            pool.dropReplica(f);
        }
        List<TestFile> order = new ArrayList<>(files);
        Collections.shuffle(order, random);
        List<EmulatedStageRequest> stages = pool.stage(order);
        Pool.awaitAll(stages, WAIT_SECONDS);
        for (int i = 0; i < order.size(); i++) {
            TestFile f = order.get(i);
            Outcome o = stages.get(i).outcome();
            assertTrue(o.isCompleted(), f + ": " + o);
            assertEquals(Set.of(new Checksum(ChecksumType.ADLER32, f.adler32())), o.result(),
                    f + ": the tapeq provider returns the checksum the daemon verified");
            assertArrayEquals(f.content(), Files.readAllBytes(pool.emulator.replicaPath(f.pnfsId())), f.toString());
        }
        assertEquals(List.of(), site.list(RequestDirectory.IN), "in/ empty: every staged file taken");
        assertEquals(List.of(), site.list(RequestDirectory.REQUEST));
        Map<String, Long> counters = daemon.scheduler().status(0).get().counters();
        assertEquals(files.size(), counters.get("stages_done"), counters.toString());
    }

    @Test
    void removeOfAFlushedFile_isATrashEntryThatBecomesACatalogDelete() throws Exception {
        TestFile kept = TestFile.of(random, 0, 10_000);
        TestFile removed = TestFile.of(random, 0, 20_000);
        Pool.awaitAll(pool().flush(List.of(kept, removed)), WAIT_SECONDS);
        assertTrue(daemon.catalog().file(removed.pnfsid()).isPresent());

        // The daemon may clear the entry at once; a drive-independent remove still shows in the counters.
        EmulatedRemoveRequest remove = pool.remove(List.of(Pool.flushUri(removed))).get(0);
        Outcome o = Pool.await(remove, WAIT_SECONDS);
        assertTrue(o.isCompleted(), o.toString());
        Poll.until("the trash entry is processed and cleared",
                () -> daemon.catalog().file(removed.pnfsid()).isEmpty()
                        && site.list(RequestDirectory.TRASH).isEmpty());
        assertEquals(1L, daemon.scheduler().status(0).get().counters().get("removes_done"));
        assertTrue(daemon.catalog().file(kept.pnfsid()).isPresent(), "only the removed file is deleted");

        pool.dropReplica(removed);
        Outcome stage = Pool.await(pool.stage(List.of(removed)).get(0), WAIT_SECONDS);
        assertEquals(ReturnCodes.NOT_ON_TAPE, stage.returnCode(), stage.toString());
    }

    @Test
    void stagesCancelledByThePoolWhileDrivesAreDown_endCancelledAndNothingIsDelivered() throws Exception {
        List<TestFile> files = TestFile.generate(random, 4, 2, 1000, 100_000);
        TestFile sentinel = TestFile.of(random, 0, 3000);
        Pool.awaitAll(pool().flush(files), WAIT_SECONDS);
        Pool.awaitAll(pool.flush(List.of(sentinel)), WAIT_SECONDS);
        files.forEach(this::drop);
        drop(sentinel);
        drivesDown();

        List<EmulatedStageRequest> stages = pool.stage(files);
        Poll.until("the daemon holds the 4 stages", () -> bridge().inScheduler() == 4);
        for (EmulatedStageRequest s : stages) {
            s.cancel();
        }
        for (EmulatedStageRequest s : stages) {
            Outcome o = Pool.await(s, WAIT_SECONDS);
            assertTrue(o.isCancelled(), o.toString());
        }
        Poll.until("the daemon let go of them", () -> bridge().inScheduler() == 0);
        assertEquals(List.of(), site.list(RequestDirectory.REQUEST), "the provider removed the requests");

        drivesUp();
        awaitDrivesWorkedThrough(sentinel);
        assertEquals(List.of(), site.list(RequestDirectory.IN), "nothing delivered");
        Map<String, Long> counters = daemon.scheduler().status(0).get().counters();
        assertEquals(4L, counters.get("stages_cancelled"), counters.toString());
        assertEquals(1L, counters.get("stages_done"), "only the sentinel was read: " + counters);
        Poll.until("the daemon saw the sentinel taken",
                () -> bridge().requests().values().stream().mapToInt(Integer::intValue).sum() == 0);
        assertEquals(0, bridge().requests().values().stream().mapToInt(Integer::intValue).sum(),
                bridge().requests().toString());
    }

    @Test
    void stageWhoseDeadlinePassesWhileDrivesAreDown_isCancelledByThePoolAndTheDaemonCleansUp() throws Exception {
        TestFile f = TestFile.of(random, 1, 50_000);
        TestFile sentinel = TestFile.of(random, 1, 3000);
        Pool.awaitAll(pool().flush(List.of(f, sentinel)), WAIT_SECONDS);
        drop(f);
        drop(sentinel);
        drivesDown();

        // A second pool on the same provider whose stages time out after 1.5 s, checked every 100 ms as dCache
        // does every 30 s.
        try (PoolEmulator strict = PoolEmulator.builder().hsm(Site.HSM_TYPE, Site.HSM_NAME).dataDirectory(site.pool)
                .stageTimeoutMillis(1500).timeoutCheckMillis(100).build()) {
            strict.attach(pool.provider);
            EmulatedStageRequest s = strict.newStage(f.pnfsId(), f.size(), f.storageClass(), f.path(),
                    Pool.checksums(f));
            strict.stage(List.of(s));
            Poll.until("the daemon holds the stage", () -> bridge().inScheduler() == 1);
            Outcome o = Pool.await(s, WAIT_SECONDS);
            assertTrue(o.isFailed(), o.toString());
            assertTrue(o.exception() instanceof CancellationException || o.exception() instanceof TimeoutException,
                    "ended by the deadline: " + o);
            assertTrue(System.currentTimeMillis() >= s.getDeadline(), "not before its deadline");
            assertEquals(List.of(), strict.violations());
        }
        Poll.until("the daemon let go of the stage", () -> bridge().inScheduler() == 0);
        assertEquals(List.of(), site.list(RequestDirectory.REQUEST));
        drivesUp();
        awaitDrivesWorkedThrough(sentinel);
        assertEquals(List.of(), site.list(RequestDirectory.IN), "nothing delivered after the deadline");
        Map<String, Long> counters = daemon.scheduler().status(0).get().counters();
        assertEquals(1L, counters.get("stages_cancelled"), counters.toString());
        assertEquals(1L, counters.get("stages_done"), "only the sentinel was read: " + counters);
    }

    @Test
    void stageOfAFileNeverFlushed_failsWithRc33NamingIt() throws Exception {
        TestFile never = TestFile.of(random, 2, 777);
        Outcome o = Pool.await(pool().stage(List.of(never)).get(0), WAIT_SECONDS);
        assertTrue(o.isFailed(), o.toString());
        assertEquals(ReturnCodes.NOT_ON_TAPE, o.returnCode(), o.toString());
        assertTrue(o.message().contains(never.pnfsid()), o.message());
        assertEquals(List.of(), site.list(RequestDirectory.REQUEST), "request and error file removed");
        assertFalse(Site.exists(pool.emulator.replicaPath(never.pnfsId())));
    }

    @Test
    void flushWhoseReplicaChangesSizeAfterTheRequest_failsWithRc31() throws Exception {
        TestFile f = TestFile.of(random, 0, 100_000);
        drivesDown(); // hold the flush in the daemon while the replica changes
        EmulatedFlushRequest flush = pool().flush(List.of(f)).get(0);
        Poll.until("the provider linked the replica into out/", () -> Site.exists(site.dir.outLink(f.pnfsid())));
        // The replica grows in place (same inode, so the out/ link sees it too).
        try (FileChannel ch = FileChannel.open(pool.emulator.replicaPath(f.pnfsId()), StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        }
        drivesUp();
        Outcome o = Pool.await(flush, WAIT_SECONDS);
        assertTrue(o.isFailed(), o.toString());
        assertEquals(ReturnCodes.DATA_MISMATCH, o.returnCode(), o.toString());
        assertTrue(o.message().contains("100003"), o.message());
        assertTrue(daemon.catalog().file(f.pnfsid()).isEmpty(), "not in the catalog");
        assertEquals(List.of(), site.list(RequestDirectory.OUT), "the provider removed the link");
        assertEquals(List.of(), site.list(RequestDirectory.REQUEST), "and the request and error file");
    }

    // ---------------------------------------------------------------- helpers

    /**
     * With the drives back, a stage that was cancelled but still queued would be read now. The sentinel's stage
     * makes the drives work; once it is served and the scheduler has nothing left to do, whatever the scheduler
     * still held has been read.
     */
    private void awaitDrivesWorkedThrough(TestFile sentinel) throws Exception {
        Outcome o = Pool.await(pool.stage(List.of(sentinel)).get(0), WAIT_SECONDS);
        assertTrue(o.isCompleted(), "the sentinel's stage: " + o);
        DaemonWaits.schedulerQuiet(daemon);
    }

    private void drop(TestFile f) {
        try {
            pool.dropReplica(f);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private BridgeStatus bridge() throws InterruptedException {
        return DaemonWaits.bridge(daemon);
    }

    private void drivesDown() throws Exception {
        daemon.scheduler().driveDown("drive0", "test").get();
        daemon.scheduler().driveDown("drive1", "test").get();
    }

    private void drivesUp() throws Exception {
        daemon.scheduler().driveUp("drive0").get();
        daemon.scheduler().driveUp("drive1").get();
    }
}
