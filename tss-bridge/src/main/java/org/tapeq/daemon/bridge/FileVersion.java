package org.tapeq.daemon.bridge;

import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * A request file's identity when it was read: its file key (device and inode) and modification time. Providers
 * write request files under a temporary name and rename them into place, and the ENDIT provider's in-place writes
 * change the modification time, so a request file rewritten since is a different version.
 *
 * <p>Design notes. A directory may hold ten million requests, so a queued request keeps its version as three
 * numbers ({@link Tracked}), not as a string or an object. The JDK's Linux file key prints as
 * {@code (dev=HEX,ino=N)}; it is taken apart here, on the intake pool's threads that read the file, never on a
 * bridge's thread. A key of any other form (another platform) is kept as its string. Exact both ways: a key is
 * taken apart only if putting it together again gives the same string, and {@link #toString} is the form
 * {@code KEY@MILLIS} the bridge has always logged.
 */
final class FileVersion {

    private static final String DEV = "(dev=";
    private static final String INO = ",ino=";
    private static final String END = ")";

    /** Device and inode, when the key has the Linux form ({@link #key} null). */
    private final long dev;
    private final long ino;
    /** The key as the JDK prints it, when it has another form; else null. */
    private final String key;
    private final long millis;

    private FileVersion(long dev, long ino, String key, long millis) {
        this.dev = dev;
        this.ino = ino;
        this.key = key;
        this.millis = millis;
    }

    /** The version of a file with these attributes. */
    static FileVersion of(BasicFileAttributes a) {
        return of(String.valueOf(a.fileKey()), a.lastModifiedTime().toMillis());
    }

    /** The version of a file whose key prints as {@code key}, modified at {@code millis}. */
    static FileVersion of(String key, long millis) {
        long[] parts = parseKey(key);
        return parts == null ? new FileVersion(0, 0, key, millis) : new FileVersion(parts[0], parts[1], null, millis);
    }

    /** A version kept as numbers by {@link #numbers}: the Linux form, {@code key} null. */
    static FileVersion of(long dev, long ino, long millis) {
        return new FileVersion(dev, ino, null, millis);
    }

    /** Whether this version is three numbers ({@link #dev}, {@link #ino}, {@link #millis}) and no string. */
    boolean numbers() {
        return key == null;
    }

    long dev() {
        return dev;
    }

    long ino() {
        return ino;
    }

    /** The key's string when it is not of the Linux form, else null. */
    String key() {
        return key;
    }

    long millis() {
        return millis;
    }

    /** {dev, ino} of a key printed as {@code (dev=HEX,ino=N)}, or null if it has another form. */
    private static long[] parseKey(String k) {
        if (!k.startsWith(DEV) || !k.endsWith(END)) {
            return null;
        }
        int ino = k.indexOf(INO);
        if (ino < 0) {
            return null;
        }
        try {
            long dev = Long.parseUnsignedLong(k, DEV.length(), ino, 16);
            long inode = Long.parseLong(k, ino + INO.length(), k.length() - END.length(), 10);
            return formatKey(dev, inode).equals(k) ? new long[] {dev, inode} : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String formatKey(long dev, long ino) {
        return DEV + Long.toHexString(dev) + INO + ino + END;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileVersion v && v.dev == dev && v.ino == ino && v.millis == millis
                && Objects.equals(v.key, key);
    }

    @Override
    public int hashCode() {
        return Objects.hash(dev, ino, key, millis);
    }

    /** {@code KEY@MILLIS}, the key as the JDK prints it. */
    @Override
    public String toString() {
        return (key == null ? formatKey(dev, ino) : key) + "@" + millis;
    }
}
