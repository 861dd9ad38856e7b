package org.tapeq.loadtest.run;

import java.util.Locale;

/**
 * One file of a run: written (flushed) or recalled (staged) by experiment {@code experiment} (index into the
 * scenario's list). {@code atMillis}: when a DT writes it, in library time from the start; 0 otherwise.
 * {@code path} is null for burst files (the pool then shares one storage-info object per class).
 */
public record PlannedFile(String pnfsid, long size, String storageClass, String path, int experiment, int dataset,
                          long atMillis) {

    /**
     * The Adler-32 of {@code size} zero bytes (A stays 1, B adds 1 per byte): the harness's files are sparse
     * (zeros), so their checksum is known without reading them, and the provider checks staged files against it.
     */
    public long adler32() {
        return adler32(size);
    }

    /** {@link #adler32()} as dCache writes it: {@code %08x}. */
    public String adler32Hex() {
        return adler32Hex(size);
    }

    /** The Adler-32 of {@code size} zero bytes. */
    static long adler32(long size) {
        return (size % 65521) << 16 | 1;
    }

    /** {@link #adler32(long)} as dCache writes it. */
    static String adler32Hex(long size) {
        return String.format(Locale.ROOT, "%08x", adler32(size));
    }
}
