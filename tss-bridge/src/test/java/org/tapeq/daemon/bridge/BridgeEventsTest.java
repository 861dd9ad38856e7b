package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.daemon.bridge.BridgeRig.awaitTrue;
import static org.tapeq.daemon.bridge.BridgeRig.status;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.DirectoryWatcher;
import org.tapeq.protocol.ErrorReport;
import org.tapeq.protocol.ProtocolFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.ReturnCodes;

/** The daemon's use of the shared directory watcher, and the rescan counter tests can wait on. */
class BridgeEventsTest {

    private static final long HOUR = 3_600_000;

    @TempDir
    Path tmp;

    private BridgeRig rig;
    private RequestDirectory dir;
    private DirectoryBridge bridge;

    @BeforeEach
    void start() throws Exception {
        rig = new BridgeRig(tmp);
        dir = RequestDirectory.create(tmp.resolve("endit"));
        bridge = rig.bridge("ev", dir, rig.pool(2, 16), HOUR);
        bridge.start().get(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws Exception {
        rig.close();
    }

    @Test
    void requestWrittenAfterStart_isAnsweredThroughEvents_withoutARescan() throws Exception {
        assertEquals(1, status(bridge).rescans(), "the rescan at start");
        String id = "0000" + "AB".repeat(16);
        AtomicFiles.write(dir.requestFile(id), RequestCodec.toBytes(Request.stage(10, 1, "atlas:raw", "/p/" + id,
                1L, null, null, null)));
        awaitTrue("an answer", () -> Files.exists(dir.errorFile(id)));
        assertEquals(ReturnCodes.NOT_ON_TAPE,
                ErrorReport.parse(ProtocolFiles.readSmallFile(dir.errorFile(id), 65536)).returnCode());
        assertEquals(1, status(bridge).rescans(), "found by its event: no rescan ran");
    }

    @Test
    void lostEvents_countAnOverflowAndRescanSoon() throws Exception {
        assertEquals(1, status(bridge).rescans(), "the rescan at start (the status is taken after it ended)");
        String scrape = new String(rig.metrics.scrape());
        assertTrue(scrape.contains("tapeq_watch_overflows_total{directory=\"ev\"} 0.0"), scrape);
        assertTrue(scrape.contains("tapeq_rescan_duration_seconds_count{directory=\"ev\"} 1"), scrape);
        assertTrue(scrape.contains("tapeq_intake_backlog{directory=\"ev\"} 0.0"), scrape);

        bridge.watchListener().lost(DirectoryWatcher.Loss.OVERFLOW, "test");
        awaitTrue("a rescan after lost events", () -> status(bridge).rescans() == 2);
        scrape = new String(rig.metrics.scrape());
        assertTrue(scrape.contains("tapeq_watch_overflows_total{directory=\"ev\"} 1.0"), scrape);
        assertTrue(scrape.contains("tapeq_rescan_duration_seconds_count{directory=\"ev\"} 2"), scrape);
    }
}
