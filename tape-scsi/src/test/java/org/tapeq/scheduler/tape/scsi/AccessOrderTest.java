package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.time.RealTimeEventLoop;

/**
 * GENERATE / RECEIVE RECOMMENDED ACCESS ORDER on outputs constructed from the IBM LTO SCSI Reference's layouts in
 * sg_raw's format (src/test/resources/spec/README.md: not captured from a drive), and the probe against a fake
 * {@code sg_raw} that records what it is sent.
 */
class AccessOrderTest {

    /** The three segments of the constructed list: 1000-1099, 50000-50009 and 7-19 (last blocks inclusive). */
    private static final long[] STARTS = {1000, 50_000, 7};
    private static final long[] ENDS = {1100, 50_010, 20};

    @TempDir
    Path host;

    private final RealTimeEventLoop loop = new RealTimeEventLoop("test-loop", 1);
    private CommandRunner runner;

    @AfterEach
    void close() {
        if (runner != null) {
            runner.close();
        }
        loop.close();
    }

    private static String resource(String name) throws IOException {
        try (var in = AccessOrderTest.class.getResourceAsStream("/spec/" + name)) {
            assertNotNull(in, name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void limitsCommand_isMaintenanceInServiceAction1dWithUdsLimits() {
        assertEquals("sg_raw -r 4 /dev/nst0 a3 9d 00 00 00 00 00 00 00 04 00 00",
                AccessOrder.limitsCommand("/dev/nst0"));
    }

    @Test
    void parseLimit_theMostSegmentsPerList() throws IOException {
        // the drive orders 2 048 (0800h) at once; sg_raw sends 2 047
        assertEquals(2047, AccessOrder.parseLimit(resource("sg_raw-rrao-limits.txt")));
    }

    @Test
    void parameters_headerThenOne32ByteDescriptorPerSegment() {
        byte[] p = AccessOrder.parameters(new long[] {7, 0x0102030405L}, new long[] {20, 0x0102030406L});
        String expected = "00000000" + "00000040"                                     // reserved, 2 x 32 bytes
                + "001e" + "000000" + "30000000000000000000" + "00" + "0000000000000007" + "0000000000000013"
                + "001e" + "000000" + "31000000000000000000" + "00" + "0000000102030405" + "0000000102030405";
        assertEquals(expected, HexFormat.of().formatHex(p));
    }

    @Test
    void generateCommand_sendsTheParametersToMaintenanceOutServiceAction1d() {
        assertEquals("sg_raw -s 40 /dev/nst0 a4 1d 02 00 00 00 00 00 00 28 00 00",
                AccessOrder.generateCommand("/dev/nst0", 1));
        assertEquals("sg_raw -r 104 /dev/nst0 a3 1d 00 00 00 00 00 00 00 68 00 00",
                AccessOrder.receiveCommand("/dev/nst0", 3));
    }

    @Test
    void theMostSegments_fitSgRawsSendLimit_andTheCommandLineStaysShort() {
        assertEquals(2047, AccessOrder.MAX_SEGMENTS); // (65 536 - 8) / 32
        long[] starts = new long[AccessOrder.MAX_SEGMENTS];
        long[] ends = new long[starts.length];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = 1_000_000_000L * i;
            ends[i] = starts[i] + 1;
        }
        assertTrue(AccessOrder.parameters(starts, ends).length <= 64 * 1024);
        String line = AccessOrder.generateCommand("/dev/nst0", starts.length);
        assertTrue(line.length() < 128 * 1024 / 64, line); // far below Linux's 128 KiB per argument
        assertTrue(line.startsWith("sg_raw -s 65512 "), line);
        assertTrue(AccessOrder.receiveCommand("/dev/nst0", starts.length).startsWith("sg_raw -r 65512 "));
        long[] more = java.util.Arrays.copyOf(starts, starts.length + 1);
        more[starts.length] = more[starts.length - 1] + 10;
        long[] moreEnds = java.util.Arrays.copyOf(ends, more.length);
        moreEnds[starts.length] = more[starts.length] + 1;
        assertThrows(IllegalArgumentException.class, () -> AccessOrder.parameters(more, moreEnds));
        assertThrows(IllegalArgumentException.class, () -> AccessOrder.generateCommand("/dev/nst0", more.length));
    }

    @Test
    void parseLimit_aDriveThatOrdersMore_isCutToWhatSgRawSends() {
        // 0x0fff = 4095 segments: more than fit in sg_raw's 64 KiB
        assertEquals(AccessOrder.MAX_SEGMENTS, AccessOrder.parseLimit("Received 4 bytes of data:\n 00     0f ff ff ff\n"));
    }

    @Test
    void parseOrder_theDrivesOrderAsIndicesOfTheSegmentsSent() throws IOException {
        assertArrayEquals(new int[] {2, 0, 1}, AccessOrder.parseOrder(resource("sg_raw-rrao-list.txt"), STARTS, ENDS));
    }

    @Test
    void parseOrder_aListThatIsNotWhatWasSent_isRefusedWithTheReason() throws IOException {
        String list = resource("sg_raw-rrao-list.txt");
        // a fourth segment was sent but the list holds three
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AccessOrder.parseOrder(list,
                new long[] {1000, 50_000, 7, 90_000}, new long[] {1100, 50_010, 20, 90_001}));
        assertTrue(e.getMessage().contains("3 of 4"), e.getMessage());
        // segment 0 sent with other blocks
        e = assertThrows(IllegalArgumentException.class, () -> AccessOrder.parseOrder(list,
                new long[] {1001, 50_000, 7}, ENDS));
        assertTrue(e.getMessage().contains("segment 0"), e.getMessage());
        // only two sent: the list names segment 2
        e = assertThrows(IllegalArgumentException.class, () -> AccessOrder.parseOrder(list,
                new long[] {1000, 50_000}, new long[] {1100, 50_010}));
        assertTrue(e.getMessage().contains("segment 2"), e.getMessage());
        // cut short: the header promises 96 bytes of descriptors
        String cut = list.substring(0, list.indexOf(" 40 ")).replace("Received 104", "Received 64");
        e = assertThrows(IllegalArgumentException.class, () -> AccessOrder.parseOrder(cut, STARTS, ENDS));
        assertTrue(e.getMessage().contains("96 bytes"), e.getMessage());
    }

    // ---------------------------------------------------------------- the probe against a fake sg_raw

    private DriveProbe probe(boolean supported) throws IOException {
        return probe(supported, null);
    }

    /**
     * A fake sg_raw: a drive without RAO (every command ILLEGAL REQUEST, invalid operation code: sg_raw's exit
     * status 9), or one with it whose RECEIVE of the list prints {@code receiveFailure} when that is not null and
     * exits as sg_raw does for its sense key (sg3_utils' exit status: 5 another ILLEGAL REQUEST, 3 a medium or
     * hardware error).
     */
    private DriveProbe probe(boolean supported, String receiveFailure) throws IOException {
        Path bin = Files.createDirectories(host.resolve("bin"));
        Files.writeString(host.resolve("limits.txt"), resource("sg_raw-rrao-limits.txt"));
        Files.writeString(host.resolve("list.txt"), resource("sg_raw-rrao-list.txt"));
        Files.writeString(host.resolve("illegal.txt"), resource("sg_raw-reowp-illegal-request.txt"));
        if (receiveFailure != null) {
            Files.writeString(host.resolve("receive-failure.txt"), receiveFailure);
        }
        String receive = receiveFailure == null ? "cat " + host.resolve("list.txt")
                : "cat " + host.resolve("receive-failure.txt") + " >&2; exit "
                + (receiveFailure.contains("Illegal Request") ? 5 : 3);
        String body = !supported ? "cat " + host.resolve("illegal.txt") + " >&2; exit 9\n"
                : "echo \"$*\" >> " + host.resolve("sg_raw.log") + "\n"
                + "case \"$1 $4 $5\" in\n"
                + "  '-r a3 9d') cat " + host.resolve("limits.txt") + ";;\n"
                + "  '-s a4 1d') cat > " + host.resolve("sent.bin") + ";;\n"
                + "  '-r a3 1d') " + receive + ";;\n"
                + "  *) exit 2;;\n"
                + "esac\n";
        Path script = bin.resolve("sg_raw");
        Files.writeString(script, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        runner = new CommandRunner(loop, List.of("env", "PATH=" + bin + ":" + System.getenv("PATH"), "sh", "-c"), 1);
        return new DriveProbe(runner, 10_000);
    }

    @Test
    void probe_sendsTheSegmentsAndReadsTheDrivesOrder() throws Exception {
        DriveProbe p = probe(true);
        assertEquals(AccessOrder.MAX_SEGMENTS, p.accessOrderLimit("/dev/nst0").get());
        DriveAnswer<int[]> order = p.accessOrder("/dev/nst0", STARTS, ENDS);
        assertArrayEquals(new int[] {2, 0, 1}, order.get());
        assertArrayEquals(AccessOrder.parameters(STARTS, ENDS), Files.readAllBytes(host.resolve("sent.bin")),
                "the drive received the parameter list byte for byte");
        List<String> log = Files.readAllLines(host.resolve("sg_raw.log"));
        assertEquals(3, log.size(), log.toString());
        assertTrue(log.get(1).startsWith("-s 104 /dev/nst0 a4 1d 02"), log.toString());
    }

    @Test
    void probe_theMostSegments_reachTheDriveWhole() throws IOException {
        DriveProbe p = probe(true);
        long[] starts = new long[AccessOrder.MAX_SEGMENTS];
        long[] ends = new long[starts.length];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = 1_000_000_000L * i;
            ends[i] = starts[i] + 1;
        }
        p.accessOrder("/dev/nst0", starts, ends); // the fake drive's list is for three segments: refused
        assertArrayEquals(AccessOrder.parameters(starts, ends), Files.readAllBytes(host.resolve("sent.bin")),
                "the drive received all " + starts.length + " segments byte for byte");
    }

    @Test
    void probe_aDriveWithoutRao_answersNotOffered() throws Exception {
        DriveProbe p = probe(false);
        DriveAnswer<Integer> limit = p.accessOrderLimit("/dev/nst0");
        assertTrue(limit.unsupported() && limit.fault().refusal(), String.valueOf(limit.fault()));
        DriveAnswer<int[]> order = p.accessOrder("/dev/nst0", STARTS, ENDS);
        assertTrue(order.unsupported() && order.fault().refusal(), String.valueOf(order.fault()));
    }

    @Test
    void probe_hardwareErrorInTheRequest_isADriveFaultNotARefusal() throws Exception {
        DriveProbe p = probe(true, "SCSI Status: Check Condition \n\nSense Information:\nFixed format, current;"
                + " Sense key: Hardware Error\nAdditional sense: Internal target failure\n");
        DriveAnswer<int[]> order = p.accessOrder("/dev/nst0", STARTS, ENDS);
        assertFalse(order.ok());
        assertFalse(order.unsupported(), "a hardware error says nothing about what the drive offers");
        assertFalse(order.fault().refusal(), order.fault().toString());
        assertEquals(FaultKind.DRIVE, order.fault().kind());
    }

    @Test
    void probe_illegalFieldInOneRequest_refusesThatRequestOnly() throws Exception {
        DriveProbe p = probe(true, "SCSI Status: Check Condition \n\nSense Information:\nFixed format, current;"
                + " Sense key: Illegal Request\nAdditional sense: Invalid field in CDB\n");
        DriveAnswer<int[]> order = p.accessOrder("/dev/nst0", STARTS, ENDS);
        assertTrue(order.fault().refusal(), order.fault().toString());
        assertFalse(order.unsupported(), "the drive has the command; only this request was refused");
    }
}
