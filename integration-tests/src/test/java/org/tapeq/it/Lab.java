package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * One lab library the lab tests run on ({@link LabEndToEndTest}, {@link LabRepackTest}): the tgt lab of
 * ../shared/vtl ({@code TAPEQ_VTL_LAB}, {@code TAPEQ_VTL_TAPE_MB}) or the mhVTL lab of ../shared/mhvtl
 * ({@code TAPEQ_MHVTL_LAB}, {@code TAPEQ_MHVTL_TAPE_MB}); .ci/run starts both and sets these.
 *
 * @param dirKey     environment variable naming the lab folder
 * @param tapeMbKey  environment variable with the cartridge capacity
 * @param barcode    format of cartridge n's barcode
 * @param driveOff   the lab's command (after the lab folder) that takes drive 0 away, and the one that
 *                   brings it back
 * @param libraryOff the same for the library, or null if the lab cannot
 * @param cartridgeMemory the drives report the cartridges' capacity (then a cartridge is closed as full by
 *                   its real free space, usually before the drive reports end of tape)
 */
record Lab(String dirKey, String tapeMbKey, String barcode, List<List<String>> driveOff,
           List<List<String>> libraryOff, boolean cartridgeMemory) {

    static final Lab TGT = new Lab("TAPEQ_VTL_LAB", "TAPEQ_VTL_TAPE_MB", "VTL%03dL5", List.of(
            tgtadm("online=0"), tgtadm("online=1")), null, false);
    static final Lab MHVTL = new Lab("TAPEQ_MHVTL_LAB", "TAPEQ_MHVTL_TAPE_MB", "E01%03dL8", List.of(
            List.of("vtl-fault", "drive-offline", "1"), List.of("vtl-fault", "drive-online", "1")), List.of(
            List.of("vtl-fault", "library-offline"), List.of("vtl-fault", "library-online")), true);

    /** Drive 0 of the daemon is the tgt lab's LUN 1. */
    private static List<String> tgtadm(String params) {
        return List.of("vtl-tgtadm", "--mode", "logicalunit", "--op", "update", "--tid", "1", "--lun", "1",
                "--params", params);
    }

    String barcode(int n) {
        return String.format(barcode, n);
    }

    List<String> barcodes(int from, int to) {
        List<String> list = new ArrayList<>();
        for (int n = from; n <= to; n++) {
            list.add(barcode(n));
        }
        return list;
    }

    /** Cartridge capacity in bytes, as the lab was started with (16 MB unless said otherwise). */
    long capacityBytes() {
        return Long.parseLong(System.getenv().getOrDefault(tapeMbKey, "16")) << 20;
    }

    /** The lab's folder; skips the test when it is not named, fails it when the lab is not up. */
    Path dir() {
        String labDir = System.getenv(dirKey);
        Assumptions.assumeTrue(labDir != null && !labDir.isBlank(),
                "no lab library configured (" + dirKey + " is not set; .ci/run sets it)");
        Path lab = Path.of(labDir);
        assertTrue(Files.isExecutable(lab.resolve("vtl-ssh")), lab + "/vtl-ssh missing: is the lab up?");
        return lab;
    }

    /**
     * A site on {@code root} whose daemon drives the lab's changer and both drives through the SCSI backend
     * ({@code mtx}/{@code mt}/{@code dd} through the lab's {@code vtl-ssh}), with waits short enough for a test
     * and the margin of the labs' small cartridges.
     */
    static Site site(Path root, Path lab) throws IOException {
        return new Site(root).library(String.join("\n",
                        "library:",
                        "  backend: scsi",
                        "  blockSize: 256KiB",
                        "  scsi:",
                        "    changer: /dev/vtl/changer",
                        "    drives:",
                        "      - name: drive0",
                        "        device: /dev/vtl/lun1-nst",
                        "      - name: drive1",
                        "        device: /dev/vtl/lun2-nst",
                        "    commandPrefix: " + lab.resolve("vtl-ssh"),
                        "    robotTimeout: 2m",
                        "    tapeTimeout: 30s", // the lab answers in well under a second; an offline drive hangs minutes
                        "    dataStall: 2m"))
                .scheduler("aggregateWait", "2s").scheduler("aggregateBytes", "4MB")
                .scheduler("fullMargin", "2MB") // the labs' cartridges hold 16 MB
                .scheduler("quietTime", "1s")
                .scheduler("dwell", "2s").scheduler("retryBackoff", "2s").scheduler("remountGuard", "0")
                .scheduler("maxAttempts", "8");
    }

    /** Runs one of the lab's commands ({@code vtl-tgtadm ...}, {@code vtl-fault ...}) from the lab folder. */
    static void command(Path lab, List<String> words) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(words);
        argv.set(0, lab.resolve(words.get(0)).toString());
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", words) + " failed: " + out);
        }
    }
}
