package org.tapeq.daemon.bridge;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

import org.tapeq.protocol.HeldDirectory;

/**
 * An exclusive lock on a file, held until closed (or until the process dies: the kernel releases it). Keeps a
 * second daemon off a request directory or a state directory.
 *
 * <p>Design notes. The JDK takes POSIX record locks (fcntl) on Linux, and the kernel drops every such lock a
 * process holds on a file as soon as the process closes <em>any</em> descriptor of that file. So nothing here
 * opens the lock file a second time while it is held: which file the lock is on is told by its identity
 * ({@code fileKey}: device and inode, from a stat that opens nothing), and a second taker inside this process is
 * refused from a table of held identities before it opens anything. A clean {@link #close} removes the file,
 * while still holding the lock, then releases it; a daemon that opened the file just before the removal could
 * then lock the removed file while a third one creates and locks a new one; so whoever takes the lock compares
 * the identity the path named before it opened the file with the one it names once locked, and takes the lock
 * again if they differ. After a kill -9 the file stays, and the next start takes it as before (the kernel
 * released the lock). The file is never opened through a symbolic link. The token written into it (the pid) is
 * for people. A request directory's lock is taken by name inside the base directory held open
 * ({@link #take(HeldDirectory, String, String)}), so a base renamed and replaced between the hold and the lock
 * cannot leave the directory served unlocked while the lock sits in the one put in its place.
 */
public final class ExclusiveLock implements AutoCloseable {

    /** Times the lock is taken again when the file it locked was removed meanwhile. */
    private static final int ATTEMPTS = 5;
    /** Identities of the lock files this process holds. */
    private static final Set<Object> HELD = new HashSet<>();

    /** Where the lock file is: named by a path, or by a name inside a directory held open. */
    private interface Place {
        /** Creates the file if missing (opening nothing this process may hold a lock on: the file is new). */
        void create() throws IOException;

        /** The identity of what the name denotes now (no link followed, nothing opened), or null if nothing. */
        Object key() throws IOException;

        /** Opens the file for writing, never through a link. */
        FileChannel open() throws IOException;

        void delete() throws IOException;

        /** For messages. */
        Path path();
    }

    /** The lock is held by another process (or another holder in this one): taking it may succeed later. */
    public static final class HeldException extends IOException {
        HeldException(String message) {
            super(message);
        }
    }

    /** How often {@link #takeWaiting} tries again while the lock is held. */
    private static final long RETRY_MILLIS = 500;

    private final Place place;
    private final FileChannel channel;
    private final Object key;

    private ExclusiveLock(Place place, FileChannel channel, Object key) {
        this.place = place;
        this.channel = channel;
        this.key = key;
    }

    /** Takes the lock on {@code file} (created if missing); fails naming {@code what} if another holds it. */
    public static ExclusiveLock take(Path file, String what) throws IOException {
        return take(new Place() {
            @Override
            public void create() throws IOException {
                try {
                    Files.createFile(file);
                } catch (FileAlreadyExistsException e) {
                    // as usual
                }
            }

            @Override
            public Object key() throws IOException {
                try {
                    return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
                } catch (NoSuchFileException e) {
                    return null;
                }
            }

            @Override
            public FileChannel open() throws IOException {
                return FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            }

            @Override
            public void delete() throws IOException {
                Files.deleteIfExists(file);
            }

            @Override
            public Path path() {
                return file;
            }
        }, what);
    }

    /**
     * Takes the lock on {@code name} inside {@code dir}, the directory held open (created if missing): the lock
     * is on the directory served, even if its path has since been made to name another one.
     */
    public static ExclusiveLock take(HeldDirectory dir, String name, String what) throws IOException {
        return take(new Place() {
            @Override
            public void create() throws IOException {
                try {
                    dir.openLockFile(name, true).close();
                } catch (FileAlreadyExistsException e) {
                    // as usual
                }
            }

            @Override
            public Object key() throws IOException {
                try {
                    return dir.attributes(name).fileKey();
                } catch (NoSuchFileException e) {
                    return null;
                }
            }

            @Override
            public FileChannel open() throws IOException {
                return dir.openLockFile(name, false);
            }

            @Override
            public void delete() throws IOException {
                dir.delete(name);
            }

            @Override
            public Path path() {
                return dir.resolve(name);
            }
        }, what);
    }

    /**
     * {@link #take(HeldDirectory, String, String)}, trying again every {@value #RETRY_MILLIS} ms while another
     * holds the lock, for at most {@code waitMillis}: a daemon that has just taken the site lease waits for the
     * deposed holder to let go of the directory. {@code waiting} is told why it waits, and null once it has the
     * lock or has given up.
     *
     * @throws HeldException if the lock is still held after {@code waitMillis}
     */
    public static ExclusiveLock takeWaiting(HeldDirectory dir, String name, String what, long waitMillis,
                                            Consumer<String> waiting) throws IOException {
        long deadline = System.nanoTime() + waitMillis * 1_000_000;
        try {
            while (true) {
                try {
                    return take(dir, name, what);
                } catch (HeldException e) {
                    long left = (deadline - System.nanoTime()) / 1_000_000;
                    if (left <= 0) {
                        throw new HeldException(e.getMessage() + "; still held after waiting " + waitMillis / 1000
                                + " s for it");
                    }
                    waiting.accept("waiting for the lock: " + e.getMessage());
                    try {
                        Thread.sleep(Math.min(RETRY_MILLIS, left));
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted waiting for the lock of " + what);
                    }
                }
            }
        } finally {
            waiting.accept(null);
        }
    }

    private static ExclusiveLock take(Place place, String what) throws IOException {
        Path file = place.path();
        for (int attempt = 1; ; attempt++) {
            place.create();
            Object before = place.key();
            synchronized (HELD) {
                if (before != null && HELD.contains(before)) {
                    throw new HeldException(what + " is in use by another tapeq daemon (" + file
                            + " is locked by this process)");
                }
            }
            FileChannel channel = place.open();
            try {
                if (!tryLock(channel)) {
                    throw new HeldException(what + " is in use by another tapeq daemon (" + file
                            + " is locked; its holder's pid is written in it)");
                }
                if (before != null && before.equals(place.key())) {
                    synchronized (HELD) {
                        HELD.add(before);
                    }
                    byte[] token = ("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
                    channel.truncate(0);
                    channel.write(ByteBuffer.wrap(token), 0);
                    return new ExclusiveLock(place, channel, before);
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

    /**
     * Removes the file if its name still denotes the file locked (never another daemon's), then releases the lock
     * (a clean stop leaves nothing behind).
     */
    @Override
    public void close() throws IOException {
        try {
            if (key.equals(place.key())) {
                place.delete();
            }
        } finally {
            try {
                channel.close(); // releases the lock
            } finally {
                synchronized (HELD) {
                    HELD.remove(key);
                }
            }
        }
    }
}
