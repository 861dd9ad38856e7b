package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tapeq cartridge verify} through the control socket of a running daemon on a simulated library. */
class DaemonVerifyTest {

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
    void cartridgeVerify_queuedThenDoneInStatusAndCatalog() throws Exception {
        String pnfsid = f.onTape(DaemonFixture.randomBytes(300_000));
        String barcode = f.daemon.catalog().file(pnfsid).orElseThrow().cartridge();

        JsonNode queued = call("cartridge-verify", List.of(barcode, "0"));

        assertEquals(1, queued.path("aggregatesTotal").asInt(), queued.toString());
        DaemonFixture.await("the verification of " + barcode + " to end", () -> {
            try {
                JsonNode v = call("status", List.of()).path("scheduler").path("verifications");
                return v.size() == 1 && v.get(0).path("state").asText().equals("done");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        JsonNode done = call("status", List.of()).path("scheduler").path("verifications").get(0);
        assertEquals(1, done.path("filesGood").asInt(), done.toString());
        assertTrue(done.path("bad").isEmpty(), done.toString());
        assertTrue(f.daemon.catalog().lastVerification(barcode).orElseThrow().good());
        // the metrics read a status snapshot taken at most once a second
        DaemonFixture.await("tapeq_verify_files to count the good file", () -> {
            try {
                return Scrape.of(f.daemon).value("tapeq_verify_files", "result", "good") == 1;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(0, Scrape.of(f.daemon).value("tapeq_verify_files", "result", "bad"));
    }
}
