package org.tapeq.protocol;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The layout of one request directory (one per dCache HSM instance): {@code in/}, {@code out/},
 * {@code request/} and {@code trash/} below a base directory, and the name of every protocol file in them.
 * All methods that take a pnfsid check it, so a path built here never leaves its subdirectory.
 */
public final class RequestDirectory {
    public static final String IN = "in";
    public static final String OUT = "out";
    public static final String REQUEST = "request";
    public static final String TRASH = "trash";
    /** Subdirectories that must exist, in the order they are reported. */
    public static final List<String> SUBDIRECTORIES = List.of(IN, OUT, REQUEST, TRASH);

    /** {@code request/<pnfsid>.err}: the daemon's answer that a request failed. */
    public static final String ERROR_SUFFIX = ".err";
    /** {@code in/<pnfsid>.checksum}: checksums of a staged file, written by a tapeq daemon before the data. */
    public static final String CHECKSUM_SUFFIX = ".checksum";

    private final Path base;
    private final Path in;
    private final Path out;
    private final Path request;
    private final Path trash;

    private RequestDirectory(Path base) {
        this.base = base;
        this.in = base.resolve(IN);
        this.out = base.resolve(OUT);
        this.request = base.resolve(REQUEST);
        this.trash = base.resolve(TRASH);
    }

    public static RequestDirectory at(Path base) {
        return new RequestDirectory(base.toAbsolutePath().normalize());
    }

    /** Creates the base directory and its four subdirectories where missing (tests, demos, benchmarks). */
    public static RequestDirectory create(Path base) throws IOException {
        for (String name : SUBDIRECTORIES) {
            Files.createDirectories(base.resolve(name));
        }
        return at(base);
    }

    /**
     * What is wrong with the layout, one sentence per problem; empty when the base directory and all four
     * subdirectories exist as real directories (not symbolic links).
     */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!Files.isDirectory(base)) {
            problems.add(base + " is not a directory");
            return problems;
        }
        for (String name : SUBDIRECTORIES) {
            Path dir = base.resolve(name);
            if (Files.isSymbolicLink(dir)) {
                problems.add(dir + " is a symbolic link; it must be a directory on the pool's filesystem");
            } else if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                problems.add("missing subdirectory " + dir);
            } else if (!Files.isWritable(dir)) {
                problems.add(dir + " is not writable");
            }
        }
        return problems;
    }

    public Path base() {
        return base;
    }

    public Path inDir() {
        return in;
    }

    public Path outDir() {
        return out;
    }

    public Path requestDir() {
        return request;
    }

    public Path trashDir() {
        return trash;
    }

    public Path requestFile(String pnfsid) {
        return request.resolve(PnfsIds.requirePnfsId(pnfsid));
    }

    public Path errorFile(String pnfsid) {
        return request.resolve(PnfsIds.requirePnfsId(pnfsid) + ERROR_SUFFIX);
    }

    public Path inFile(String pnfsid) {
        return in.resolve(PnfsIds.requirePnfsId(pnfsid));
    }

    public Path checksumFile(String pnfsid) {
        return in.resolve(PnfsIds.requirePnfsId(pnfsid) + CHECKSUM_SUFFIX);
    }

    public Path outLink(String pnfsid) {
        return out.resolve(PnfsIds.requirePnfsId(pnfsid));
    }

    public Path trashFile(String bfid) {
        return trash.resolve(PnfsIds.requirePnfsId(bfid));
    }

    /** {@code <pnfsid>.err}, the name of an error file in {@code request/}. */
    public static String errorFileName(String pnfsid) {
        return PnfsIds.requirePnfsId(pnfsid) + ERROR_SUFFIX;
    }

    /** {@code <pnfsid>.checksum}, the name of a checksum file in {@code in/}. */
    public static String checksumFileName(String pnfsid) {
        return PnfsIds.requirePnfsId(pnfsid) + CHECKSUM_SUFFIX;
    }

    /**
     * The pnfsid an error file name belongs to ({@code <pnfsid>.err}), or null if {@code fileName} is not
     * an error file name.
     */
    public static String pnfsIdOfErrorFile(String fileName) {
        return stripSuffix(fileName, ERROR_SUFFIX);
    }

    /** The pnfsid a checksum file name belongs to, or null if {@code fileName} is not one. */
    public static String pnfsIdOfChecksumFile(String fileName) {
        return stripSuffix(fileName, CHECKSUM_SUFFIX);
    }

    private static String stripSuffix(String fileName, String suffix) {
        if (!fileName.endsWith(suffix)) {
            return null;
        }
        String id = fileName.substring(0, fileName.length() - suffix.length());
        return PnfsIds.isPnfsId(id) ? id : null;
    }

    @Override
    public String toString() {
        return base.toString();
    }
}
