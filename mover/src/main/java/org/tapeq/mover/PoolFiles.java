package org.tapeq.mover;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

import org.tapeq.protocol.HeldRequestDirectory;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.model.SourceAccess;

/**
 * The request directories on the shared pool filesystem whose files a data mover reads and writes itself (its
 * {@code pools.directories}, with {@code pools.shared: true}), held open from its start as the daemon holds them
 * ({@link HeldRequestDirectory}): a stage target is written through the held {@code in/} by the daemon's own rule
 * ({@link HeldRequestDirectory#openStageTarget}: a temporary name directly in {@code in/}, never through a
 * symbolic link), and a flush's source is read through the held {@code out/} ({@link #sources}). A path in no
 * configured directory, a path with {@code ..}, or a directory whose path names
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

    /**
     * Flush sources as a data mover reads them: files directly in a configured {@code out/}, looked at and read
     * through the held {@code out/} by the daemon's rule ({@link HeldRequestDirectory#sourceName}), never through a
     * link; anything else is refused with an IOException naming the path.
     */
    SourceAccess sources() {
        return sources;
    }

    private final SourceAccess sources = new SourceAccess() {
        @Override
        public BasicFileAttributes attributes(Path source) throws IOException {
            HeldRequestDirectory d = holding(source, false);
            return d.out().attributes(d.sourceName(source));
        }

        @Override
        public InputStream open(Path source) throws IOException {
            HeldRequestDirectory d = holding(source, false);
            return d.out().openRead(d.sourceName(source));
        }

        @Override
        public boolean pooled() {
            return true;
        }
    };

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
