package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An exclusive lock on a file, held until closed (or until the process dies: the kernel releases it). Keeps a
 * second daemon off a request directory or a state directory.
 *
 * <p>Design notes. A clean {@link #close} removes the file, while still holding the lock, then releases it. A
 * daemon that opened the file just before the removal could then lock the removed file while a third one
 * creates and locks a new one; so whoever takes the lock writes a token of its own into it and reads it back
 * through the path: if the path names another file, the lock is on a removed file and is taken again. After a
 * kill -9 the file stays, and the next start takes it as before (the kernel released the lock). The file is
 * never opened through a symbolic link.
 */
public final class ExclusiveLock implements AutoCloseable {

    /** Times the lock is taken again when the file it locked was removed meanwhile. */
    private static final int ATTEMPTS = 5;

    private final Path file;
    private final FileChannel channel;

    private ExclusiveLock(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /** Takes the lock on {@code file} (created if missing); fails naming {@code what} if another holds it. */
    public static ExclusiveLock take(Path file, String what) throws IOException {
        for (int attempt = 1; ; attempt++) {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            try {
                if (!tryLock(channel)) {
                    throw new IOException(what + " is in use by another tapeq daemon (" + file + " is locked)");
                }
                byte[] token = ("pid " + ProcessHandle.current().pid() + " "
                        + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "\n")
                        .getBytes(StandardCharsets.US_ASCII);
                channel.truncate(0);
                channel.write(ByteBuffer.wrap(token), 0);
                if (Arrays.equals(token, readQuietly(file))) {
                    return new ExclusiveLock(file, channel);
                }
                if (attempt == ATTEMPTS) {
                    throw new IOException(what + ": " + file + " keeps being replaced while it is locked");
                }
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
            channel.close(); // the locked file was removed by the daemon that held it: take the new one
        }
    }

    /** Whether the lock was taken; false if another process, or this one through another channel, holds it. */
    private static boolean tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock() != null;
        } catch (OverlappingFileLockException e) {
            return false;
        }
    }

    private static byte[] readQuietly(Path file) throws IOException {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buffer = ByteBuffer.allocate(256);
            while (buffer.hasRemaining() && in.read(buffer) > 0) {
                // read up to the bound
            }
            return Arrays.copyOf(buffer.array(), buffer.position());
        } catch (NoSuchFileException e) {
            return new byte[0];
        }
    }

    /** Removes the file, then releases the lock (a clean stop leaves nothing behind). */
    @Override
    public void close() throws IOException {
        try {
            Files.deleteIfExists(file);
        } finally {
            channel.close(); // releases the lock
        }
    }
}
