package org.tapeq.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmallFilesTest {
    @TempDir
    Path tmp;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void errorReport_parsesPerEnditRules() {
        assertEquals(new ErrorReport(33, "not on tape\nsecond line"), ErrorReport.parse(utf8("33\nnot on tape\nsecond line\n")));
        assertEquals(new ErrorReport(1, "ANS1345E No objects match"), ErrorReport.parse(utf8("ANS1345E No objects match\n")));
        assertEquals(new ErrorReport(1, ErrorReport.EMPTY_FILE_MESSAGE), ErrorReport.parse(utf8("  \n")));
        assertEquals(1, ErrorReport.parse(utf8("99999999999\nx")).returnCode(), "an overflowing code is text");
        String huge = "x".repeat(10_000);
        assertTrue(ErrorReport.parse(utf8("5\n" + huge)).message().length() < 2100);
        ErrorReport report = new ErrorReport(32, "family not configured");
        assertEquals(report, ErrorReport.parse(report.toBytes()));
    }

    @Test
    void stageChecksums_roundTripAndErrors() throws Exception {
        Map<String, String> checksums = StageChecksums.parse("c", utf8("adler32:0A1B2C3D\nsha-256:"
                + "ab".repeat(32) + "\n"));
        assertEquals(Map.of("adler32", "0a1b2c3d", "sha-256", "ab".repeat(32)), checksums);
        assertEquals(checksums, StageChecksums.parse("c", StageChecksums.format(checksums)));
        for (String bad : List.of("", "adler32", "adler32:xyz", ":00", "adler32:00\nadler32:01", "a b:00")) {
            ProtocolException e = assertThrows(ProtocolException.class, () -> StageChecksums.parse("in/X.checksum", utf8(bad)));
            assertTrue(e.getMessage().startsWith("in/X.checksum: "), e.getMessage());
        }
    }

    @Test
    void pnfsIds_onlyHexNamesUpToTheBound() {
        assertTrue(PnfsIds.isPnfsId("0000ABCDEF0123456789abcdef"));
        for (String bad : List.of("", "../x", "00AB.err", ".00AB.1.tmp", "00 AB", "g0", "A".repeat(65))) {
            assertFalse(PnfsIds.isPnfsId(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> RequestDirectory.at(tmp).requestFile("../../etc/passwd"));
    }

    @Test
    void requestDirectory_namesAndProblems() throws Exception {
        RequestDirectory dir = RequestDirectory.at(tmp);
        assertEquals(4, dir.problems().size());
        for (String sub : RequestDirectory.SUBDIRECTORIES) {
            Files.createDirectory(tmp.resolve(sub));
        }
        assertEquals(List.of(), dir.problems());
        assertEquals(tmp.resolve("request/00AB.err"), dir.errorFile("00AB"));
        assertEquals(tmp.resolve("in/00AB.checksum"), dir.checksumFile("00AB"));
        assertEquals("00AB", RequestDirectory.pnfsIdOfErrorFile("00AB.err"));
        assertNull(RequestDirectory.pnfsIdOfErrorFile("x/00AB.err"));
        assertNull(RequestDirectory.pnfsIdOfChecksumFile("00AB.err"));
    }

    @Test
    void atomicWrite_replacesAndLeavesNoTemporary() throws Exception {
        Path target = tmp.resolve("00AB");
        AtomicFiles.write(target, utf8("one"));
        AtomicFiles.write(target, utf8("two"), true);
        assertEquals("two", Files.readString(target));
        try (var files = Files.list(tmp)) {
            assertEquals(List.of(target), files.collect(java.util.stream.Collectors.toList()));
        }
        Path temporary = AtomicFiles.temporarySibling(target);
        assertTrue(AtomicFiles.isTemporaryName(temporary.getFileName().toString()));
        assertFalse(PnfsIds.isPnfsId(temporary.getFileName().toString()));
    }
}
