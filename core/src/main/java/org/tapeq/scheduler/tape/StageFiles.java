package org.tapeq.scheduler.tape;

import java.nio.file.Path;
import java.util.List;

/**
 * The described form of a {@link ByteSink} that splits a read into files: which files get which bytes. A library
 * whose drives sit on a host that reaches the same files (a data mover on the shared pool filesystem) may write
 * them itself instead of handing the bytes over, and then reports what it did ({@link #reported}); the sink's
 * owner checks the reports (sizes, checksums) exactly as it checks bytes it wrote itself.
 */
public interface StageFiles {

    /**
     * One file: the read's bytes {@code offset..offset+size} (offset 0 is the first byte the read delivers) go to
     * {@code target} (null: no file, the bytes are only checksummed); {@code checksum} is the expected one
     * ({@code adler32:hex}), or null.
     */
    record Member(Path target, long offset, long size, String checksum) { }

    /**
     * What one file got: {@code bytes} written (forced to stable storage), their {@code checksum}
     * ({@code adler32:hex}; null when the library delivered no bytes at all, a size-only library), or why the
     * file could not be written ({@code error}, null: none).
     */
    record Result(long bytes, String checksum, String error) { }

    List<Member> members();

    /**
     * The library wrote the files itself: {@code delivered} bytes were read, {@code results} holds one result per
     * member in order. Called once, before the read's completion, instead of any byte reaching {@link ByteSink#open}.
     */
    void reported(long delivered, List<Result> results);
}
