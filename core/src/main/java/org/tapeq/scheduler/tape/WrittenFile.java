package org.tapeq.scheduler.tape;

/**
 * Where a tape file landed.
 *
 * @param fileNumber tape file number (0 = label)
 * @param startBlock block address of its first block
 * @param blockCount number of data blocks (the filemark after them is not counted)
 * @param bytes      bytes written
 */
public record WrittenFile(int fileNumber, long startBlock, long blockCount, long bytes) {
}
