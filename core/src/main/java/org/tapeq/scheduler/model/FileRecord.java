package org.tapeq.scheduler.model;

/**
 * Where one file is on tape.
 *
 * <p>A file written by tapeq is a member of an aggregate: tape file {@code tapeFile} on {@code cartridge},
 * whose member data begins {@code offset} bytes into the tape file, in block {@code block} (an absolute
 * block address). A file imported from ENDIT tape hints knows only its cartridge and its order on it:
 * {@code tapeFile}, {@code block} and {@code offset} are -1 and {@code hintOrder} holds the order.
 *
 * @param checksum {@code type:hex}, e.g. {@code adler32:0a1b2c3d}, or null if unknown
 */
public record FileRecord(String pnfsid, String cartridge, int tapeFile, long block, long offset, long size,
                         String checksum, String storageClass, String path, String dataset, long hintOrder) {

    /** Whether the location came from a tape-hint import rather than from a tapeq write. */
    public boolean isHint() {
        return tapeFile < 0;
    }
}
