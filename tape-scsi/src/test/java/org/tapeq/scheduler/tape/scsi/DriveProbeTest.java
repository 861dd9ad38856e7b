package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.time.RealTimeEventLoop;

/**
 * The blank check against a fake tape host: {@code mt} and {@code sg_read_attr} are scripts first on the PATH
 * of the command prefix; {@code mt} records its arguments, answers {@code tell} with the position in a file and
 * moves it to the end of data on {@code eod}.
 */
class DriveProbeTest {

    private static final String DEVICE = "/dev/nst0";

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

    private DriveProbe probe(Long remainingMib, Long maximumMib, long endOfData) throws IOException {
        Path bin = Files.createDirectories(host.resolve("bin"));
        Files.writeString(host.resolve("position"), "0");
        Files.writeString(host.resolve("eod"), Long.toString(endOfData));
        script(bin.resolve("mt"), "echo \"$*\" >> " + host.resolve("mt.log") + "\n"
                + "case \"$3\" in\n"
                + "  tell) echo \"At block $(cat " + host.resolve("position") + ").\";;\n"
                + "  eod) cp " + host.resolve("eod") + " " + host.resolve("position") + ";;\n"
                + "  *) exit 2;;\n"
                + "esac\n");
        script(bin.resolve("sg_read_attr"), remainingMib == null ? "echo 'no cartridge memory' >&2; exit 5\n"
                : "case \"$2\" in\n"
                + "  0) echo '  Remaining capacity in partition [MiB]: " + remainingMib + "';;\n"
                + "  1) echo '  Maximum capacity in partition [MiB]: " + maximumMib + "';;\n"
                + "esac\n");
        runner = new CommandRunner(loop, List.of("env", "PATH=" + bin + ":" + System.getenv("PATH"), "sh", "-c"), 1);
        return new DriveProbe(runner, 10_000);
    }

    private static void script(Path file, String body) throws IOException {
        Files.writeString(file, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private boolean eodSent() throws IOException {
        return Files.readAllLines(host.resolve("mt.log")).contains("-f " + DEVICE + " eod");
    }

    @Test
    void blankAtBot_memoryZeroOfZeroAndWrittenTape_eodDecidesNotBlank() throws IOException {
        DriveProbe probe = probe(0L, 0L, 12_345);
        assertFalse(probe.blankAtBot(DEVICE), "a maximum capacity of 0 proves nothing");
        assertTrue(eodSent());
    }

    @Test
    void blankAtBot_memoryZeroOfZeroAndBlankTape_eodDecidesBlank() throws IOException {
        DriveProbe probe = probe(0L, 0L, 0);
        assertTrue(probe.blankAtBot(DEVICE));
        assertTrue(eodSent());
    }

    @Test
    void blankAtBot_memoryRemainingBelowMaximum_notBlankWithoutEod() throws IOException {
        DriveProbe probe = probe(15L, 16L, 0);
        assertFalse(probe.blankAtBot(DEVICE), "the memory shows data written");
        assertFalse(eodSent());
    }

    @Test
    void blankAtBot_memoryRemainingEqualsMaximumButTapeWritten_eodDecidesNotBlank() throws IOException {
        // whole MiB, or a stale memory: a cartridge with data may still read remaining == maximum
        DriveProbe probe = probe(16L, 16L, 3);
        assertFalse(probe.blankAtBot(DEVICE));
        assertTrue(eodSent());
    }

    @Test
    void blankAtBot_memoryRemainingEqualsMaximumAndBlankTape_eodDecidesBlank() throws IOException {
        DriveProbe probe = probe(16L, 16L, 0);
        assertTrue(probe.blankAtBot(DEVICE));
        assertTrue(eodSent());
    }

    @Test
    void blankAtBot_noCartridgeMemory_eodDecides() throws IOException {
        DriveProbe probe = probe(null, null, 7);
        assertFalse(probe.blankAtBot(DEVICE));
        assertTrue(eodSent());
    }

    @Test
    void probes_haveTheirOwnShortLimit_aTimeoutIsNoUnsupported() throws Exception {
        Path bin = Files.createDirectories(host.resolve("bin"));
        // a drive that never answers the probes (the script would end after 30 s with nothing)
        script(bin.resolve("sg_raw"), "exec sleep 30\n");
        script(bin.resolve("sg_read_attr"), "exec sleep 30\n");
        runner = new CommandRunner(loop, List.of("env", "PATH=" + bin + ":" + System.getenv("PATH"), "sh", "-c"), 1);
        DriveProbe probe = new DriveProbe(runner, 120_000, 500);
        DriveAnswer<long[]> ends = probe.wrapEnds(DEVICE);
        assertFalse(ends.ok());
        assertFalse(ends.unsupported(), "a drive that did not answer has not said it lacks the command");
        assertTrue(ends.fault().getMessage().contains("timed out"), ends.fault().toString());
        DriveAnswer<Integer> limit = probe.accessOrderLimit(DEVICE);
        assertFalse(limit.unsupported());
        assertTrue(limit.fault().getMessage().contains("timed out"), limit.fault().toString());
        assertTrue(probe.capacity(DEVICE).isEmpty(), "no cartridge memory known; the load goes on");
    }

    @Test
    void probeLimit_mustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new DriveProbe(null, 10_000, 0));
    }
}
