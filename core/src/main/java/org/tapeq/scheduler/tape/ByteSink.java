package org.tapeq.scheduler.tape;

import java.io.IOException;
import java.io.OutputStream;

/** Where bytes read from tape go. {@link #DISCARD} drops them (size-only simulation, skipping). */
@FunctionalInterface
public interface ByteSink {

    ByteSink DISCARD = OutputStream::nullOutputStream;

    /** Opens the stream the backend writes to; the backend closes it. */
    OutputStream open() throws IOException;

    /**
     * The files this sink writes, for a library that can write them itself instead of handing it the bytes; null
     * (the default): the bytes only.
     */
    default StageFiles files() {
        return null;
    }

    /**
     * A size-only library read {@code delivered} bytes and hands over none of them: called once, on the thread that
     * would have copied the bytes (never the event loop when the library has a copy executor), so whatever the sink
     * makes for such a read - files of the right length - is made there. Default: nothing.
     */
    default void withoutBytes(long delivered) {
    }
}
