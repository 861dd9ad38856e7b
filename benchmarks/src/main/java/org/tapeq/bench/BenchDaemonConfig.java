package org.tapeq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
        Path file = base.resolve("tapeq.yaml");
        Files.writeString(file, SizeOnlyTapes.daemonYaml("bench", requestDir, state, speed, drives, cartridges,
                directoryKeys));
        return file;
    }
}
