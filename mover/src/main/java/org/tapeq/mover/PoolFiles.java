package org.tapeq.mover;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.tapeq.protocol.HeldRequestDirectory;
import org.tapeq.protocol.RequestDirectory;

/**
 * The request directories on the shared pool filesystem whose files a data mover reads and writes itself (its
 * {@code pools.directories}, with {@code pools.shared: true}), held open from its start as the daemon holds them
 * ({@link HeldRequestDirectory}): a stage target is written through the held {@code in/} by the daemon's own rule
 * ({@link HeldRequestDirectory#openStageTarget}: a temporary name directly in {@code in/}, never through a
 * symbolic link). A path in no configured directory, a path with {@code ..}, or a directory whose path names
 * something else since the mover opened it (replaced by a link while running) is refused with an error naming
 * the path. Immutable after {@link #open}; its methods are called from the library's copy threads.
 */
public final class PoolFiles implements AutoCloseable {

    private final String mover;
    private final List<HeldRequestDirectory> directories;

    private PoolFiles(String mover, List<HeldRequestDirectory> directories) {
        this.mover = mover;
        this.directories = List.copyOf(directories);
    }

    /**
     * Opens the request directories at {@code bases} for mover {@code mover}; one that is missing, incomplete or
     * has a symbolic link for a subdirectory fails the start with an IOException naming it.
     */
    public static PoolFiles open(String mover, List<Path> bases) throws IOException {
        List<HeldRequestDirectory> held = new ArrayList<>();
        try {
            for (Path base : bases) {
                RequestDirectory layout = RequestDirectory.at(base);
                List<String> problems = layout.problems();
                if (!problems.isEmpty()) {
                    throw new IOException("mover " + mover + ": pool request directory " + layout.base()
                            + " cannot be used: " + String.join("; ", problems));
                }
                held.add(HeldRequestDirectory.open(layout));
            }
        } catch (IOException | RuntimeException e) {
            for (HeldRequestDirectory d : held) {
                closeQuietly(d);
            }
            throw e;
        }
        return new PoolFiles(mover, held);
    }

    /** The request directories' bases, for messages and the log. */
    public List<Path> bases() {
        return directories.stream().map(d -> d.layout().base()).toList();
    }

    /** Opens the stage target {@code target} for writing, or refuses it with an IOException naming it. */
    SeekableByteChannel openStageTarget(Path target) throws IOException {
        return holding(target, true).openStageTarget(target);
    }

    /** The held request directory whose {@code in/} (or {@code out/}) {@code file} is directly in, still unchanged. */
    private HeldRequestDirectory holding(Path file, boolean in) throws IOException {
        if (file == null || !file.isAbsolute() || !file.equals(file.normalize())) {
            throw new IOException("mover " + mover + " refuses " + file + ": not an absolute path without . or ..");
        }
        for (HeldRequestDirectory d : directories) {
            Path dir = in ? d.layout().inDir() : d.layout().outDir();
            if (dir.equals(file.getParent())) {
                String changed = d.changed();
                if (changed != null) {
                    throw new IOException("mover " + mover + " refuses " + file + ": its request directory changed "
                            + "since the mover opened it (" + changed + "); restore it and restart the mover");
                }
                return d;
            }
        }
        throw new IOException("mover " + mover + " refuses " + file + ": not directly in the " + (in ? "in/" : "out/")
                + " directory of its pools.directories " + bases());
    }

    @Override
    public void close() {
        directories.forEach(PoolFiles::closeQuietly);
    }

    private static void closeQuietly(HeldRequestDirectory d) {
        try {
            d.close();
        } catch (IOException ignored) {
            // closing a directory handle: nothing to do about it
        }
    }
}
