package org.tapeq.protocol;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A request directory whose base and four subdirectories are held open ({@link HeldDirectory}) from start
 * to close: file access through it never leaves the directories that were opened, whatever happens to their
 * paths meanwhile. {@link #changed} tells when a path no longer names what was opened.
 */
public final class HeldRequestDirectory implements Closeable {

    private final RequestDirectory layout;
    private final HeldDirectory base;
    private final HeldDirectory in;
    private final HeldDirectory out;
    private final HeldDirectory request;
    private final HeldDirectory trash;

    private HeldRequestDirectory(RequestDirectory layout, HeldDirectory base, HeldDirectory in, HeldDirectory out,
                                 HeldDirectory request, HeldDirectory trash) {
        this.layout = layout;
        this.base = base;
        this.in = in;
        this.out = out;
        this.request = request;
        this.trash = trash;
    }

    /** Opens the base directory and its subdirectories; a subdirectory that is a symbolic link is refused. */
    public static HeldRequestDirectory open(RequestDirectory layout) throws IOException {
        HeldDirectory base = HeldDirectory.open(layout.base());
        List<HeldDirectory> subs = new ArrayList<>();
        try {
            for (String name : RequestDirectory.SUBDIRECTORIES) {
                subs.add(base.openChild(name));
            }
        } catch (IOException | RuntimeException e) {
            subs.add(base);
            HeldDirectory.closeAll(subs.toArray(new HeldDirectory[0]));
            throw e;
        }
        return new HeldRequestDirectory(layout, base, subs.get(0), subs.get(1), subs.get(2), subs.get(3));
    }

    public RequestDirectory layout() {
        return layout;
    }

    public HeldDirectory base() {
        return base;
    }

    public HeldDirectory in() {
        return in;
    }

    public HeldDirectory out() {
        return out;
    }

    public HeldDirectory request() {
        return request;
    }

    public HeldDirectory trash() {
        return trash;
    }

    /**
     * The held subdirectory {@code file} is directly in, for code that names files by {@link RequestDirectory}'s
     * paths; an IllegalArgumentException for a path elsewhere.
     */
    public HeldDirectory holding(Path file) {
        Path parent = file.getParent();
        for (HeldDirectory d : new HeldDirectory[] {in, out, request, trash}) {
            if (d.path().equals(parent)) {
                return d;
            }
        }
        throw new IllegalArgumentException(file + " is not in a subdirectory of " + layout);
    }

    /**
     * Creates {@code target} anew for writing through the held {@code in/} ({@link HeldDirectory#createNew}: a file,
     * hard link or FIFO left at the name is removed first, so no earlier writer shares the new file), never through
     * a symbolic link: how a stage's bytes are written into {@code in/}, by the daemon and by a data mover on the
     * shared pool filesystem alike. {@code target} must be a temporary name ({@code .NAME.tmp}, renamed into
     * place once delivered) directly in {@code in/} as this directory's layout names it; anything else (another
     * directory, a path with {@code ..}, a final name, a symbolic link at the name) is refused with an
     * IOException naming it.
     */
    public SeekableByteChannel openStageTarget(Path target) throws IOException {
        if (target == null || !layout.inDir().equals(target.getParent())) {
            throw new IOException(target + " is not in " + layout.inDir());
        }
        String name = target.getFileName().toString();
        if (!AtomicFiles.isTemporaryName(name)) {
            throw new ProtocolException(target, "is not a temporary name (.NAME" + AtomicFiles.TEMPORARY_SUFFIX
                    + "); a stage is written under one and renamed into place", null);
        }
        try {
            return in.createExclusive(name); // the usual case, nothing at the name: one system call
        } catch (FileAlreadyExistsException e) {
            if (in.isLink(name)) {
                throw new ProtocolException(target, "is a symbolic link; a stage target is never written through one",
                        null);
            }
        }
        try {
            return in.createNew(name); // a file of an earlier attempt (or a hard link, a FIFO): removed first
        } catch (IOException e) { // ELOOP comes as a FileSystemException without the name
            if (in.isLink(name)) {
                throw new ProtocolException(target, "is a symbolic link; a stage target is never written through one",
                        e);
            }
            throw e;
        }
    }

    /**
     * The name of {@code source}, a flush's source file directly in {@code out/} as this directory's layout names
     * it, to be looked at and read through the held {@code out/}; an IOException for any other path.
     */
    public String sourceName(Path source) throws IOException {
        if (source == null || !layout.outDir().equals(source.getParent())) {
            throw new IOException("is not in " + layout.outDir());
        }
        return source.getFileName().toString();
    }

    /**
     * Null while every path still names the directory opened at start; otherwise what changed, one sentence
     * per directory, for an operator.
     */
    public String changed() {
        List<String> found = new ArrayList<>();
        for (HeldDirectory d : new HeldDirectory[] {base, in, out, request, trash}) {
            String c = d.changed();
            if (c != null) {
                found.add(c);
            }
        }
        return found.isEmpty() ? null : String.join("; ", found);
    }

    @Override
    public void close() throws IOException {
        HeldDirectory.closeAll(in, out, request, trash, base);
    }

    @Override
    public String toString() {
        return layout.toString();
    }
}
