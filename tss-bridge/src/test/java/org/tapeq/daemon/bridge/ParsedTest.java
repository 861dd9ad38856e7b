package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.HeldDirectory;

/** How a request file read at intake is classed: taken, refused at once, or read again shortly. */
class ParsedTest {

    private static final String ID = "0000A1B2C3D4E5F60718293A4B5C6D7E8F90";
    private static final String REQUEST =
            "{\"file_size\":1,\"time\":1,\"storage_class\":\"atlas:raw\",\"action\":\"recall\"}";

    @TempDir
    Path dir;

    @Test
    void aFileThatGrowsPastTheLimitWhileRead_isReadAgainNotRefusedForItsHalfWrittenState() throws Exception {
        Path file = Files.writeString(dir.resolve(ID), REQUEST);
        try (HeldDirectory held = HeldDirectory.open(dir)) {
            BasicFileAttributes before = held.attributes(ID); // as the intake saw it just before reading
            Files.write(file, "x".repeat(300).getBytes(StandardCharsets.US_ASCII), StandardOpenOption.APPEND);

            Parsed p = Parsed.read(held, ID, 200, before);

            assertNull(p.request());
            assertTrue(p.error().contains(file.toString()), p.error());
            assertTrue(p.error().contains("grew beyond"), p.error());
            assertTrue(p.retry(), "still being written: read again before refusing");

            Parsed finished = Parsed.read(held, ID, 200);
            assertFalse(finished.retry(), "too large once it stopped growing: refused at once");
            assertTrue(finished.error().contains("more than the 200 allowed"), finished.error());
        }
    }

    @Test
    void aFileThatFitsIsTaken_andALinkIsRefusedAtOnce() throws Exception {
        Files.writeString(dir.resolve(ID), REQUEST);
        Path target = Files.writeString(dir.resolve("elsewhere"), REQUEST);
        String link = "0000A1B2C3D4E5F60718293A4B5C6D7E8F91";
        Files.createSymbolicLink(dir.resolve(link), target);
        try (HeldDirectory held = HeldDirectory.open(dir)) {
            Parsed p = Parsed.read(held, ID, 200);
            assertNotNull(p.request(), String.valueOf(p.error()));
            assertNotNull(p.version());

            Parsed l = Parsed.read(held, link, 200);
            assertNull(l.request());
            assertFalse(l.retry(), "a link does not change by waiting");
            assertTrue(l.error().contains("symbolic link"), l.error());
        }
    }
}
