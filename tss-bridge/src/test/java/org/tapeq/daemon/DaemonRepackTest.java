package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;

/** {@code tapeq cartridge repack} and {@code relabel} through the control socket of a running daemon on a simulated library. */
class DaemonRepackTest {

    @TempDir
    Path tmp;

    private DaemonFixture f;

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

    private JsonNode call(String command, List<String> args) throws Exception {
        return f.control(command, args);
    }

    @Test
    void cartridgeRepack_filesMovedSourceEmptyInStatusMetricsAndCatalog_relabelledToScratch_stagedBackIdentical() throws Exception {
        List<String> ids = new ArrayList<>();
        List<byte[]> contents = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            byte[] content = DaemonFixture.randomBytes(200_000 + i);
            String pnfsid = DaemonFixture.newPnfsId();
            f.flush(pnfsid, content, true);
            ids.add(pnfsid);
            contents.add(content);
        }
        for (String id : ids) {
            assertNull(f.awaitFlush(id));
            f.collect(id);
        }
        String source = f.daemon.catalog().file(ids.get(0)).orElseThrow().cartridge();
        long onSource = ids.stream().filter(id -> f.daemon.catalog().file(id).orElseThrow().cartridge()
                .equals(source)).count();

        JsonNode queued = call("cartridge-repack", List.of(source, "-"));

        assertEquals("atlas", queued.path("targetFamily").asText(), queued.toString());
        assertEquals(onSource, queued.path("filesTotal").asInt(), queued.toString());
        DaemonFixture.await("the repack of " + source + " to end", () -> {
            try {
                JsonNode r = call("status", List.of()).path("scheduler").path("repacks");
                return r.size() == 1 && r.get(0).path("state").asText().equals("done");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        JsonNode done = call("status", List.of()).path("scheduler").path("repacks").get(0);
        assertEquals(onSource, done.path("filesDone").asInt(), done.toString());
        assertTrue(done.path("emptied").asBoolean(), done.toString());
        assertEquals(CartridgeState.EMPTY, f.daemon.catalog().cartridge(source).orElseThrow().state());
        for (String id : ids) {
            assertNotEquals(source, f.daemon.catalog().file(id).orElseThrow().cartridge(), id);
        }
        DaemonFixture.await("the repack's spool of " + source + " removed (after the job ended, off the loop)",
                () -> Files.notExists(tmp.resolve("state").resolve(Daemon.REPACK_SPOOL).resolve(source)));
        DaemonFixture.await("tapeq_repack_files to count the moved files", () -> {
            try {
                return Scrape.of(f.daemon).value("tapeq_repack_files", "state", "moved") == onSource;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        relabelBackToScratch(source);

        for (int i = 0; i < ids.size(); i++) {
            f.stage(ids.get(i), contents.get(i).length, DaemonFixture.adler32(contents.get(i)), true);
        }
        for (int i = 0; i < ids.size(); i++) {
            assertNull(f.awaitStage(ids.get(i)));
            assertArrayEquals(contents.get(i), Files.readAllBytes(f.dir.inFile(ids.get(i))), ids.get(i));
        }
    }

    /** {@code tapeq cartridge relabel} of the emptied source: appendable again, its old tape files forgotten. */
    private void relabelBackToScratch(String source) throws Exception {
        JsonNode queued = call("cartridge-relabel", List.of(source, "-", "false"));

        assertEquals("atlas", queued.path("family").asText(), queued.toString());
        DaemonFixture.await("the relabel of " + source + " to end", () -> {
            try {
                JsonNode r = call("status", List.of()).path("scheduler").path("relabels");
                return r.size() == 1 && r.get(0).path("state").asText().equals("done");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        CartridgeRecord relabelled = f.daemon.catalog().cartridge(source).orElseThrow();
        assertEquals(CartridgeState.APPENDABLE, relabelled.state());
        assertEquals(0, relabelled.tapeFiles());
        assertEquals(0, relabelled.usedBytes());
        assertEquals(List.of(), f.daemon.catalog().aggregates(source));
    }
}
