package org.dcache.namespace;

/**
 * Declaration compatible with dCache's {@code FileAttribute} enum (dcache-vehicles), limited to the
 * constants tapeq uses; the names are dCache's.
 */
public enum FileAttribute {
    PNFSID,
    SIZE,
    STORAGECLASS,
    STORAGEINFO,
    CHECKSUM,
    HSM
}
