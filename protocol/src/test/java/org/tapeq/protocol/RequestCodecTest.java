package org.tapeq.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestCodecTest {
    @TempDir
    Path tmp;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void toBytes_plainEnditFlush_matchesEnditFormatExactly() {
        Request flush = Request.flush(1024, 1700000000, "atlas:raw", null, "adler32", "0a1b2c3d", null);
        assertEquals("{\"file_size\":1024,\"time\":1700000000,\"storage_class\":\"atlas:raw\",\"action\":\"migrate\","
                + "\"path\":null,\"checksumType\":\"adler32\",\"checksumValue\":\"0a1b2c3d\"}",
                new String(RequestCodec.toBytes(flush), StandardCharsets.UTF_8));
        Request stage = Request.stage(5, 1700000001, "cms:data", "/pnfs/cms/f", 4242, null, null, null);
        assertEquals("{\"file_size\":5,\"parent_pid\":4242,\"time\":1700000001,\"storage_class\":\"cms:data\","
                + "\"action\":\"recall\",\"path\":\"/pnfs/cms/f\"}",
                new String(RequestCodec.toBytes(stage), StandardCharsets.UTF_8));
    }

    @Test
    void roundTrip_withExtension_preservesEverything() throws Exception {
        Request request = Request.stage(7, 1, "lhcb:raw", "/p/\u00e9t\u00e9 \"q\"", 99, "adler32", "00000001",
                new Request.Extension("6f1c...", 3, "Express", "/p", 1700000000123L));
        assertEquals(request, RequestCodec.parse("r", RequestCodec.toBytes(request)));
        Request flush = Request.flush(0, 2, null, null, null, null, new Request.Extension(null, 0, null, null, 0));
        assertEquals(flush, RequestCodec.parse("r", RequestCodec.toBytes(flush)));
    }

    @Test
    void parse_oldEnditStageWithSpaces_accepted() throws Exception {
        Request r = RequestCodec.parse("r", utf8("{ \"file_size\": 12, \"parent_pid\": 3, \"time\": 4, "
                + "\"action\": \"recall\" }\n"));
        assertEquals(12, r.fileSize());
        assertNull(r.extension());
        assertNull(r.path());
    }

    @Test
    void parse_unknownKeysAndNumericStrings_tolerated() throws Exception {
        Request r = RequestCodec.parse("r", utf8("{\"file_size\":\"12\",\"action\":\"migrate\",\"future\":[1,{}],"
                + "\"tapeq\":{\"version\":2,\"new\":true,\"priority\":-4}}"));
        assertEquals(12, r.fileSize());
        assertEquals(-4, r.extension().priority());
        assertEquals(2, r.extension().version());
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @CsvSource(delimiter = '|', value = {
        "''|is empty (perhaps still being written)",
        "{\"file_size\":1,\"action\":\"recall\"|is not valid JSON",
        "[1,2]|the content is not a JSON object",
        "{\"file_size\":1,\"action\":\"recall\"} x|has content after the JSON object",
        "{\"action\":\"recall\"}|has no \"file_size\"",
        "{\"file_size\":1}|has no \"action\"",
        "{\"file_size\":1,\"action\":\"purge\"}|has unknown action \"purge\"",
        "{\"file_size\":-1,\"action\":\"recall\"}|has a negative \"file_size\": -1",
        "{\"file_size\":1.5,\"action\":\"recall\"}|\"file_size\" must be an integer, not a fractional number",
        "{\"file_size\":\"big\",\"action\":\"recall\"}|\"file_size\" is not an integer: \"big\"",
        "{\"file_size\":99999999999999999999999,\"action\":\"recall\"}|\"file_size\" is out of range",
        "{\"file_size\":1,\"action\":\"recall\",\"path\":{}}|\"path\" must be a string, not an object",
        "{\"file_size\":1,\"file_size\":2,\"action\":\"recall\"}|is not valid JSON (Duplicate field 'file_size')",
        "{\"file_size\":1,\"action\":\"recall\",\"tapeq\":[]}|\"tapeq\" must be a JSON object",
        "{\"file_size\":1,\"action\":\"recall\",\"tapeq\":{\"priority\":9999999999}}|\"tapeq.priority\" is out of range",
    })
    void parse_badContent_namesFileAndReason(String content, String reason) {
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> RequestCodec.parse("request/00AB", utf8(content)));
        assertEquals("request/00AB", e.file());
        assertTrue(e.reason().startsWith(reason), e.getMessage());
        assertTrue(e.getMessage().startsWith("request/00AB: "), e.getMessage());
    }

    @Test
    void read_symlinkOrOversizedOrDirectory_refused() throws Exception {
        Path real = Files.write(tmp.resolve("real"), RequestCodec.toBytes(
                Request.stage(1, 1, "a:b", null, 1, null, null, null)));
        Path link = Files.createSymbolicLink(tmp.resolve("00AA"), real);
        assertTrue(assertThrows(ProtocolException.class, () -> RequestCodec.read(link)).reason()
                .contains("symbolic link"));
        Path big = Files.write(tmp.resolve("00BB"), new byte[ProtocolFiles.MAX_PROTOCOL_FILE_SIZE + 1]);
        assertTrue(assertThrows(ProtocolException.class, () -> RequestCodec.read(big)).reason()
                .contains("more than the 65536 allowed"));
        Path dir = Files.createDirectory(tmp.resolve("00CC"));
        assertTrue(assertThrows(ProtocolException.class, () -> RequestCodec.read(dir)).reason()
                .contains("not a regular file"));
        assertEquals(1, RequestCodec.read(real).fileSize());
    }
}
