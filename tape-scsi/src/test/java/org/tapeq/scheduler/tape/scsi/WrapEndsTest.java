package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.time.RealTimeEventLoop;

/**
 * READ END OF WRAP POSITION on outputs constructed from the IBM LTO SCSI Reference's layout in sg_raw's format
 * (src/test/resources/spec/README.md: not captured from a drive).
 */
class WrapEndsTest {

    private static String resource(String name) throws java.io.IOException {
        try (var in = WrapEndsTest.class.getResourceAsStream("/spec/" + name)) {
            assertNotNull(in, name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void command_reportAll_isMaintenanceInWithServiceAction1fQualifier45() {
        assertEquals("sg_raw -r 6148 /dev/nst0 a3 1f 45 02 00 00 00 00 18 04 00 00", WrapEnds.command("/dev/nst0"));
    }

    @Test
    void parse_lto9LongForm_everyWrapEndAsTheFirstBlockPastIt() throws Exception {
        long[] ends = WrapEnds.parse(resource("sg_raw-reowp-lto9.txt"));
        assertEquals(280, ends.length);
        assertEquals(245_700, ends[0]); // descriptor 0: last block 0x03bfc3 = 245 699
        assertEquals(491_506, ends[1]); // descriptor 1: last block 0x077ff1 = 491 505
        assertEquals(68_882_014, ends[279]); // last descriptor: 0x041b0e5d = 68 882 013
        for (int w = 1; w < ends.length; w++) {
            assertTrue(ends[w] > ends[w - 1], "wrap " + w);
        }
    }

    @Test
    void parse_partition1DescriptorsAreSkipped() {
        String out = """
                Received 28 bytes of data:
                 00     00 1a 00 00 00 00 00 00  00 00 00 00 00 00 00 09    ................
                 10     00 00 00 01 00 00 00 00  00 00 00 04                ............
                """;
        assertArrayEquals(new long[] {10}, WrapEnds.parse(out));
    }

    /**
     * A partly written cartridge as a drive is inferred to report it (from CTA's RAOHelpers, not checked against
     * 5.2.20): only the wraps holding data, the last one ending at end of data.
     */
    @Test
    void parse_onlyTheWrittenWraps_areReturnedAsReported() {
        String out = """
                Received 40 bytes of data:
                 00     00 26 00 00 00 00 00 00  00 00 00 00 00 03 bf c3    .&..............
                 10     00 01 00 00 00 00 00 00  00 07 7f f1 00 02 00 00    ................
                 20     00 00 00 00 00 08 00 00                             ........
                """;
        assertArrayEquals(new long[] {0x3bfc4, 0x77ff2, 0x80001}, WrapEnds.parse(out));
    }

    @Test
    void parse_noWrapReported_saysSo() {
        String out = """
                Received 4 bytes of data:
                 00     00 02 00 00                                         ....
                """;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WrapEnds.parse(out));
        assertTrue(e.getMessage().contains("reports no wrap"), e.getMessage());
    }

    @Test
    void parse_lengthBeyondTheData_namesTheAllocationLength() {
        String out = """
                Received 16 bytes of data:
                 00     00 1a 00 00 00 00 00 00  00 00 00 00 00 09 00 00    ................
                """;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WrapEnds.parse(out));
        assertTrue(e.getMessage().contains("allocation length"), e.getMessage());
    }

    @Test
    void parse_wrapsOutOfOrder_isAnError() {
        String out = """
                Received 28 bytes of data:
                 00     00 1a 00 00 00 01 00 00  00 00 00 00 00 09 00 00    ................
                 10     00 00 00 00 00 00 00 00  00 00 00 04                ............
                """;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WrapEnds.parse(out));
        assertTrue(e.getMessage().contains("expected wrap 0"), e.getMessage());
    }

    @Test
    void parse_noData_isAnError() throws Exception {
        assertThrows(IllegalArgumentException.class,
                () -> WrapEnds.parse(resource("sg_raw-reowp-illegal-request.txt")));
    }

    @Test
    void lacksCommand_theRecordedInvalidOperationCode_isRecognised() throws Exception {
        CommandRunner.Result rejected = new CommandRunner.Result("sg_raw ...", 9, "",
                resource("sg_raw-reowp-illegal-request.txt"), false, null);
        assertTrue(FaultMap.lacksCommand(rejected));
        CommandRunner.Result good = new CommandRunner.Result("sg_raw ...", 0, resource("sg_raw-reowp-lto9.txt"), "",
                false, null);
        assertFalse(FaultMap.illegalRequest(good));
    }

    @Test
    void wrapEnds_commandFailsOnTheHost_isAFailureNotARefusal() {
        try (RealTimeEventLoop loop = new RealTimeEventLoop("test-loop", 1)) {
            CommandRunner runner = new CommandRunner(loop, List.of("sh", "-c"), 1);
            try {
                DriveAnswer<long[]> a = new DriveProbe(runner, 10_000).wrapEnds("/nonexistent/nst9");
                assertFalse(a.ok());
                assertFalse(a.unsupported(), "a host that cannot run the command says nothing about the drive");
                assertFalse(a.fault().refusal(), a.fault().toString());
            } finally {
                runner.close();
            }
        }
    }
}
