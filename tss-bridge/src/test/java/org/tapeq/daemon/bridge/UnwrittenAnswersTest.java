package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.daemon.bridge.BridgeRig.awaitTrue;
import static org.tapeq.daemon.bridge.BridgeRig.status;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * Error files that cannot be written (the filesystem of request/ full): the request stays waiting, counted, and
 * is answered once writing works again, or forgotten if the pool withdraws it. A stage of a file the catalog does
 * not know fails with rc 33, so each request here needs an error file.
 */
class UnwrittenAnswersTest {

    private static final long HOUR = 3_600_000;

    @TempDir
    Path tmp;

    private final AtomicBoolean full = new AtomicBoolean(true);
    private final AtomicInteger attempts = new AtomicInteger();
    private BridgeRig rig;
    private RequestDirectory dir;
    private DirectoryBridge bridge;

    @BeforeEach
    void start() throws Exception {
        rig = new BridgeRig(tmp);
        dir = RequestDirectory.create(tmp.resolve("endit"));
        bridge = rig.bridge("uw", dir, rig.pool(2, 16), HOUR, (file, content) -> {
            attempts.incrementAndGet();
            if (full.get()) {
                throw new FileSystemException(file.toString(), null, "No space left on device");
            }
            AtomicFiles.write(file, content);
        });
        bridge.start().get(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() {
        rig.close();
    }

    @Test
    void errorFileNotWritable_staysPendingAndIsAnsweredOnceWritingWorks() throws Exception {
        String id = stage("AB");
        awaitTrue("a second attempt to write the error file", () -> attempts.get() >= 2);
        assertFalse(Files.exists(dir.errorFile(id)));
        assertEquals(1, status(bridge).requests().get("unwritten"), status(bridge).toString());
        assertTrue(scrape().contains("tapeq_answers_unwritten{directory=\"uw\"} 1.0"), scrape());

        full.set(false);
        awaitTrue("the error file", () -> Files.exists(dir.errorFile(id)));
        assertEquals(ReturnCodes.NOT_ON_TAPE,
                ErrorReport.parse(ProtocolFiles.readSmallFile(dir.errorFile(id), 65536)).returnCode());
        awaitTrue("the request counted as answered", () -> status(bridge).requests().get("unwritten") == null);
        assertEquals(1, status(bridge).requests().get("answered"));
        assertTrue(scrape().contains("tapeq_answers_unwritten{directory=\"uw\"} 0.0"), scrape());
        assertTrue(scrape().contains("tapeq_requests_completed_total{directory=\"uw\",kind=\"stage\",outcome=\"failed\"} 1.0"),
                scrape());
    }

    @Test
    void errorFileNotWritable_requestWithdrawn_isForgottenAndCountedCancelled() throws Exception {
        String id = stage("CD");
        awaitTrue("the first attempt to write the error file", () -> attempts.get() >= 1);
        awaitTrue("the request counted as unwritten", () -> status(bridge).requests().get("unwritten") != null);

        Files.delete(dir.requestFile(id)); // the pool gives up on it
        awaitTrue("the withdrawn request forgotten", () -> status(bridge).requests().get("unwritten") == null);
        assertTrue(scrape().contains("tapeq_answers_unwritten{directory=\"uw\"} 0.0"), scrape());
        assertTrue(scrape().contains(
                "tapeq_requests_completed_total{directory=\"uw\",kind=\"stage\",outcome=\"cancelled\"} 1.0"), scrape());
        full.set(false);
        String sentinel = stage("EF");
        awaitTrue("the sentinel's error file", () -> Files.exists(dir.errorFile(sentinel)));
        assertFalse(Files.exists(dir.errorFile(id)));
        assertNull(status(bridge).requests().get("unwritten"));
    }

    /**
     * request/ replaced while an error file waits to be written: the bridge stops serving the directory, and the
     * answer is forgotten rather than written where the path now points.
     */
    @Test
    void errorFileNotWritable_directoryReplacedMeanwhile_nothingWrittenThere() throws Exception {
        String id = stage("DE");
        awaitTrue("a second attempt to write the error file", () -> attempts.get() >= 2);
        Path outside = Files.createDirectory(tmp.resolve("outside"));
        Path request = dir.base().resolve("request");
        Files.move(request, dir.base().resolve("request.real"));
        Files.createSymbolicLink(request, outside);
        awaitTrue("the bridge stops serving the directory", () -> status(bridge).stopped() != null);
        full.set(false);
        awaitTrue("the unwritten answer given up", () -> scrape().contains("tapeq_answers_unwritten{directory=\"uw\"} 0.0"));
        assertFalse(Files.exists(outside.resolve(id + ".err")), "an error file written where request/ now points");
    }

    private String stage(String hex) throws IOException {
        String id = "0000" + hex.repeat(16);
        AtomicFiles.write(dir.requestFile(id), RequestCodec.toBytes(Request.stage(10, 1, "atlas:raw", "/p/" + id,
                1L, null, null, null)));
        return id;
    }

    private String scrape() {
        return new String(rig.metrics.scrape());
    }
}
