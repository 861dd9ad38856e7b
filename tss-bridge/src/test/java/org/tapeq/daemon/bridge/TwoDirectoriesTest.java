package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.tapeq.daemon.bridge.BridgeRig.awaitTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.config.DaemonConfig;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestOrigin;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;

/** A daemon serving two request directories: every outcome is answered in the directory its request came from. */
class TwoDirectoriesTest {

    @TempDir
    Path tmp;

    private RequestDirectory a;
    private RequestDirectory b;
    private Path pool;
    private Daemon daemon;

    @BeforeEach
    void start() throws Exception {
        a = RequestDirectory.create(tmp.resolve("a"));
        b = RequestDirectory.create(tmp.resolve("b"));
        pool = Files.createDirectories(tmp.resolve("pool"));
        Path config = tmp.resolve("tapeq.yaml");
        Files.writeString(config, String.join("\n",
                "directories:",
                "  - path: " + a.base(),
                "    name: a",
                "  - path: " + b.base(),
                "    name: b",
                "state: " + tmp.resolve("state"),
                "library:",
                "  simulated:",
                "    speed: 2000",
                "    drives: 2",
                "    cartridges: 2",
                "families:",
                "  - storageClass: \"atlas:.*\"",
                "    family: atlas",
                "scheduler:",
                "  aggregateWait: 1s",
                "  quietTime: 1s",
                "  dwell: 1s",
                "  mergeGap: 0",
                "intake:",
                "  rescanInterval: 60s",
                "http:",
                "  bind: off",
                ""));
        daemon = Daemon.start(DaemonConfig.load(config));
        for (String barcode : ((SimulatedLibrary) daemon.library()).barcodes()) {
            daemon.scheduler().labelCartridge(barcode, "atlas", false).get(30, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void stop() {
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void flushesAndStagesFromTwoDirectories_areAnsweredEachInItsOwn() throws Exception {
        String x = newPnfsId();
        String y = newPnfsId();
        byte[] dataX = randomBytes(40_000);
        byte[] dataY = randomBytes(50_000);
        flush(a, x, dataX);
        flush(b, y, dataY);
        awaitTrue("both links removed", () -> !exists(a.outLink(x)) && !exists(b.outLink(y)));
        assertFalse(exists(a.errorFile(x)) || exists(b.errorFile(y)), "no error file");
        collect(a, x);
        collect(b, y);

        // The same file asked for by both directories, and one only by the second: each gets its own copy.
        stage(a, x, dataX.length);
        stage(b, x, dataX.length);
        stage(b, y, dataY.length);
        awaitTrue("three files delivered",
                () -> exists(a.inFile(x)) && exists(b.inFile(x)) && exists(b.inFile(y)));
        assertArrayEquals(dataX, Files.readAllBytes(a.inFile(x)));
        assertArrayEquals(dataX, Files.readAllBytes(b.inFile(x)));
        assertArrayEquals(dataY, Files.readAllBytes(b.inFile(y)));
        assertFalse(exists(a.inFile(y)), "nothing delivered into a directory that did not ask");
        for (RequestDirectory d : List.of(a, b)) {
            for (String id : List.of(x, y)) {
                assertFalse(exists(d.errorFile(id)), "no error file for " + id + " in " + d.base());
            }
        }
        // A file shows in in/ as soon as its batch is renamed; the bridge counts it delivered once told so.
        awaitTrue("the bridges count the files delivered", () -> daemon.status().directories().stream()
                .mapToInt(s -> s.requests().getOrDefault("delivered", 0)).sum() == 3);
        List<BridgeStatus> statuses = daemon.status().directories();
        assertEquals(1, statuses.get(0).requests().getOrDefault("delivered", 0), "a: x delivered");
        assertEquals(2, statuses.get(1).requests().getOrDefault("delivered", 0), "b: x and y delivered");
    }

    @Test
    void outcomeOfARequestWithNoDirectory_isDroppedNotMisrouted() {
        StageRequest stray = new StageRequest(1, newPnfsId(), 10, "atlas:raw", null, "atlas", null, 0, 0, null);
        assertEquals(RequestOrigin.NONE, stray.origin());
        DirectoryBridge.LISTENER.completed(stray, new Outcome.Failed(FaultKind.values()[0], 1, "test", 1));
        assertTrue(DirectoryBridge.STAGE_SPACE.tryReserve(List.of(new org.tapeq.scheduler.model.StageSpace.Claim(
                stray, 1L << 50))), "a file from no directory needs no room in any");
    }

    private void flush(RequestDirectory d, String pnfsid, byte[] content) throws IOException {
        Path replica = pool.resolve(d.base().getFileName() + "-" + pnfsid);
        Files.write(replica, content);
        AtomicFiles.write(d.requestFile(pnfsid), RequestCodec.toBytes(Request.flush(content.length,
                System.currentTimeMillis() / 1000, "atlas:raw", "/pnfs/test/" + pnfsid, null, null, null)));
        Files.createLink(d.outLink(pnfsid), replica);
    }

    private static void stage(RequestDirectory d, String pnfsid, long size) throws IOException {
        AtomicFiles.write(d.requestFile(pnfsid), RequestCodec.toBytes(Request.stage(size,
                System.currentTimeMillis() / 1000, "atlas:raw", "/pnfs/test/" + pnfsid, 1L, null, null, null)));
    }

    private static void collect(RequestDirectory d, String pnfsid) throws IOException {
        Files.deleteIfExists(d.requestFile(pnfsid));
    }

    private static boolean exists(Path p) {
        return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
    }

    private static String newPnfsId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return String.format(Locale.ROOT, "0000%016X%016X", r.nextLong(), r.nextLong());
    }

    private static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }
}
