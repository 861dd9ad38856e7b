package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.bridge.BridgeStatus;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.testing.support.Poll;

/**
 * tapeq's daemon serving the unmodified ENDIT provider. The requests here are written byte for byte the way that
 * provider writes them (docs/protocol.md, the ENDIT reference): no {@code "tapeq"} extension; a flush request
 * written under a temporary name and renamed, then the hard link; a stage request with {@code parent_pid}, written
 * in place (open, truncate, write) as ENDIT's stage task does, so the daemon may see it empty for a moment.
 * Completion is observed the ENDIT way: a flush by the disappearance of its link, a stage by {@code in/<pnfsid>}
 * reaching its full size, a failed stage by {@code request/<pnfsid>.err}.
 */
class EnditProviderCompatibilityTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    Site site;
    Daemon daemon;
    /** A second connection to the daemon's SQLite catalog: what another reader sees once a commit is durable. */
    JdbcCatalog reader;
    final Random random = new Random(7);

    @BeforeEach
    void start() throws Exception {
        site = new Site(tmp);
        daemon = site.startDaemon();
        Site.label(daemon);
        reader = JdbcCatalog.open(site.catalogUrl());
    }

    @AfterEach
    void stop() {
        if (reader != null) {
            reader.close();
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void enditFlush_isAcknowledgedByLinkRemovalOnlyOnceTheCatalogHasIt() throws Exception {
        List<TestFile> files = TestFile.generate(random, 6, 3, 100, 1_500_000);
        Map<String, Boolean> withChecksum = new HashMap<>();
        for (int i = 0; i < files.size(); i++) {
            TestFile f = files.get(i);
            boolean checksum = i % 3 != 0; // every third one as dCache without a checksum: "" and ""
            withChecksum.put(f.pnfsid(), checksum);
            enditFlush(f, checksum ? "adler32" : "", checksum ? f.adler32() : "");
        }

        // Watch the links as ENDIT's provider does; the moment one is gone, the catalog must already know it.
        List<TestFile> waiting = new ArrayList<>(files);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!waiting.isEmpty()) {
            for (TestFile f : List.copyOf(waiting)) {
                if (Site.exists(site.dir.outLink(f.pnfsid()))) {
                    continue;
                }
                FileRecord r = reader.file(f.pnfsid()).orElse(null);
                assertNotNull(r, f + ": link removed before the catalog commit");
                assertEquals(f.size(), r.size(), f.toString());
                assertEquals("adler32:" + f.adler32(), r.checksum(),
                        f + (withChecksum.get(f.pnfsid()) ? "" : " (no checksum in the request: tapeq's own)"));
                assertFalse(Site.exists(site.dir.errorFile(f.pnfsid())), "never an error file for an ENDIT flush");
                Files.delete(site.dir.requestFile(f.pnfsid())); // the ENDIT provider completes the flush
                waiting.remove(f);
            }
            assertTrue(System.nanoTime() < deadline, "flushes not acknowledged: " + waiting);
            Thread.sleep(1);
        }
        assertEquals(List.of(), site.list(RequestDirectory.OUT));
        assertEquals(List.of(), site.list(RequestDirectory.REQUEST), "no error or leftover files");
        Poll.until("the daemon forgot the answered requests", () -> trackedRequests() == 0);
    }

    @Test
    void enditStage_deliversTheFullFileInPlaceWithoutAChecksumFile() throws Exception {
        List<TestFile> files = TestFile.generate(random, 3, 2, 10_000, 800_000);
        flushAndCollect(files);

        TestFile late = files.get(2);
        // ENDIT's stage task writes in place: the file exists, empty, before its content arrives. The content is
        // written once the daemon has read the empty file (the only request file there) and still waits on it.
        long reads = bridge().reads();
        Files.write(site.dir.requestFile(late.pnfsid()), new byte[0]);
        Poll.until("the daemon read the empty request and reads it again", WAIT,
                () -> {
                    BridgeStatus s = bridge();
                    return s.reads() > reads && s.intakeBacklog() > 0;
                });
        Files.write(site.dir.requestFile(late.pnfsid()), enditStageJson(late));
        for (TestFile f : files.subList(0, 2)) {
            enditStageRequest(f);
        }

        for (TestFile f : files) {
            Path in = site.dir.inFile(f.pnfsid());
            Poll.until(f + " complete in in/", WAIT, () -> Files.isRegularFile(in) && Files.size(in) == f.size());
            assertFalse(Site.exists(site.dir.errorFile(f.pnfsid())), f.toString());
            assertFalse(Site.exists(site.dir.checksumFile(f.pnfsid())), "no checksum file for the ENDIT provider");
            // What the ENDIT provider does next: remove the request, wait its grace period, move the file in.
            Files.delete(site.dir.requestFile(f.pnfsid()));
            Path replica = site.pool.resolve(f.pnfsid());
            Files.move(in, replica, StandardCopyOption.ATOMIC_MOVE);
            assertArrayEquals(f.content(), Files.readAllBytes(replica), f.toString());
        }
        assertEquals(List.of(), site.list(RequestDirectory.IN), "no temporary or checksum file left");
        Poll.until("the daemon saw every file taken", () -> trackedRequests() == 0 && bridge().bufferReserved() == 0);
        assertEquals(3L, daemon.scheduler().status(0).get().counters().get("stages_done"));
        assertEquals(0L, bridge().rejected(), "the momentarily empty request was not refused");
    }

    @Test
    void failedEnditFlush_isParkedWithItsReasonInStatus_andNoErrorFileIsWritten() throws Exception {
        TestFile badChecksum = TestFile.of(random, 0, 30_000);
        TestFile badSize = TestFile.of(random, 1, 40_000);
        enditFlush(badChecksum, "adler32", "0badc0de");
        Files.write(site.pool.resolve(badSize.pnfsid()), new byte[1]); // the replica is rewritten in place
        enditFlushRequestOnly(badSize, badSize.size(), "adler32", badSize.adler32());
        Files.createLink(site.dir.outLink(badSize.pnfsid()), site.pool.resolve(badSize.pnfsid()));

        Poll.until("both flushes parked", WAIT, () -> bridge().parkedCount() == 2);
        Map<String, String> reasons = new HashMap<>();
        for (BridgeStatus.Parked p : bridge().parked()) {
            reasons.put(p.pnfsid(), p.reason());
        }
        assertTrue(reasons.get(badChecksum.pnfsid()).contains("0badc0de"), reasons.toString());
        assertTrue(reasons.get(badSize.pnfsid()).contains("1 bytes")
                && reasons.get(badSize.pnfsid()).contains(Long.toString(badSize.size())), reasons.toString());
        assertTrue(reasons.get(badChecksum.pnfsid()).startsWith("rc 31"), reasons.toString());
        DaemonWaits.rescan(daemon); // a rescan later: still no error file, the links stay
        for (TestFile f : List.of(badChecksum, badSize)) {
            assertFalse(Site.exists(site.dir.errorFile(f.pnfsid())), "ENDIT's provider reads no error file for flushes");
            assertTrue(Site.exists(site.dir.outLink(f.pnfsid())), "the link stays: the flush must not look done");
            assertTrue(reader.file(f.pnfsid()).isEmpty());
        }

        // The ENDIT provider gives up (dCache cancels): it removes the link and the request.
        for (TestFile f : List.of(badChecksum, badSize)) {
            Files.delete(site.dir.outLink(f.pnfsid()));
            Files.delete(site.dir.requestFile(f.pnfsid()));
        }
        Poll.until("nothing parked any more", () -> bridge().parkedCount() == 0 && trackedRequests() == 0);
    }

    @Test
    void enditStageErrors_areErrFilesWhoseFirstLineIsTheReturnCode() throws Exception {
        TestFile flushed = TestFile.of(random, 0, 5_000);
        flushAndCollect(List.of(flushed));
        TestFile unknown = TestFile.of(random, 0, 1234);
        TestFile wrongSize = new TestFile(flushed.pnfsid(), flushed.storageClass(), flushed.path(),
                flushed.size() + 1, flushed.seed());
        enditStageRequest(unknown);
        enditStageRequest(wrongSize);

        Map<TestFile, Integer> expected = Map.of(unknown, ReturnCodes.NOT_ON_TAPE,
                wrongSize, ReturnCodes.DATA_MISMATCH);
        for (Map.Entry<TestFile, Integer> e : expected.entrySet()) {
            TestFile f = e.getKey();
            Path err = site.dir.errorFile(f.pnfsid());
            Poll.until("an error file for " + f, WAIT, () -> Site.exists(err));
            List<String> lines = Files.readAllLines(err, StandardCharsets.UTF_8); // as ENDIT's provider reads it
            assertEquals(Integer.toString(e.getValue()), lines.get(0), "first line: the return code");
            String message = String.join("\n", lines.subList(1, lines.size()));
            assertTrue(message.contains(f.pnfsid()), message);
            assertFalse(Site.exists(site.dir.inFile(f.pnfsid())), "nothing delivered");
            // ENDIT's provider: remove in/, the error file and the request.
            Files.delete(err);
            Files.delete(site.dir.requestFile(f.pnfsid()));
        }
        Poll.until("the daemon forgot the answered requests", () -> trackedRequests() == 0);
        assertEquals(List.of(), site.list(RequestDirectory.REQUEST));
    }

    // ---------------------------------------------------------------- the ENDIT provider's files

    /** A flush: replica in the pool, request under a temporary name then renamed, then the hard link. */
    private void enditFlush(TestFile f, String checksumType, String checksumValue) throws IOException {
        Path replica = Files.write(site.pool.resolve(f.pnfsid()), f.content());
        enditFlushRequestOnly(f, f.size(), checksumType, checksumValue);
        Files.createLink(site.dir.outLink(f.pnfsid()), replica);
    }

    private void enditFlushRequestOnly(TestFile f, long size, String checksumType, String checksumValue)
            throws IOException {
        String json = "{\"file_size\":" + size + ",\"time\":" + now() + ",\"storage_class\":\"" + f.storageClass()
                + "\",\"action\":\"migrate\",\"path\":\"" + f.path() + "\",\"checksumType\":\"" + checksumType
                + "\",\"checksumValue\":\"" + checksumValue + "\"}";
        // ENDIT's temporary name: <pnfsid>.<random>.flush.tmp (not a pnfsid, so no daemon takes it as a request).
        Path tmp = Files.createTempFile(site.dir.requestDir(), f.pnfsid() + ".", ".flush.tmp");
        Files.writeString(tmp, json, StandardCharsets.UTF_8);
        Files.move(tmp, site.dir.requestFile(f.pnfsid()), StandardCopyOption.ATOMIC_MOVE);
    }

    private static byte[] enditStageJson(TestFile f) {
        return ("{\"file_size\":" + f.size() + ",\"parent_pid\":" + ProcessHandle.current().pid() + ",\"time\":" + now()
                + ",\"storage_class\":\"" + f.storageClass() + "\",\"action\":\"recall\",\"path\":\"" + f.path()
                + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    /** A stage request, written in place as ENDIT's stage task writes it. */
    private void enditStageRequest(TestFile f) throws IOException {
        Files.write(site.dir.requestFile(f.pnfsid()), enditStageJson(f));
    }

    /** Flushes the ENDIT way and completes them as the ENDIT provider would; the replicas are dropped. */
    private void flushAndCollect(List<TestFile> files) throws Exception {
        for (TestFile f : files) {
            enditFlush(f, "adler32", f.adler32());
        }
        for (TestFile f : files) {
            Poll.until(f + " flushed", WAIT, () -> !Site.exists(site.dir.outLink(f.pnfsid())));
            Files.delete(site.dir.requestFile(f.pnfsid()));
            Files.delete(site.pool.resolve(f.pnfsid()));
        }
        Poll.until("the daemon forgot the flushes", () -> trackedRequests() == 0);
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    private BridgeStatus bridge() throws InterruptedException {
        return DaemonWaits.bridge(daemon);
    }

    private int trackedRequests() throws InterruptedException {
        return bridge().requests().values().stream().mapToInt(Integer::intValue).sum();
    }
}
