package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;

/**
 * Issue 18: a subdirectory of the request directory renamed and replaced by a symbolic link to a directory
 * elsewhere while the daemon runs. Nothing may be read from or written into that other directory; the daemon
 * stops serving the request directory and says why in status.
 */
class SwappedDirectoryTest {

    @TempDir
    Path tmp;

    private DaemonFixture f;
    private Path outside;

    @BeforeEach
    void start() throws Exception {
        f = new DaemonFixture(tmp, "");
        f.start();
        f.labelAll();
        outside = Files.createDirectory(tmp.resolve("outside"));
    }

    @AfterEach
    void stop() {
        f.close();
    }

    private void swapForLink(String sub) throws Exception {
        Files.move(f.endit.resolve(sub), f.endit.resolve(sub + ".real"));
        Files.createSymbolicLink(f.endit.resolve(sub), outside);
    }

    private String stopped() {
        return f.bridge().stopped();
    }

    private List<String> outsideNames() throws Exception {
        try (var s = Files.list(outside)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void inSwappedForALink_thenARecall_nothingIsWrittenOutside_andServiceStops() throws Exception {
        byte[] data = DaemonFixture.randomBytes(50_000);
        String id = f.onTape(data);
        swapForLink("in");

        f.stage(id, data.length, DaemonFixture.adler32(data), true);
        DaemonFixture.await("the stage delivered outside, or the directory no longer served",
                () -> DaemonFixture.exists(outside.resolve(id)) || stopped() != null);

        assertEquals(List.of(), outsideNames(), "nothing written into the directory the link points to");
        String why = stopped();
        assertTrue(why != null && why.contains(f.endit.resolve("in") + " is now a symbolic link to " + outside),
                String.valueOf(why));
        assertFalse(DaemonFixture.exists(f.endit.resolve("in.real").resolve(id)), "not served at all");
    }

    @Test
    void requestSwappedForALink_noRequestIsReadFromThere_andNoErrorFileWritten() throws Exception {
        String id = DaemonFixture.newPnfsId();
        byte[] request = RequestCodec.toBytes(Request.stage(10, 1, "atlas:raw", "/p/" + id, 1L, null, null, null));
        Files.write(outside.resolve(id), request);
        swapForLink("request");

        DaemonFixture.await("an answer outside, or the directory no longer served",
                () -> DaemonFixture.exists(outside.resolve(id + ".err")) || stopped() != null);

        assertEquals(List.of(id), outsideNames(), "no error file written there");
        assertArrayEquals(request, Files.readAllBytes(outside.resolve(id)));
        assertTrue(stopped().contains(f.endit.resolve("request") + " is now a symbolic link"), stopped());
        assertEquals(0, f.freshBridge().reads(), "no request file read since start");
    }

    @Test
    void outSwappedForALink_nothingThereIsFlushed_orRemoved() throws Exception {
        String id = DaemonFixture.newPnfsId();
        byte[] data = DaemonFixture.randomBytes(1000);
        Files.write(outside.resolve(id), data);
        swapForLink("out");

        f.writeRequest(id, Request.flush(data.length, 1, "atlas:raw", "/pnfs/test/atlas/ds1/" + id, "adler32",
                DaemonFixture.adler32(data), new Request.Extension("req-" + id, 0, null, null, 0)));
        DaemonFixture.await("the file outside flushed, or the directory no longer served",
                () -> !DaemonFixture.exists(outside.resolve(id)) || stopped() != null);

        assertTrue(stopped().contains(f.endit.resolve("out") + " is now a symbolic link"), stopped());
        f.awaitSchedulerQuiet();
        assertEquals(List.of(id), outsideNames(), "the file there is neither removed nor answered");
        assertTrue(f.daemon.catalog().file(id).isEmpty(), "and was not written to tape");
    }

    @Test
    void requestReplacedByAnotherDirectory_stopsService_namingIt() throws Exception {
        Files.move(f.endit.resolve("request"), f.endit.resolve("request.old"));
        Files.createDirectory(f.endit.resolve("request"));
        DaemonFixture.await("the directory no longer served", () -> stopped() != null);
        assertTrue(stopped().contains(f.endit.resolve("request") + " is now a different directory"), stopped());
    }

    @Test
    void cleanStop_removesTheLockFile() throws Exception {
        assertTrue(DaemonFixture.exists(f.endit.resolve(".tapeq-daemon.lock")), "held while running");
        f.stop();
        assertFalse(DaemonFixture.exists(f.endit.resolve(".tapeq-daemon.lock")));
    }
}
