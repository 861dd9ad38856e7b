package org.tapeq.scheduler.format;

import java.nio.file.Path;
import java.util.Objects;

import org.tapeq.scheduler.model.SourceAccess;

/**
 * A file to put into an aggregate.
 *
 * @param pnfsid       dCache file id; also the member's name in the tar archive
 * @param size         announced size in bytes
 * @param checksum     {@code type:hex} as dCache announced it (e.g. {@code adler32:0a1b2c3d}), or null; only
 *                     Adler-32 is verified, other types are carried unchanged
 * @param storageClass dCache storage class, or null
 * @param path         the file's dCache path, or null
 * @param dataset      co-location key, or null
 * @param source       the file to read the data from, or null for a size-only member (simulation, planning)
 * @param access       how {@code source} is looked at and read (by path, or relative to a directory held open)
 */
public record AggregateMember(String pnfsid, long size, String checksum, String storageClass, String path,
                              String dataset, Path source, SourceAccess access) {

    /** A member whose source is read by its path. */
    public AggregateMember(String pnfsid, long size, String checksum, String storageClass, String path,
                           String dataset, Path source) {
        this(pnfsid, size, checksum, storageClass, path, dataset, source, SourceAccess.BY_PATH);
    }

    public AggregateMember {
        Objects.requireNonNull(pnfsid, "pnfsid");
        Objects.requireNonNull(access, "access");
        if (size < 0) {
            throw new IllegalArgumentException(pnfsid + ": negative size " + size);
        }
    }

    /** The same member with another checksum. */
    public AggregateMember withChecksum(String newChecksum) {
        return new AggregateMember(pnfsid, size, newChecksum, storageClass, path, dataset, source, access);
    }
}
