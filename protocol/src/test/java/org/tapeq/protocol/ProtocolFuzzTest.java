package org.tapeq.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.tapeq.fuzz.Fuzz;
import org.tapeq.fuzz.Gen;
import org.tapeq.fuzz.Mutations;

/**
 * Fuzzes the parsers of the three files that cross between the pool and the daemon: request files, error
 * files and checksum files (docs/testing.md, "Fuzzing"). Mutated samples must parse to a valid value or be
 * refused with a {@link ProtocolException} naming the file; whatever parses is written back unchanged; written
 * values parse back equal.
 */
class ProtocolFuzzTest {
    private static final String FILE = "request/0000A1B2C3";
    private static final int MAX = ProtocolFiles.MAX_PROTOCOL_FILE_SIZE;
    /** Values written and read back per build, long run or not. */
    private static final int ROUND_TRIPS = 1000;
    private static final Pattern TYPE = Pattern.compile("[a-z0-9_-]+");
    private static final Pattern VALUE = Pattern.compile("[0-9a-f]{1,128}");

    // ---- request files

    @Test
    void requestFile_mutated_parsesOrIsRefusedNamingTheFile() {
        Fuzz.mutants("request file", REQUEST_FILES, input -> checkRequestFile(input.bytes()));
    }

    /**
     * What must hold for any request file: it parses to a request that is written back unchanged, or it is refused
     * naming the file. Also the body of the coverage-guided {@code RequestFileJazzerTest}.
     */
    static void checkRequestFile(byte[] bytes) throws ProtocolException {
        Request r;
        try {
            r = RequestCodec.parse(FILE, bytes);
        } catch (ProtocolException e) {
            assertRefusal(e);
            return;
        }
        assertTrue(r.fileSize() >= 0, "negative size accepted");
        byte[] written = RequestCodec.toBytes(r);
        Request again = RequestCodec.parse(FILE, written);
        assertArrayEquals(written, RequestCodec.toBytes(again), "the written form is not stable");
        assertEquals(r.action(), again.action());
        assertEquals(r.fileSize(), again.fileSize());
        assertEquals(r.path(), again.path());
        assertEquals(r.storageClass(), again.storageClass());
        assertEquals(r.extension() == null, again.extension() == null);
    }

    @Test
    void requestFile_written_parsesBackEqual() {
        Fuzz.run("request file written", ROUND_TRIPS, ProtocolFuzzTest::request,
                request -> assertEquals(request, RequestCodec.parse(FILE, RequestCodec.toBytes(request))));
    }

    static final Mutations REQUEST_FILES = Mutations.ofText(List.of(
            "{\"file_size\":1024,\"time\":1700000000,\"storage_class\":\"atlas:raw\",\"action\":\"migrate\","
                    + "\"path\":null,\"checksumType\":\"adler32\",\"checksumValue\":\"0a1b2c3d\"}",
            "{\"file_size\":5,\"parent_pid\":4242,\"time\":1700000001,\"storage_class\":\"cms:data\","
                    + "\"action\":\"recall\",\"path\":\"/pnfs/cms/f\"}",
            "{ \"file_size\": 12, \"parent_pid\": 3, \"time\": 4, \"action\": \"recall\" }\n",
            "{\"file_size\":\"12\",\"action\":\"migrate\",\"future\":[1,{}],"
                    + "\"tapeq\":{\"version\":2,\"new\":true,\"priority\":-4}}",
            new String(RequestCodec.toBytes(Request.stage(7, 1700000002, "atlas:raw", "/pnfs/a/\u00e9t\u00e9", 99,
                    "adler32", "01020304", new Request.Extension("5f0e-uuid", 3, "T0-export", "ds1",
                            1700000009000L))), StandardCharsets.UTF_8)),
            List.of("\"file_size\"", "\"parent_pid\"", "\"time\"", "\"storage_class\"", "\"action\"",
                    "\"path\"", "\"checksumType\"", "\"checksumValue\"", "\"tapeq\"", "\"version\"",
                    "\"request_id\"", "\"priority\"", "\"activity\"", "\"colocation\"", "\"deadline\"",
                    "\"migrate\"", "\"recall\"", "null", "true", "false", "{}", "[]", "\"\"", "\\u0000",
                    "\\ud800", "\"\\", ",\"file_size\":1", "{\"", "[[[[[[[[[[", "\u00e9", "\ud83d\ude00"),
            MAX);

    private static Request request(Random r) {
        Request.Action action = r.nextBoolean() ? Request.Action.MIGRATE : Request.Action.RECALL;
        boolean checksum = r.nextBoolean();
        String type = checksum ? Gen.text(r, 1, 20) : null;
        String value = checksum ? Gen.text(r, 1, 40) : null;
        Request.Extension x = r.nextInt(3) == 0 ? null : new Request.Extension(Gen.between(r, 0, Integer.MAX_VALUE),
                Gen.orNull(r, Gen.text(r, 0, 40), 0.2), Gen.between(r, Integer.MIN_VALUE, Integer.MAX_VALUE),
                Gen.orNull(r, Gen.text(r, 0, 40), 0.2), Gen.orNull(r, Gen.text(r, 0, 40), 0.2),
                Gen.between(r, 0, Long.MAX_VALUE));
        return Request.of(action, Gen.between(r, 0, Long.MAX_VALUE), Gen.between(r, 0, Long.MAX_VALUE),
                Gen.orNull(r, Gen.text(r, 0, 40), 0.2), Gen.orNull(r, Gen.text(r, 0, 40), 0.2), type, value,
                action == Request.Action.RECALL ? Long.valueOf(Gen.between(r, 0, Long.MAX_VALUE)) : null, x);
    }

    // ---- error files

    @Test
    void errorFile_mutated_alwaysAReportThatIsWrittenBackUnchanged() {
        Fuzz.mutants("error file", ERROR_FILES, input -> {
            ErrorReport report = ErrorReport.parse(input.bytes());
            assertFalse(report.message().isBlank(), "blank message");
            assertTrue(report.message().length() <= ErrorReport.MAX_MESSAGE_LENGTH, "message not cut");
            assertEquals(report, ErrorReport.parse(report.toBytes()), "written back differently");
        });
    }

    @Test
    void errorFile_written_parsesBackEqual() {
        Fuzz.run("error file written", ROUND_TRIPS,
                r -> new ErrorReport(Gen.between(r, Integer.MIN_VALUE, Integer.MAX_VALUE),
                        "x" + Gen.text(r, 0, ErrorReport.MAX_MESSAGE_LENGTH - 2).strip()),
                report -> assertEquals(report, ErrorReport.parse(report.toBytes())));
    }

    /** Found by the fuzzer: a return code of 11 characters was not read as one. */
    @Test
    void errorFile_smallestInt_readAsReturnCode() {
        assertEquals(new ErrorReport(Integer.MIN_VALUE, "x"),
                ErrorReport.parse("-2147483648\nx\n".getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Found by the fuzzer: a long message was cut between the halves of a surrogate pair (written as '?'), and a
     * cut message grew when read back (cut again).
     */
    @Test
    void errorFile_longMessageOfEmoji_cutBetweenCharactersOnce() {
        ErrorReport report = ErrorReport.parse(("43\nx" + "\ud83d\ude00".repeat(1500)).getBytes(StandardCharsets.UTF_8));
        assertEquals("x" + "\ud83d\ude00".repeat(996) + " [...]", report.message());
        assertEquals(report, ErrorReport.parse(report.toBytes()));
    }

    private static final Mutations ERROR_FILES = Mutations.ofText(List.of("41\nno such file on tape\n", "",
            " \n\t", "tape daemon crashed", "204\ndrive failure\nsecond line\n", "2147483648\nx", "-5\n", "0\n\n\n",
            "43\n" + "\ud83d\ude00".repeat(1500)),
            List.of("\n", "\r\n", "-", "41", "\ud83d\ude00", " "), MAX);

    // ---- checksum files

    @Test
    void checksumFile_mutated_parsesOrIsRefusedNamingTheFile() {
        Fuzz.mutants("checksum file", CHECKSUM_FILES, input -> {
            Map<String, String> sums;
            try {
                sums = StageChecksums.parse(FILE, input.bytes());
            } catch (ProtocolException e) {
                assertRefusal(e);
                return;
            }
            assertFalse(sums.isEmpty());
            sums.forEach((type, value) -> {
                assertTrue(TYPE.matcher(type).matches(), type);
                assertTrue(VALUE.matcher(value).matches(), value);
            });
            assertEquals(sums, StageChecksums.parse(FILE, StageChecksums.format(sums)));
        });
    }

    @Test
    void checksumFile_written_parsesBackEqual() {
        Fuzz.run("checksum file written", ROUND_TRIPS, r -> {
            Map<String, String> sums = new LinkedHashMap<>();
            for (int i = r.nextInt(4); i >= 0; i--) {
                sums.put(Gen.of(r, "abcdefghijklmnopqrstuvwxyz0123456789_-", 1, 12),
                        Gen.of(r, "0123456789abcdef", 1, 128));
            }
            return sums;
        }, sums -> assertEquals(sums, StageChecksums.parse(FILE, StageChecksums.format(sums))));
    }

    private static final Mutations CHECKSUM_FILES = Mutations.ofText(List.of("adler32:0a1b2c3d\n",
            "adler32:0a1b2c3d\nmd5:d41d8cd98f00b204e9800998ecf8427e\n", "ADLER32 : 0A1B2C3D\r\n\n"),
            List.of("adler32", "md5", ":", "\n", "sha-256"), MAX);

    // ----

    private static void assertRefusal(ProtocolException e) {
        assertEquals(FILE, e.file());
        assertTrue(e.getMessage().startsWith(FILE + ": "), e::getMessage);
        assertFalse(e.reason() == null || e.reason().isBlank(), "no reason given");
    }
}
