package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.testing.support.Poll;

/**
 * A request file for a pnfsid whose earlier request the daemon has already answered is removed and written again
 * (the pool collected the answer and dCache sent a new request), or rewritten in place (the pool re-sent it). The
 * daemon must serve the new request, whether it saw the removal or not: with inotify it sees every step, while
 * {@link RewrittenRequestRescanOnlyTest} runs the same cases with rescans only, as on a shared filesystem where the
 * pool writes from another host and a removal and re-creation can fall between two rescans.
 */
class RewrittenRequestTest extends SiteTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    final Random random = new Random(99);

    @Test
    void stageRightAfterTheFlushOfTheSameFile_isServed() throws Exception {
        TestFile f = TestFile.of(random, 0, 200_000);
        Outcome flushed = Pool.await(pool.flush(List.of(f)).get(0), 60);
        assertTrue(flushed.isCompleted(), flushed.toString());
        pool.dropReplica(f); // at once: the new stage request replaces the flush's within one rescan period
        Outcome staged = Pool.await(pool.stage(List.of(f)).get(0), 60);
        assertTrue(staged.isCompleted(), staged.toString());
        assertArrayEquals(f.content(), Files.readAllBytes(pool.emulator.replicaPath(f.pnfsId())));
    }

    @Test
    void stageRetriedAfterAnError_isAnsweredAgain() throws Exception {
        TestFile f = TestFile.of(random, 1, 3_000);
        for (int attempt = 1; attempt <= 3; attempt++) {
            Outcome o = Pool.await(pool.stage(List.of(f)).get(0), 60);
            assertEquals(ReturnCodes.NOT_ON_TAPE, o.returnCode(), "attempt " + attempt + ": " + o);
        }
        Outcome flushed = Pool.await(pool.flush(List.of(f)).get(0), 60);
        assertTrue(flushed.isCompleted(), flushed.toString());
        pool.dropReplica(f);
        Outcome staged = Pool.await(pool.stage(List.of(f)).get(0), 60);
        assertTrue(staged.isCompleted(), "the file is on tape now: " + staged);
    }

    @Test
    void parkedEnditFlush_isRetriedWhenItsRequestFileIsRewritten() throws Exception {
        TestFile f = TestFile.of(random, 0, 25_000);
        Path replica = Files.write(site.pool.resolve(f.pnfsid()), f.content());
        writeEnditFlush(f, "00000001");
        Files.createLink(site.dir.outLink(f.pnfsid()), replica);
        Poll.until("the flush with the wrong checksum is parked", WAIT, () -> parked() == 1);

        writeEnditFlush(f, f.adler32()); // the pool re-sends it (e.g. after its restart), now with the right checksum
        Poll.until("the link is removed", WAIT, () -> !Site.exists(site.dir.outLink(f.pnfsid())));
        assertTrue(daemon.catalog().file(f.pnfsid()).isPresent());
        assertEquals(0, parked());
    }

    @Test
    void refusedRequestRewrittenWithAValidOne_isServed() throws Exception {
        TestFile f = TestFile.of(random, 0, 10_000);
        Outcome flushed = Pool.await(pool.flush(List.of(f)).get(0), 60);
        assertTrue(flushed.isCompleted(), flushed.toString());

        Files.writeString(site.dir.requestFile(f.pnfsid()), "{\"file_size\":"); // a truncated request
        Poll.until("the truncated request is refused", WAIT, () -> Site.exists(site.dir.errorFile(f.pnfsid())));
        // The pool removes the error file and writes the request again, this time whole.
        Files.delete(site.dir.errorFile(f.pnfsid()));
        AtomicFiles.write(site.dir.requestFile(f.pnfsid()), RequestCodec.toBytes(Request.stage(f.size(),
                System.currentTimeMillis() / 1000, f.storageClass(), f.path(), 1, "adler32", f.adler32(),
                new Request.Extension("rewritten", 0, null, null, 0))));
        Poll.until("the staged file is delivered", WAIT, () -> Site.exists(site.dir.inFile(f.pnfsid())));
        assertArrayEquals(f.content(), Files.readAllBytes(site.dir.inFile(f.pnfsid())));
        assertTrue(!Site.exists(site.dir.errorFile(f.pnfsid())), "no new error");
        // A normal request afterwards still goes through.
        TestFile g = TestFile.of(random, 1, 1_000);
        assertTrue(Pool.await(pool.flush(List.of(g)).get(0), 60).isCompleted());
    }

    private void writeEnditFlush(TestFile f, String adler32) throws Exception {
        String json = "{\"file_size\":" + f.size() + ",\"time\":" + System.currentTimeMillis() / 1000
                + ",\"storage_class\":\"" + f.storageClass() + "\",\"action\":\"migrate\",\"path\":\"" + f.path()
                + "\",\"checksumType\":\"adler32\",\"checksumValue\":\"" + adler32 + "\"}";
        Path tmpFile = Files.createTempFile(site.dir.requestDir(), f.pnfsid() + ".", ".flush.tmp");
        Files.writeString(tmpFile, json, StandardCharsets.UTF_8);
        Files.move(tmpFile, site.dir.requestFile(f.pnfsid()), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private int parked() throws InterruptedException {
        return DaemonWaits.bridge(daemon).parkedCount();
    }
}
