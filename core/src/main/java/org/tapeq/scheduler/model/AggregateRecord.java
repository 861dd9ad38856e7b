package org.tapeq.scheduler.model;

/**
 * One aggregate: one tape file holding a manifest and one or more members.
 *
 * @param startBlock  block address of the tape file's first block
 * @param blockCount  data blocks in the tape file
 * @param blockSize   bytes per block it was written with
 * @param bytes       length of the tape file in bytes
 * @param dataset     co-location key shared by its members (or the first member's, if mixed)
 * @param writtenAt   loop time of the catalog commit
 */
public record AggregateRecord(String cartridge, int tapeFile, long startBlock, long blockCount, int blockSize,
                              long bytes, int memberCount, String family, String dataset, long writtenAt) {
}
