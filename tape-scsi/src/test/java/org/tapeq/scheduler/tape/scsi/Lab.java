package org.tapeq.scheduler.tape.scsi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One of the two lab libraries the backend's lab tests run against, found through the environment .ci/run sets:
 * the tgt lab of ../shared/vtl ({@code TAPEQ_VTL_LAB}, cartridges {@code VTL001L5}...) and the mhVTL lab of
 * ../shared/mhvtl ({@code TAPEQ_MHVTL_LAB}, cartridges {@code E01001L8}..., TapeAlert, cartridge memory and
 * library faults through its {@code vtl-fault}). Both have the same device names.
 *
 * @param name     for messages: "tgt" or "mhvtl"
 * @param dir      the lab folder (holds {@code vtl-ssh})
 * @param tapeMb   capacity of a cartridge
 * @param tapes    cartridges in the library
 * @param mhvtl    whether it is the mhVTL lab (fault injection through {@code vtl-fault})
 */
record Lab(String name, Path dir, int tapeMb, int tapes, boolean mhvtl) {

    /** The tgt lab, or null if {@code TAPEQ_VTL_LAB} is not set. */
    static Lab tgtLab() {
        return of("tgt", "TAPEQ_VTL_LAB", "TAPEQ_VTL_TAPE_MB", "16", "TAPEQ_VTL_TAPES", "8", false);
    }

    /** The mhVTL lab, or null if {@code TAPEQ_MHVTL_LAB} is not set. */
    static Lab mhvtlLab() {
        return of("mhvtl", "TAPEQ_MHVTL_LAB", "TAPEQ_MHVTL_TAPE_MB", "64", "TAPEQ_MHVTL_TAPES", "6", true);
    }

    private static Lab of(String name, String dirKey, String mbKey, String mb, String tapesKey, String tapes,
                          boolean mhvtl) {
        String dir = System.getenv(dirKey);
        if (dir == null || dir.isBlank()) {
            return null;
        }
        Path ssh = Path.of(dir, "vtl-ssh");
        if (!Files.isExecutable(ssh)) {
            throw new IllegalStateException(dirKey + "=" + dir + " but " + ssh + " is missing: is the lab up?");
        }
        return new Lab(name, Path.of(dir), Integer.parseInt(System.getenv().getOrDefault(mbKey, mb)),
                Integer.parseInt(System.getenv().getOrDefault(tapesKey, tapes)), mhvtl);
    }

    /** Barcode of cartridge {@code n} (from 1), in slot {@code n} after the lab's start. */
    String barcode(int n) {
        return mhvtl ? String.format("E01%03dL8", n) : String.format("VTL%03dL5", n);
    }

    /** The library's non-rewinding device of drive {@code index} (mtx numbering, from 0). */
    static String device(int index) {
        return "/dev/vtl/lun" + (index + 1) + "-nst";
    }

    ScsiSettings settings(int blockSize, long tapeTimeoutMillis) {
        return new ScsiSettings("/dev/vtl/changer", List.of(
                new ScsiSettings.Drive("d0", device(0), 0),
                new ScsiSettings.Drive("d1", device(1), 1)), blockSize, List.of(dir.resolve("vtl-ssh").toString()),
                120_000, tapeTimeoutMillis, 120_000, ScsiSettings.DEFAULT_DATA_MIN_RATE);
    }

    /** Runs a shell command line in the lab's guest; returns its output, fails on a non-zero exit. */
    String ssh(String line) throws IOException, InterruptedException {
        return exec(List.of(dir.resolve("vtl-ssh").toString(), line));
    }

    /** mhVTL's named faults ({@code vtl-fault tapealert 2 80000}, {@code library-offline}, ...). */
    String fault(String... words) throws IOException, InterruptedException {
        if (!mhvtl) {
            throw new IllegalStateException("the " + name + " lab has no vtl-fault");
        }
        List<String> argv = new ArrayList<>(List.of(dir.resolve("vtl-fault").toString()));
        argv.addAll(List.of(words));
        return exec(argv);
    }

    private static String exec(List<String> argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", argv) + " failed: " + out);
        }
        return out;
    }
}
