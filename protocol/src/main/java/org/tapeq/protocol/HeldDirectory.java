package org.tapeq.protocol;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A directory held open: every operation names a file inside it and is done relative to the open directory
 * ({@code openat}, {@code unlinkat}, {@code renameat} with {@code O_NOFOLLOW}), never by resolving the
 * directory's path again. Built for Java 11 (the provider uses it inside dCache).
 *
 * <p>Design notes.
 * <ul>
 * <li><b>Why.</b> Whoever can write the base directory (the pool user) can rename a subdirectory and put a
 *     symbolic link or another directory in its place while the daemon or the provider runs. Through the held
 *     handle, reads and writes still land in the directory that was opened at start, whatever its path names
 *     now; {@link #changed} tells that the path no longer names it, so the caller can stop serving it.</li>
 * <li><b>Names, not paths.</b> Every method takes a plain file name; one with a separator, {@code .} or
 *     {@code ..} is refused, so nothing here reaches outside the directory. The last component is never
 *     followed if it is a symbolic link.</li>
 * <li><b>What the handle cannot do.</b> Java has no {@code linkat}, so the provider's hard link into
 *     {@code out/} is made by path, and a rename into a directory not held ({@link #moveOut}, dCache's
 *     replica) resolves its target by path. Such a caller checks {@link #changed} first; the window between
 *     that check and the use is the residual race, documented in docs/provider.md.</li>
 * <li><b>Where it is not available.</b> The handle needs a {@link SecureDirectoryStream} (Linux and the other
 *     Unix JDKs have one). Without it {@link #open} fails: serving a directory unsafely is worse than not
 *     serving it.</li>
 * </ul>
 */
public final class HeldDirectory implements Closeable {

    private static final Path SELF = Path.of(".");
    /** Reading, never through a link: the options of every small read, made once. */
    private static final Set<OpenOption> READ = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);

    private final Path path;
    private final SecureDirectoryStream<Path> handle;
    private final Object identity;
    /** Whether the path may reach the directory through links (the configured base), or must name it itself. */
    private final boolean follow;

    private HeldDirectory(Path path, SecureDirectoryStream<Path> handle, boolean follow) throws IOException {
        this.path = path;
        this.handle = handle;
        this.follow = follow;
        try {
            this.identity = handle.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
        } catch (IOException | RuntimeException e) {
            handle.close();
            throw e;
        }
    }

    /** Opens {@code dir} (it may be reached through links: it is what the operator configured). */
    public static HeldDirectory open(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath().normalize();
        return new HeldDirectory(absolute, secure(Files.newDirectoryStream(absolute), absolute), true);
    }

    /** Opens {@code name} inside this directory, refusing a symbolic link. */
    public HeldDirectory openChild(String name) throws IOException {
        Path child = path.resolve(plain(name));
        try {
            return new HeldDirectory(child, secure(handle.newDirectoryStream(Path.of(name),
                    LinkOption.NOFOLLOW_LINKS), child), false);
        } catch (FileSystemException e) {
            if (isLink(name)) {
                throw new ProtocolException(child, "is a symbolic link; it must be a directory", e);
            }
            throw e;
        }
    }

    private static SecureDirectoryStream<Path> secure(DirectoryStream<Path> stream, Path dir) throws IOException {
        if (stream instanceof SecureDirectoryStream) {
            @SuppressWarnings("unchecked") // the default file system's secure streams are of Path
            SecureDirectoryStream<Path> s = (SecureDirectoryStream<Path>) stream;
            return s;
        }
        stream.close();
        throw new IOException(dir + ": this platform cannot hold a directory open (no SecureDirectoryStream); "
                + "refusing to serve it by path");
    }

    /** The path this directory was opened at, for messages. */
    public Path path() {
        return path;
    }

    /** {@code name}'s path, for messages and for components that can only take a path. */
    public Path resolve(String name) {
        return path.resolve(plain(name));
    }

    /**
     * Null while the path still names this very directory; otherwise what is there now, for an operator: a
     * symbolic link (and where it points), another directory, something else, or nothing.
     */
    public String changed() {
        BasicFileAttributes now;
        try {
            now = follow ? Files.readAttributes(path, BasicFileAttributes.class)
                    : Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return path + " is gone (it was renamed or removed)";
        } catch (IOException e) {
            return path + " cannot be checked: " + e;
        }
        if (now.isSymbolicLink()) {
            String target;
            try {
                target = String.valueOf(Files.readSymbolicLink(path));
            } catch (IOException e) {
                target = "?";
            }
            return path + " is now a symbolic link to " + target + "; it is not followed";
        }
        if (!now.isDirectory()) {
            return path + " is no longer a directory";
        }
        if (!Objects.equals(identity, now.fileKey())) {
            return path + " is now a different directory (" + now.fileKey() + ", opened as " + identity + ")";
        }
        return null;
    }

    /** The names in this directory, in no order. */
    public List<String> list() throws IOException {
        List<String> names = new ArrayList<>();
        forEachName(names::add);
        return names;
    }

    /**
     * Hands each name in this directory to {@code action} as it is read, in no order, without collecting them:
     * for directories of millions of entries. Entries added or removed meanwhile may or may not be seen.
     */
    public void forEachName(Consumer<String> action) throws IOException {
        try (DirectoryStream<Path> ds = handle.newDirectoryStream(SELF, LinkOption.NOFOLLOW_LINKS)) {
            for (Path p : ds) {
                action.accept(p.getFileName().toString());
            }
        }
    }

    /** {@code name}'s attributes, the entry itself (a link is not followed); NoSuchFileException if absent. */
    public BasicFileAttributes attributes(String name) throws IOException {
        return handle.getFileAttributeView(Path.of(plain(name)), BasicFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS).readAttributes();
    }

    /** Whether an entry named {@code name} is here (a link counts, and is not followed). */
    public boolean exists(String name) {
        try {
            attributes(name);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A cheap probe for a question whose usual answer is no: a lookup by path that builds no exception when the
     * file is absent (a dangling link counts as absent), confirmed through the handle when it says yes. A "no"
     * may come from whatever the path names now; use it only where a wrong "no" costs repeated work, never to
     * decide a read or write elsewhere. At a million requests, the exceptions {@link #exists} builds for absent
     * files took a third of the daemon's bridge thread at restart.
     */
    public boolean probablyExists(String name) {
        return Files.exists(resolve(name)) && exists(name);
    }

    /** Whether {@code name} is a symbolic link. */
    public boolean isLink(String name) {
        try {
            return attributes(name).isSymbolicLink();
        } catch (IOException e) {
            return false;
        }
    }

    /** Like {@link ProtocolFiles#readSmallFile(Path, int)}: refuses a link, a non-regular or too large file. */
    public byte[] readSmall(String name, int maxSize) throws IOException {
        return readSmall(name, maxSize, attributes(name));
    }

    /** As {@link #readSmall(String, int)}, with {@code attributes} just read from the entry. */
    public byte[] readSmall(String name, int maxSize, BasicFileAttributes attributes) throws IOException {
        return readSmall(name, maxSize, attributes,
                ByteBuffer.allocate((int) Math.min(maxSize, Math.max(0, attributes.size())) + 1));
    }

    /**
     * As {@link #readSmall(String, int, BasicFileAttributes)}, read into {@code scratch} (its content is replaced; a
     * larger buffer is taken when the file does not fit, up to {@code maxSize + 1} bytes). A thread reading many
     * files keeps one direct buffer of {@code maxSize + 1} bytes: each file is then read with no stream, no
     * temporary buffer and no copy but the returned array.
     */
    public byte[] readSmall(String name, int maxSize, BasicFileAttributes attributes, ByteBuffer scratch)
            throws IOException {
        Path file = resolve(name);
        ProtocolFiles.check(file, maxSize, attributes);
        ByteBuffer buffer = scratch;
        buffer.clear();
        buffer.limit(Math.min(buffer.capacity(), maxSize + 1));
        try (SeekableByteChannel in = openWith(name, READ)) {
            while (in.read(buffer) >= 0) {
                if (!buffer.hasRemaining()) {
                    if (buffer.limit() > maxSize) {
                        break; // one byte more than allowed: refused below
                    }
                    buffer = grown(buffer, maxSize + 1);
                }
            }
        } catch (FileSystemException e) {
            if (isLink(name)) {
                throw new ProtocolException(file, "became a symbolic link while being read, refused", e);
            }
            throw e;
        }
        if (buffer.position() > maxSize) {
            throw ProtocolFiles.grewBeyond(file, maxSize);
        }
        byte[] data = new byte[buffer.position()];
        buffer.flip();
        buffer.get(data);
        return data;
    }

    /** A buffer twice as large (at most {@code max} bytes) holding what {@code full} holds, ready to read on. */
    private static ByteBuffer grown(ByteBuffer full, int max) {
        ByteBuffer larger = ByteBuffer.allocate((int) Math.min(max, 2L * full.capacity()));
        full.flip();
        return larger.put(full);
    }

    /** Opens {@code name} for reading, never through a link. */
    public InputStream openRead(String name) throws IOException {
        return Channels.newInputStream(open(name, EnumSet.of(StandardOpenOption.READ)));
    }

    /**
     * Creates {@code name} anew for writing, never through a link: whatever is there first is removed (a file left by
     * an earlier attempt, a hard link to a file elsewhere, a FIFO, a link), so the channel is a new file no one else
     * holds open; a writer of an earlier attempt still running writes into the removed file, not this one.
     */
    public SeekableByteChannel createNew(String name) throws IOException {
        try {
            return createExclusive(name); // the usual case, nothing at the name: one system call
        } catch (FileAlreadyExistsException e) {
            delete(name);
            return createExclusive(name);
        }
    }

    /**
     * Creates {@code name} for writing; FileAlreadyExistsException if anything is at the name, a symbolic link
     * included (never followed).
     */
    public SeekableByteChannel createExclusive(String name) throws IOException {
        return open(name, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
    }

    /** Opens {@code name} for writing, created or truncated, never through a link. */
    public SeekableByteChannel openWrite(String name) throws IOException {
        return open(name, EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE));
    }

    /**
     * Opens {@code name} for writing without truncating it, never through a link, as a channel that can take a
     * file lock; with {@code create} it must not exist yet (FileAlreadyExistsException otherwise).
     */
    public FileChannel openLockFile(String name, boolean create) throws IOException {
        SeekableByteChannel channel = open(name, create
                ? EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
                : EnumSet.of(StandardOpenOption.WRITE));
        if (channel instanceof FileChannel) {
            return (FileChannel) channel;
        }
        channel.close();
        throw new IOException(resolve(name) + ": this platform gives no lockable channel inside a held directory");
    }

    private SeekableByteChannel open(String name, Set<StandardOpenOption> options) throws IOException {
        Set<OpenOption> all = new HashSet<>(options);
        all.add(LinkOption.NOFOLLOW_LINKS);
        return openWith(name, all);
    }

    /** Opens {@code name} with {@code options}, which include {@link LinkOption#NOFOLLOW_LINKS}. */
    private SeekableByteChannel openWith(String name, Set<OpenOption> options) throws IOException {
        return handle.newByteChannel(Path.of(plain(name)), options);
    }

    /**
     * Writes {@code data} to {@code name} atomically (a temporary name, then a rename over it); with
     * {@code durable} the data and the directory entry reach stable storage before this returns.
     */
    public void write(String name, byte[] data, boolean durable) throws IOException {
        String temporary = writeTemporary(name, data, durable);
        try {
            rename(temporary, name);
        } catch (IOException | RuntimeException e) {
            delete(temporary);
            throw e;
        }
        if (durable) {
            forceSelf();
        }
    }

    /**
     * Writes {@code data} under a fresh temporary name for {@code name} ({@link AtomicFiles#temporaryName}) and
     * returns that name; with {@code durable} its data is forced to stable storage. The caller renames it (or
     * deletes it); on failure nothing is left behind.
     */
    public String writeTemporary(String name, byte[] data, boolean durable) throws IOException {
        String temporary = AtomicFiles.temporaryName(plain(name));
        try (SeekableByteChannel channel = open(temporary, EnumSet.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE))) {
            ByteBuffer buffer = ByteBuffer.wrap(data);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            if (durable) {
                force(channel);
            }
        } catch (IOException | RuntimeException e) {
            delete(temporary);
            throw e;
        }
        return temporary;
    }

    /** Forces {@code name}'s data (and the metadata needed to read it) to stable storage. */
    public void forceFile(String name) throws IOException {
        try (SeekableByteChannel channel = open(name, EnumSet.of(StandardOpenOption.WRITE))) {
            force(channel);
        }
    }

    /**
     * Makes a complete file durable under its final name: forces {@code temporary}'s data, renames it over
     * {@code name} and forces the directory.
     */
    public void commit(String temporary, String name) throws IOException {
        forceFile(temporary);
        rename(temporary, name);
        forceSelf();
    }

    /** Renames {@code from} to {@code to} inside this directory, atomically replacing {@code to}. */
    public void rename(String from, String to) throws IOException {
        handle.move(Path.of(plain(from)), handle, Path.of(plain(to)));
    }

    /**
     * Renames {@code name} to {@code target}, an absolute path elsewhere on the same filesystem (dCache's
     * replica): the source is taken from this directory, the target is resolved by path.
     */
    public void moveOut(String name, Path target) throws IOException {
        if (!target.isAbsolute()) {
            throw new IllegalArgumentException("not an absolute path: " + target);
        }
        handle.move(Path.of(plain(name)), handle, target);
    }

    /** Removes {@code name} (a file or a link, never what a link points to); false if it was not there. */
    public boolean delete(String name) throws IOException {
        try {
            handle.deleteFile(Path.of(plain(name)));
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /** Forces this directory's entries to stable storage. */
    public void forceSelf() throws IOException {
        try (SeekableByteChannel channel = handle.newByteChannel(SELF, EnumSet.of(StandardOpenOption.READ))) {
            force(channel);
        }
    }

    private static void force(SeekableByteChannel channel) throws IOException {
        if (channel instanceof FileChannel) {
            ((FileChannel) channel).force(true);
        }
    }

    /** {@code name} if it is one plain file name; an IllegalArgumentException otherwise. */
    private static String plain(String name) {
        if (name.isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0 || ".".equals(name)
                || "..".equals(name)) {
            throw new IllegalArgumentException("not a plain file name: '" + name + "'");
        }
        return name;
    }

    @Override
    public void close() throws IOException {
        handle.close();
    }

    @Override
    public String toString() {
        return path.toString();
    }

    /** Closes every directory, keeping the first failure. */
    public static void closeAll(HeldDirectory... directories) throws IOException {
        IOException first = null;
        for (HeldDirectory d : Arrays.asList(directories)) {
            try {
                if (d != null) {
                    d.close();
                }
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
