package org.tapeq.scheduler.tape.sim;

import java.util.Arrays;

import org.tapeq.scheduler.tape.WrittenFile;

/**
 * The tape files recorded on one cartridge and their block addresses: tape file n occupies
 * {@code ceil(bytes / blockSize)} block addresses followed by one filemark address; the next file starts after
 * the filemark; end of data (EOD) is the address after the last filemark. Physically, data bytes are packed
 * back to back (filemarks take no capacity). Arrays rather than objects, so a 100 000-file tape stays cheap.
 */
final class TapeFileTable {

    private final int blockSize;
    private long[] startBlock = new long[8];
    private long[] bytes = new long[8];
    private long[] startOffset = new long[8];
    private int count;
    private long eodBlock;
    private long eodOffset;

    TapeFileTable(int blockSize) {
        this.blockSize = blockSize;
    }

    int count() {
        return count;
    }

    long eodBlock() {
        return eodBlock;
    }

    /** Bytes recorded; also the physical offset of end of data. */
    long eodOffset() {
        return eodOffset;
    }

    long startBlock(int file) {
        return startBlock[file];
    }

    long bytes(int file) {
        return bytes[file];
    }

    long startOffset(int file) {
        return startOffset[file];
    }

    long blocksFor(long fileBytes) {
        return (fileBytes + blockSize - 1) / blockSize;
    }

    /** What {@link #append} would record, without recording it. */
    WrittenFile next(long fileBytes) {
        return new WrittenFile(count, eodBlock, blocksFor(fileBytes), fileBytes);
    }

    WrittenFile append(long fileBytes) {
        WrittenFile written = next(fileBytes);
        if (count == startBlock.length) {
            int size = count * 2;
            startBlock = Arrays.copyOf(startBlock, size);
            bytes = Arrays.copyOf(bytes, size);
            startOffset = Arrays.copyOf(startOffset, size);
        }
        startBlock[count] = eodBlock;
        bytes[count] = fileBytes;
        startOffset[count] = eodOffset;
        count++;
        eodBlock += written.blockCount() + 1;
        eodOffset += fileBytes;
        return written;
    }

    /** Forgets tape file {@code keep} and every one after it: end of data is where {@code keep} started. */
    void truncate(int keep) {
        if (keep < count) {
            eodBlock = startBlock[keep];
            eodOffset = startOffset[keep];
            count = keep;
        }
    }

    void clear() {
        count = 0;
        eodBlock = 0;
        eodOffset = 0;
    }

    /** The tape file whose data blocks or filemark hold {@code block}; requires {@code 0 <= block < eodBlock}. */
    int fileAt(long block) {
        int index = Arrays.binarySearch(startBlock, 0, count, block);
        return index >= 0 ? index : -index - 2;
    }

    /** Physical byte offset of a block address ({@code 0 <= block <= eodBlock}). */
    long offsetOf(long block) {
        if (block >= eodBlock) {
            return eodOffset;
        }
        int file = fileAt(block);
        long within = block - startBlock[file];
        return startOffset[file] + Math.min(bytes[file], within * blockSize);
    }
}
