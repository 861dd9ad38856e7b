package org.tapeq.scheduler.catalog;

/**
 * What the last verification of a cartridge found ({@code tapeq cartridge verify}).
 *
 * @param verifiedAt  loop time the verification ended
 * @param sampled     whether only a sample of its aggregates was read
 * @param filesGood   files whose checksum matched the catalog's (or that carry none tapeq can check)
 * @param filesBad    files whose checksum differed
 * @param filesUnreadable files that could not be read (media error, tape file shorter than recorded)
 * @param summary     the bad and unreadable files named, or "all good"
 */
public record Verification(String barcode, long verifiedAt, boolean sampled, int filesGood, int filesBad,
                           int filesUnreadable, String summary) {

    /** Whether every file read matched. */
    public boolean good() {
        return filesBad == 0 && filesUnreadable == 0;
    }
}
