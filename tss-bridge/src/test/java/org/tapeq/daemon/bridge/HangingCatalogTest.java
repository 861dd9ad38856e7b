package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.daemon.bridge.BridgeRig.awaitTrue;
import static org.tapeq.daemon.bridge.BridgeRig.status;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
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
import org.tapeq.scheduler.catalog.Catalog;

/**
 * A catalog whose file lookups hang (a server that stopped answering): the bridge never waits for them, so it
 * goes on answering requests that need no catalog while a stage and a flush wait for their lookups; once the
 * catalog answers, those two go on as usual.
 */
class HangingCatalogTest {

    private static final long HOUR = 3_600_000;

    @TempDir
    Path tmp;

    private final CountDownLatch answer = new CountDownLatch(1);
    private final AtomicInteger lookupsHanging = new AtomicInteger();
    private BridgeRig rig;
    private RequestDirectory dir;
    private DirectoryBridge bridge;

    @BeforeEach
    void start() throws Exception {
        rig = new BridgeRig(tmp, this::hangingLookups);
        dir = RequestDirectory.create(tmp.resolve("endit"));
        bridge = rig.bridge("hc", dir, rig.pool(2, 16), HOUR);
        bridge.start().get(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() {
        answer.countDown();
        rig.close();
    }

    @Test
    void lookupsHang_bridgeAnswersOtherRequests_andTheWaitingOnesGoOnAfterwards() throws Exception {
        String stage = "0000" + "AB".repeat(16);
        AtomicFiles.write(dir.requestFile(stage), RequestCodec.toBytes(Request.stage(10, 1, "atlas:raw",
                "/p/" + stage, 1L, null, null, null)));
        awaitTrue("the stage's lookup hangs", () -> lookupsHanging.get() >= 1);

        String flush = "0000" + "CD".repeat(16);
        Path replica = Files.write(tmp.resolve("replica"), new byte[10]);
        AtomicFiles.write(dir.requestFile(flush), RequestCodec.toBytes(Request.flush(10, 1, "atlas:raw",
                "/p/" + flush, null, null, new Request.Extension("req-" + flush, 0, null, null, 0))));
        Files.createLink(dir.outLink(flush), replica);

        // Needs no catalog: answered while both lookups hang.
        String bad = "0000" + "EF".repeat(16);
        Files.writeString(dir.requestFile(bad), "not json");
        awaitTrue("the malformed request answered", () -> Files.exists(dir.errorFile(bad)));
        assertEquals(ReturnCodes.INVALID_REQUEST,
                ErrorReport.parse(ProtocolFiles.readSmallFile(dir.errorFile(bad), 65536)).returnCode());
        awaitTrue("the flush waits for its lookup", () -> status(bridge).requests().get("checking") != null);
        assertTrue(Files.exists(dir.outLink(flush)));

        answer.countDown();
        awaitTrue("the stage answered once the catalog answers", () -> Files.exists(dir.errorFile(stage)));
        assertEquals(ReturnCodes.NOT_ON_TAPE,
                ErrorReport.parse(ProtocolFiles.readSmallFile(dir.errorFile(stage), 65536)).returnCode());
        awaitTrue("the flush's lookup answered", () -> status(bridge).requests().get("checking") == null);
        BridgeStatus after = status(bridge);
        assertEquals(1, after.requests().get("queued"), "the flush queued, not acknowledged or dropped: " + after);
        assertEquals(1, after.inScheduler(), after.toString());
    }

    @Test
    void flushWithdrawnWhileItsLookupHangs_isCountedCancelled() throws Exception {
        String flush = "0000" + "CD".repeat(16);
        Path replica = Files.write(tmp.resolve("replica"), new byte[10]);
        AtomicFiles.write(dir.requestFile(flush), RequestCodec.toBytes(Request.flush(10, 1, "atlas:raw",
                "/p/" + flush, null, null, null)));
        Files.createLink(dir.outLink(flush), replica);
        awaitTrue("the flush waits for its lookup", () -> status(bridge).requests().get("checking") != null);

        Files.delete(dir.requestFile(flush));
        awaitTrue("the withdrawn flush no longer tracked", () -> status(bridge).requests().get("checking") == null);
        String metrics = new String(rig.metrics.scrape());
        assertTrue(metrics.contains(
                "tapeq_requests_completed_total{directory=\"hc\",kind=\"flush\",outcome=\"cancelled\"} 1.0"),
                metrics);
    }

    /** {@code catalog} whose lookups of files by pnfsid wait until {@link #answer} opens. */
    private Catalog hangingLookups(Catalog catalog) {
        return (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(), new Class<?>[] {Catalog.class},
                (proxy, method, args) -> {
                    boolean lookup = method.getName().equals("file")
                            || method.getName().equals("files") && args[0] instanceof Collection;
                    if (lookup && answer.getCount() > 0) {
                        lookupsHanging.incrementAndGet();
                        answer.await();
                    }
                    try {
                        return method.invoke(catalog, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
