package org.tapeq.protocol;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes protocol files atomically: the bytes go to a temporary file in the same directory whose name
 * starts with a dot (so it can never match the pnfsid pattern), which is then renamed over the target.
 * Readers see either the old file, no file, or the complete new one.
 */
public final class AtomicFiles {
    /** Every temporary name starts with this prefix and ends with {@link #TEMPORARY_SUFFIX}. */
    public static final String TEMPORARY_PREFIX = ".";
    public static final String TEMPORARY_SUFFIX = ".tmp";

    private AtomicFiles() {
    }

    /** Writes {@code data} to {@code target} atomically, replacing an existing file. */
    public static void write(Path target, byte[] data) throws IOException {
        write(target, data, false);
    }

    /**
     * Writes {@code data} to {@code target} atomically; with {@code durable} the data and the directory entry
     * are also forced to stable storage before this returns.
     */
    public static void write(Path target, byte[] data, boolean durable) throws IOException {
        Path temporary = temporarySibling(target);
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(data);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                if (durable) {
                    channel.force(true);
                }
            }
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
        if (durable) {
            forceDirectory(target.getParent());
        }
    }

    /**
     * Makes a complete file durable under its final name: forces {@code temporary}'s data to disk, renames it
     * atomically to {@code target} (replacing it) and forces the directory, so after a crash {@code target}
     * is either absent or whole.
     */
    public static void commit(Path temporary, Path target) throws IOException {
        try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
        forceDirectory(target.getParent());
    }

    /** A fresh temporary name next to {@code target}: {@code .<name>.<random>.tmp}. */
    public static Path temporarySibling(Path target) {
        return target.resolveSibling(temporaryName(target.getFileName().toString()));
    }

    /** A fresh temporary name for a file named {@code name}: {@code .<name>.<random>.tmp}. */
    public static String temporaryName(String name) {
        String random = Long.toHexString(ThreadLocalRandom.current().nextLong());
        return TEMPORARY_PREFIX + name + '.' + random + TEMPORARY_SUFFIX;
    }

    /** Whether {@code fileName} is a temporary name as made by {@link #temporarySibling}. */
    public static boolean isTemporaryName(String fileName) {
        return fileName.startsWith(TEMPORARY_PREFIX) && fileName.endsWith(TEMPORARY_SUFFIX);
    }

    private static void forceDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
