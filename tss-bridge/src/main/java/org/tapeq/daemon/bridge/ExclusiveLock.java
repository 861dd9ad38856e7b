package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a file, held until closed (or until the process dies: the kernel releases it). Keeps a
 * second daemon off a request directory or a state directory.
 */
public final class ExclusiveLock implements AutoCloseable {

    private final FileChannel channel;

    private ExclusiveLock(FileChannel channel) {
        this.channel = channel;
    }

    /** Takes the lock on {@code file} (created if missing); fails naming {@code what} if another holds it. */
    public static ExclusiveLock take(Path file, String what) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            if (channel.tryLock() == null) {
                throw new IOException(what + " is in use by another tapeq daemon (" + file + " is locked)");
            }
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return new ExclusiveLock(channel);
    }

    @Override
    public void close() throws IOException {
        channel.close(); // releases the lock
    }
}
