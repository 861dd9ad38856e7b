package org.tapeq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.tapeq.daemon.rehearsal.SizeOnlyTapes;

/**
 * The daemon configuration the daemon benchmarks run with: one request directory named {@code bench}, the
 * size-only simulated library (the load test's barcodes and seed, {@link SizeOnlyTapes}), no label checks, no
 * HTTP port.
 */
final class BenchDaemonConfig {

    private BenchDaemonConfig() {
    }

    /**
     * Writes {@code base/tapeq.yaml} and returns it; {@code directoryKeys} are further keys of the request
     * directory (e.g. {@code "stageBuffer: 100TB"}).
     */
    static Path write(Path base, Path requestDir, Path state, double speed, int drives, int cartridges,
                      String... directoryKeys) throws IOException {
        List<String> lines = new ArrayList<>(List.of(
                "directories:",
                "  - path: " + requestDir,
                "    name: bench"));
        for (String key : directoryKeys) {
            lines.add("    " + key);
        }
        lines.addAll(List.of(
                "state: " + state,
                "library:",
                "  simulated:",
                "    data: size-only",
                "    speed: " + speed,
                "    drives: " + drives,
                "    cartridges: " + cartridges,
                "    barcodePrefix: " + SizeOnlyTapes.BARCODE_PREFIX,
                "    seed: " + SizeOnlyTapes.SEED,
                "scheduler:",
                "  checkLabels: false",
                "http:",
                "  bind: off",
                ""));
        Path file = base.resolve("tapeq.yaml");
        Files.writeString(file, String.join("\n", lines));
        return file;
    }
}
