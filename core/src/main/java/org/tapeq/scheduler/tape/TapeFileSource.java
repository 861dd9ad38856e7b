package org.tapeq.scheduler.tape;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The content of one tape file to write. Its length is known in advance; a backend that only models sizes
 * never calls {@link #writeTo}. {@link #writeTo} must write exactly {@link #length()} bytes or throw.
 */
public interface TapeFileSource {

    long length();

    void writeTo(OutputStream out) throws IOException;

    /**
     * The described form of these bytes, for a library that can produce them from the files itself (a data mover
     * on the shared pool filesystem); null (the default): the bytes only, through {@link #writeTo}.
     */
    default DescribedSource described() {
        return null;
    }
}
