package org.tapeq.daemon.rehearsal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removal of the temporary working trees that the demo, the load-test harness and the benchmarks make. */
public final class ScratchTree {

    private ScratchTree() {
    }

    /**
     * Deletes {@code root} and everything under it, deepest first; nothing if it is null or missing. Best effort:
     * an entry that cannot be deleted stays (a leftover temporary directory is harmless).
     */
    public static void delete(Path root) throws IOException {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort, see above
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
