package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.bridge.BridgeStatus;
import org.tapeq.daemon.control.ControlProtocol;
import org.tapeq.protocol.ErrorReport;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.ReturnCodes;

/** The daemon serving one request directory, driven the way both providers write requests. */
class DaemonTest {

    @TempDir
    Path tmp;

    DaemonFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new DaemonFixture(tmp, "");
        f.start();
        f.labelAll();
    }

    @AfterEach
    void stop() {
        f.close();
    }

    @Test
    void enditStyleFlushThenStage_roundTripsTheBytesWithoutAChecksumFile() throws Exception {
        String id = DaemonFixture.newPnfsId();
        byte[] data = DaemonFixture.randomBytes(300_000);
        f.flush(id, data, false);
        AtomicBoolean inCatalogWhenLinkWent = new AtomicBoolean();
        DaemonFixture.await("the link is removed", () -> {
            if (DaemonFixture.exists(f.dir.outLink(id))) {
                return false;
            }
            inCatalogWhenLinkWent.set(f.daemon.catalog().file(id).isPresent());
            return true;
        });
        assertTrue(inCatalogWhenLinkWent.get(), "acknowledged only once in the catalog");
        assertNull(f.error(id), "no error file");
        f.collect(id);
        Files.delete(f.pool.resolve(id));

        f.stage(id, data.length, null, false);
        assertNull(f.awaitStage(id));
        assertArrayEquals(data, Files.readAllBytes(f.dir.inFile(id)));
        assertFalse(DaemonFixture.exists(f.dir.checksumFile(id)), "the ENDIT provider gets no checksum file");
    }

    @Test
    void tapeqStage_writesTheChecksumFileBeforeTheData() throws Exception {
        byte[] data = DaemonFixture.randomBytes(70_000);
        String id = f.onTape(data);

        f.stage(id, data.length, DaemonFixture.adler32(data), true);
        assertNull(f.awaitStage(id));
        assertEquals("adler32:" + DaemonFixture.adler32(data) + "\n",
                Files.readString(f.dir.checksumFile(id), StandardCharsets.UTF_8));
        assertArrayEquals(data, Files.readAllBytes(f.dir.inFile(id)));
        assertEquals(List.of(), temporaries(), "no temporary file left in in/");
    }

    @Test
    void stageOfAFileNotOnTape_isAnsweredWithRc33() throws Exception {
        String id = DaemonFixture.newPnfsId();
        f.stage(id, 10, null, false);
        ErrorReport e = f.awaitStage(id);
        assertNotNull(e);
        assertEquals(ReturnCodes.NOT_ON_TAPE, e.returnCode());
        assertTrue(e.message().contains(id), e.message());
    }

    @Test
    void hostileRequestFiles_areAnsweredWithErrorsNamingFileAndReason() throws Exception {
        String garbage = DaemonFixture.newPnfsId();
        Files.writeString(f.dir.requestFile(garbage), "{\"file_size\": 12, \"action\": \"recall\"");
        String unknownAction = DaemonFixture.newPnfsId();
        Files.writeString(f.dir.requestFile(unknownAction), "{\"file_size\":1,\"time\":1,\"action\":\"format\"}");
        String symlink = DaemonFixture.newPnfsId();
        Path target = Files.writeString(tmp.resolve("elsewhere"), "{\"file_size\":1,\"time\":1,\"action\":\"recall\"}");
        Files.createSymbolicLink(f.dir.requestFile(symlink), target);
        String huge = DaemonFixture.newPnfsId();
        Files.write(f.dir.requestFile(huge), new byte[70_000]);
        String negative = DaemonFixture.newPnfsId();
        Files.writeString(f.dir.requestFile(negative), "{\"file_size\":-5,\"time\":1,\"action\":\"recall\"}");

        for (String id : List.of(garbage, unknownAction, symlink, huge, negative)) {
            ErrorReport e = f.awaitStage(id);
            assertNotNull(e, id);
            assertEquals(ReturnCodes.INVALID_REQUEST, e.returnCode(), e.message());
            assertTrue(e.message().contains(id), "names the file: " + e.message());
        }
        assertTrue(f.error(symlink).message().contains("symbolic link"));
        assertTrue(f.error(huge).message().contains("70000"));
        // Names that are not pnfsids are never requests.
        Files.writeString(f.dir.requestDir().resolve("not-a-pnfsid"), "{}");
        f.awaitRescan();
        assertFalse(DaemonFixture.exists(f.dir.requestDir().resolve("not-a-pnfsid.err")));
        assertEquals(5, f.daemon.status().directories().get(0).rejected());
    }

    @Test
    void flushWhoseLinkHasTheWrongSize_tapeqGetsRc31_enditIsParkedWithTheReason() throws Exception {
        String tapeq = DaemonFixture.newPnfsId();
        f.flush(tapeq, DaemonFixture.randomBytes(1000), true);
        Files.write(f.pool.resolve(tapeq), DaemonFixture.randomBytes(999)); // the replica changed under the link
        String endit = DaemonFixture.newPnfsId();
        f.flush(endit, DaemonFixture.randomBytes(1000), false);
        Files.write(f.pool.resolve(endit), DaemonFixture.randomBytes(10));

        ErrorReport e = f.awaitFlush(tapeq);
        assertNotNull(e);
        assertEquals(ReturnCodes.DATA_MISMATCH, e.returnCode());
        assertTrue(e.message().contains("999"), e.message());
        assertTrue(DaemonFixture.exists(f.dir.outLink(tapeq)), "the link stays with an error file");

        DaemonFixture.await("the ENDIT flush is parked", () -> {
            BridgeStatus s = f.daemon.status().directories().get(0);
            return s.parkedCount() == 1 && s.parked().get(0).pnfsid().equals(endit);
        });
        String reason = f.daemon.status().directories().get(0).parked().get(0).reason();
        assertTrue(reason.contains("10 bytes"), reason);
        assertFalse(DaemonFixture.exists(f.dir.errorFile(endit)), "no error file for the ENDIT provider");
        assertTrue(DaemonFixture.exists(f.dir.outLink(endit)));
    }

    @Test
    void flushThroughASymbolicLink_isRefused() throws Exception {
        String id = DaemonFixture.newPnfsId();
        Path replica = Files.write(f.pool.resolve(id), DaemonFixture.randomBytes(100));
        f.writeRequest(id, org.tapeq.protocol.Request.flush(100, 1, "atlas:raw", null, null, null,
                new org.tapeq.protocol.Request.Extension("x", 0, null, null, 0)));
        Files.createSymbolicLink(f.dir.outLink(id), replica);
        ErrorReport e = f.awaitFlush(id);
        assertNotNull(e);
        assertEquals(ReturnCodes.INVALID_REQUEST, e.returnCode());
        assertTrue(e.message().contains("symbolic link"), e.message());
    }

    @Test
    void removedRequestFile_cancelsTheStage_andNothingIsDelivered() throws Exception {
        byte[] data = DaemonFixture.randomBytes(5000);
        String id = f.onTape(data);
        byte[] other = DaemonFixture.randomBytes(3000);
        String sentinel = f.onTape(other);

        f.drivesDown();
        f.stage(id, data.length, null, true);
        DaemonFixture.await("the stage is queued", () -> f.daemon.status().directories().get(0).inScheduler() == 1);
        // handed over is not yet queued: the scheduler looks the file up in the catalog first, and a stage cancelled
        // before that is never counted by it (a loaded machine showed stages_cancelled 0 here)
        DaemonFixture.await("the scheduler queued the stage",
                () -> f.schedulerStatus().counters().get("stages_submitted") == 1L);
        Files.delete(f.dir.requestFile(id));
        DaemonFixture.await("the stage is cancelled", () -> f.daemon.status().directories().get(0).inScheduler() == 0);
        f.drivesUp();
        // Drives back: a cancelled read still queued would run now. Another stage makes the drives work, and once
        // the scheduler has nothing left to do, whatever it still held has been read.
        f.stage(sentinel, other.length, null, true);
        assertNull(f.awaitStage(sentinel));
        f.awaitSchedulerQuiet();
        assertFalse(DaemonFixture.exists(f.dir.inFile(id)));
        assertEquals(List.of(), temporaries());
        Map<String, Long> counters = f.schedulerStatus().counters();
        assertEquals(1L, counters.get("stages_cancelled"), counters.toString());
        assertEquals(1L, counters.get("stages_done"), "only the other stage was read: " + counters);
    }

    @Test
    void trashEntries_becomeCatalogDeletes_andAreCleared() throws Exception {
        String id = f.onTape(DaemonFixture.randomBytes(100));
        assertTrue(f.daemon.catalog().file(id).isPresent());
        Files.writeString(f.dir.trashFile(id), "osm://test?bfid=" + id);
        DaemonFixture.await("the trash entry is cleared", () -> !DaemonFixture.exists(f.dir.trashFile(id)));
        assertTrue(f.daemon.catalog().file(id).isEmpty());
    }

    @Test
    void rewrittenRequest_isTheSameRequest() throws Exception {
        f.stop();
        f.rescanInterval = "1h"; // events only: every read below is one of a file this test wrote
        f.start();
        byte[] data = DaemonFixture.randomBytes(2000);
        String id = f.onTape(data);
        f.drivesDown();
        f.stage(id, data.length, null, true);
        DaemonFixture.await("queued", () -> f.daemon.status().directories().get(0).inScheduler() == 1);
        for (int resent = 1; resent <= 2; resent++) {
            long reads = f.bridge().reads();
            f.stage(id, data.length, null, true); // dCache re-sends after a pool restart
            f.awaitReads(reads, 1); // one at a time: two quick rewrites may raise one event
        }
        f.daemon.scheduler().driveUp("drive0").get();
        assertNull(f.awaitStage(id));
        assertEquals(1L, f.daemon.scheduler().status(0).get().counters().get("stages_submitted"));
    }

    @Test
    void restart_picksUpQueuedRequestsAndRemovesPartialFiles() throws Exception {
        byte[] data = DaemonFixture.randomBytes(4000);
        String id = f.onTape(data);
        f.drivesDown();
        f.stage(id, data.length, null, true);
        DaemonFixture.await("queued", () -> f.daemon.status().directories().get(0).inScheduler() == 1);
        f.stop();
        Path partial = f.dir.inDir().resolve("." + id + ".1f00.tapeq.tmp");
        Files.write(partial, new byte[10]);

        String lone = DaemonFixture.newPnfsId(); // a crash between a batch's two renames: no data file
        Path loneChecksum = f.dir.inDir().resolve(RequestDirectory.checksumFileName(lone));
        Files.writeString(loneChecksum, "adler32:00000001\n");
        String whole = DaemonFixture.newPnfsId();
        Files.write(f.dir.inFile(whole), new byte[10]);
        Path wholeChecksum = f.dir.inDir().resolve(RequestDirectory.checksumFileName(whole));
        Files.writeString(wholeChecksum, "adler32:00000001\n");

        f.start(); // an administrator took the drives down: they stay down across the restart
        DaemonFixture.await("partial removed", () -> !DaemonFixture.exists(partial));
        DaemonFixture.await("lone checksum file removed", () -> !DaemonFixture.exists(loneChecksum));
        assertTrue(Files.exists(wholeChecksum), "a checksum file next to its data file was removed");
        f.drivesUp();
        assertNull(f.awaitStage(id));
        assertArrayEquals(data, Files.readAllBytes(f.dir.inFile(id)));
    }

    @Test
    void httpAndControlSocket_serveMetricsStatusAndAdminCommands() throws Exception {
        String id = DaemonFixture.newPnfsId();
        f.flush(id, DaemonFixture.randomBytes(100), true);
        assertNull(f.awaitFlush(id));

        HttpClient http = HttpClient.newHttpClient();
        URI base = URI.create("http://127.0.0.1:" + f.daemon.httpAddress().getPort());
        String metrics = http.send(HttpRequest.newBuilder(base.resolve("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(metrics.contains("tapeq_requests_completed_total{directory=\"test\",kind=\"flush\",outcome=\"flushed\"} 1"),
                metrics);
        assertTrue(metrics.contains("tapeq_scheduler_events_total{event=\"mounts\"}"), metrics);
        assertTrue(metrics.contains("tapeq_loop_latency_seconds"), metrics);
        assertTrue(metrics.contains("tapeq_catalog_task_duration_seconds_count{kind=\"commit\"} 1"), metrics);
        assertTrue(metrics.contains("tapeq_requests_blocked{reason=\"no_drive\"} 0.0"), metrics);
        assertTrue(metrics.contains("tapeq_requests_blocked{reason=\"no_cartridge\"} 0.0"), metrics);
        assertTrue(metrics.contains("tapeq_requests_blocked_seconds{reason=\"no_drive\"} 0.0"), metrics);
        assertTrue(metrics.contains("tapeq_answers_unwritten{directory=\"test\"} 0.0"), metrics);
        HttpResponse<String> status = http.send(HttpRequest.newBuilder(base.resolve("/status")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, status.statusCode());
        assertTrue(status.body().contains("\"directories\""));
        assertEquals(405, http.send(HttpRequest.newBuilder(base.resolve("/status"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(base.resolve("/status?offset=3&limit=0")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("\"offset\" : 3") && page.body().contains("\"limit\" : 0"), page.body());
        assertTrue(page.body().contains("\"queues\" : [ ]"), page.body());
        HttpResponse<String> tooMany = http.send(HttpRequest.newBuilder(base.resolve("/status?limit=5000")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, tooMany.statusCode());
        assertTrue(tooMany.body().contains("status limit must be 0..1000, not 5000"), tooMany.body());

        Path socket = tmp.resolve("state").resolve(Daemon.CONTROL_SOCKET);
        ControlProtocol.call(socket, "drive-down", List.of("drive1", "cleaning"));
        String drives = ControlProtocol.call(socket, "status", List.of()).path("scheduler").path("drives").toString();
        assertTrue(drives.contains("cleaning"), drives);
        ControlProtocol.call(socket, "drive-up", List.of("drive1"));
        assertEquals(4, ControlProtocol.call(socket, "cartridge-list", List.of()).size());
        Exception unknown = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> ControlProtocol.call(socket, "drive-down", List.of("drive9", "x")));
        assertTrue(unknown.getMessage().contains("drive9"), unknown.getMessage());
    }

    private List<String> temporaries() throws Exception {
        return f.list("in").stream().filter(n -> n.startsWith(".")).toList();
    }
}
