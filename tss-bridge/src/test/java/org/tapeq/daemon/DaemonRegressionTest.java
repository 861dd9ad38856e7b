package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.ErrorReport;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.ReturnCodes;

/**
 * Scenarios a review found broken, on a daemon that sees changes only through rescans (as on a shared
 * filesystem written from other hosts), which is where most of them bit.
 */
class DaemonRegressionTest {

    @TempDir
    Path tmp;

    DaemonFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new DaemonFixture(tmp, "");
        f.inotify = false;
        f.start();
        f.labelAll();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    /** A refused request file left in place used to kill the periodic rescan (a NullPointerException). */
    @Test
    void refusedRequestLeftInPlace_doesNotStopTheRescans() throws Exception {
        String bad = DaemonFixture.newPnfsId();
        Files.writeString(f.dir.requestFile(bad), "not json");
        assertNotNull(f.awaitStage(bad));
        for (int i = 0; i < 3; i++) {
            f.awaitRescan(); // rescans see the refused file again, and go on
        }

        String good = DaemonFixture.newPnfsId();
        byte[] data = DaemonFixture.randomBytes(1000);
        f.flush(good, data, true);
        assertNull(f.awaitFlush(good), "served by a later rescan");

        Files.delete(f.dir.errorFile(bad)); // the pool collects the refusal and sends a valid request
        f.stage(bad, 5, null, false);
        ErrorReport e = f.awaitStage(bad);
        assertNotNull(e);
        assertEquals(ReturnCodes.NOT_ON_TAPE, e.returnCode(), "the new request was read, not the old refusal");
    }

    /** Without events, a request sent again after its error file was collected used to be swallowed. */
    @Test
    void requestSentAgainAfterAnErrorWasCollected_isServed() throws Exception {
        String id = DaemonFixture.newPnfsId();
        f.stage(id, 100, null, false);
        assertEquals(ReturnCodes.NOT_ON_TAPE, f.awaitStage(id).returnCode());
        f.collect(id); // the provider removes the request and the error file...

        byte[] data = DaemonFixture.randomBytes(100);
        f.flush(id, data, true); // ...and the file is written later
        assertNull(f.awaitFlush(id));
        f.collect(id);
        f.stage(id, data.length, null, true); // ...and asked for again
        assertNull(f.awaitStage(id));
        assertArrayEquals(data, Files.readAllBytes(f.dir.inFile(id)));
    }

    /** An error file older than the request answered an earlier request; it must not answer this one. */
    @Test
    void staleErrorFile_isRemoved_andTheRequestServed() throws Exception {
        byte[] data = DaemonFixture.randomBytes(100);
        String id = f.onTape(data);
        Files.writeString(f.dir.errorFile(id), "31\nleft over from an earlier request");
        Files.setLastModifiedTime(f.dir.errorFile(id), FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        f.stage(id, data.length, null, true);
        DaemonFixture.await("staged", () -> DaemonFixture.exists(f.dir.inFile(id)));
        assertArrayEquals(data, Files.readAllBytes(f.dir.inFile(id)));
        assertNull(f.error(id));
    }

    /**
     * At start the bridge probes each request for an answer it has already (one stat of its request file, then
     * in/ and the error file): every case must come out right.
     */
    @Test
    void filesFoundAtStart_areJudgedAsTheProbesWould() throws Exception {
        byte[] data = DaemonFixture.randomBytes(3000);
        String answered = f.onTape(data);
        String staleError = f.onTape(data);
        String delivered = f.onTape(data);
        String partial = f.onTape(data);
        f.stop();
        long now = System.currentTimeMillis();
        for (String id : new String[] {answered, staleError, delivered, partial}) {
            f.stage(id, data.length, null, true);
            Files.setLastModifiedTime(f.dir.requestFile(id), FileTime.fromMillis(now - 30_000));
        }
        Files.writeString(f.dir.errorFile(answered), "32\nanswered before the restart");
        Files.writeString(f.dir.errorFile(staleError), "31\nleft over from an earlier request");
        Files.setLastModifiedTime(f.dir.errorFile(staleError), FileTime.fromMillis(now - 60_000));
        byte[] alreadyThere = DaemonFixture.randomBytes(data.length); // not the tape's bytes: must be kept
        Files.write(f.dir.inFile(delivered), alreadyThere);
        Files.write(f.dir.inFile(partial), new byte[10]);

        f.start();
        DaemonFixture.await("restaged", () -> DaemonFixture.exists(f.dir.inFile(staleError))
                && sizeOf(f.dir.inFile(partial)) == data.length);

        assertEquals(32, f.error(answered).returnCode(), "the error file answers its request");
        assertNull(f.error(staleError), "an error file older than the request is removed");
        assertArrayEquals(data, Files.readAllBytes(f.dir.inFile(staleError)));
        assertArrayEquals(alreadyThere, Files.readAllBytes(f.dir.inFile(delivered)), "adopted, not staged again");
        assertArrayEquals(data, Files.readAllBytes(f.dir.inFile(partial)), "wrong size: staged again");
        assertEquals(2L, f.daemon.scheduler().status(0).get().counters().get("stages_submitted"));
    }

    private static long sizeOf(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return -1;
        }
    }

    /** A checksum that is not one could not be compared after the read; it is refused at once. */
    @Test
    void malformedAdler32_isRefusedAtIntake() throws Exception {
        String id = DaemonFixture.newPnfsId();
        f.writeRequest(id, Request.stage(10, 1, "atlas:raw", null, 1, "adler32", "xyz",
                new Request.Extension("r", 0, null, null, 0)));
        ErrorReport e = f.awaitStage(id);
        assertNotNull(e);
        assertEquals(ReturnCodes.INVALID_REQUEST, e.returnCode());
        assertTrue(e.message().contains("xyz") || e.message().contains("hex"), e.message());
    }

    /** A delivered file whose request is replaced by a different one gives its buffer space back. */
    @Test
    void replacedDeliveredStage_releasesItsBufferSpace() throws Exception {
        byte[] data = DaemonFixture.randomBytes(5000);
        String id = f.onTape(data);
        f.stage(id, data.length, null, true);
        assertNull(f.awaitStage(id));
        DaemonFixture.await("the status shows the space reserved for the delivered file",
                () -> f.daemon.status().directories().get(0).bufferReserved() == 5000);

        f.stage(id, 4999, null, true); // rewritten with another size: a different request (refused by size: rc 31)
        ErrorReport e = f.awaitStageError(id);
        assertEquals(ReturnCodes.DATA_MISMATCH, e.returnCode(), e.message());
        DaemonFixture.await("space released", () -> f.daemon.status().directories().get(0).bufferReserved() == 0);
    }
}
