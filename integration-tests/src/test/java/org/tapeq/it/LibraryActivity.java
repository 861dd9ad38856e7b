package org.tapeq.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a simulated library keeps on disk ({@code library.simulated.dir}), read from outside the daemon that drives
 * it, for tests that assert the daemon gave it no command for a while: each cartridge's journal (a line per tape
 * file written or label) and data files (a tape write in progress is a {@code .tmp} file, a finished one a
 * {@code .dat}), and, when asked, which cartridge is in which drive ({@code drives.state}: mounts and unmounts).
 * Reads leave no trace here.
 */
final class LibraryActivity {

    private LibraryActivity() {
    }

    /** What a library holds on disk, read from outside; {@link #settled} waits for it to stop changing. */
    interface Reading {
        List<String> read() throws IOException;
    }

    /**
     * The library's activity once it has stayed the same for {@code stableMillis} (read every 100 ms): a command
     * given before the test's cut (a write whose checks passed just before it) has ended. Fails if it still
     * changes after {@code maxMillis}.
     */
    static List<String> settled(Reading reading, long stableMillis, long maxMillis)
            throws IOException, InterruptedException {
        long start = System.nanoTime();
        List<String> last = reading.read();
        long since = start;
        while (System.nanoTime() - since < stableMillis * 1_000_000) {
            if (System.nanoTime() - start > maxMillis * 1_000_000) {
                throw new AssertionError("the library still changed " + maxMillis + " ms after the cut: " + last);
            }
            Thread.sleep(100);
            List<String> now = reading.read();
            if (!now.equals(last)) {
                last = now;
                since = System.nanoTime();
            }
        }
        return last;
    }

    /** Tape writes started or finished: the cartridges' journals and data file names, one line each. */
    static List<String> writes(Path simlib) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> cartridges = Files.list(simlib)) {
            for (Path c : cartridges.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> files = Files.list(c)) {
                    for (Path f : files.sorted().toList()) {
                        String name = f.getFileName().toString();
                        if (name.equals("journal")) {
                            lines.add(c.getFileName() + "/journal " + Files.readAllLines(f).size() + " lines");
                        } else if (name.endsWith(".tmp") || name.endsWith(".dat")) {
                            lines.add(c.getFileName() + "/" + name);
                        }
                    }
                } catch (java.nio.file.NoSuchFileException e) {
                    lines.add(c.getFileName() + " (gone while read)");
                }
            }
        }
        return lines;
    }

    /** {@link #writes} and the cartridges in the drives: any mount, unmount or tape write changes it. */
    static List<String> writesAndMounts(Path simlib) throws IOException {
        List<String> lines = new ArrayList<>(writes(simlib));
        Path drives = simlib.resolve("drives.state");
        lines.add("drives.state: " + (Files.exists(drives) ? Files.readString(drives).strip().replace('\n', ';')
                : "none"));
        return lines;
    }

    /** Number of tape files written (journal lines starting with {@code F}) over all cartridges. */
    static int tapeFiles(Path simlib) throws IOException {
        int n = 0;
        try (Stream<Path> cartridges = Files.list(simlib)) {
            for (Path c : cartridges.filter(Files::isDirectory).toList()) {
                Path journal = c.resolve("journal");
                if (Files.exists(journal)) {
                    n += (int) Files.readAllLines(journal).stream().filter(l -> l.startsWith("F ")).count();
                }
            }
        }
        return n;
    }
}
