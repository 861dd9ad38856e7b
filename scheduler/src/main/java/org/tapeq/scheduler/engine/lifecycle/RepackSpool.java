package org.tapeq.scheduler.engine.lifecycle;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * Where a repack keeps the bytes it read until they are committed on their new cartridge: one directory per
 * source cartridge under the daemon's spool directory ({@code <state>/repack-spool/<VID>/}), a file per pnfsid.
 * A name without {@code .part} is a whole copy whose Adler-32 matched the catalog ({@link SpoolSink}); it is
 * removed only after its file was committed elsewhere, or when the repack ends. Every method does blocking
 * I/O: called on the engine's I/O executor, never on the loop.
 */
final class RepackSpool {

    static final String PART = ".part";

    private final Path root;

    RepackSpool(Path root) {
        this.root = root;
    }

    Path dir(String source) {
        if (source.isEmpty() || source.contains("/") || source.contains("\\") || source.startsWith(".")) {
            throw new IllegalArgumentException("cartridge '" + source + "' cannot name a spool directory");
        }
        return root.resolve(source);
    }

    Path file(String source, String pnfsid) {
        return dir(source).resolve(pnfsid);
    }

    Path part(String source, String pnfsid) {
        return dir(source).resolve(pnfsid + PART);
    }

    /**
     * Opens a cartridge's spool directory: creates it, removes partial copies and copies of files that are no
     * longer live on the source ({@code live}: they were committed elsewhere, or deleted), and returns the
     * whole copies kept (a resumed repack does not read them again; they are checked again when written).
     */
    Set<String> open(String source, Set<String> live) throws IOException {
        Path dir = dir(source);
        Files.createDirectories(dir);
        Set<String> kept = new HashSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                if (!name.endsWith(PART) && live.contains(name) && Files.isRegularFile(p)) {
                    kept.add(name);
                } else {
                    Files.delete(p);
                }
            }
        }
        force(dir);
        force(root);
        return kept;
    }

    /** Removes the copies of files committed elsewhere. */
    void remove(String source, Collection<String> pnfsids) throws IOException {
        for (String id : pnfsids) {
            Files.deleteIfExists(file(source, id));
        }
        force(dir(source));
    }

    /** Removes a cartridge's spool directory and everything in it. */
    void clear(String source) throws IOException {
        Path dir = dir(source);
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
        force(root);
    }

    /** Makes a directory's entries (created, renamed, removed files) durable. */
    static void force(Path dir) throws IOException {
        try (FileChannel c = FileChannel.open(dir, StandardOpenOption.READ)) {
            c.force(true);
        }
    }
}
