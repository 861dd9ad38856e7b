package org.tapeq.scheduler.catalog;

import java.util.List;
import java.util.Objects;

/**
 * What the last verification of a cartridge found ({@code tapeq cartridge verify}).
 *
 * @param verifiedAt  loop time the verification ended
 * @param sampled     whether only a sample of its aggregates was read
 * @param filesGood   files whose checksum matched the catalog's (or that carry none tapeq can check)
 * @param filesBad    files whose checksum differed
 * @param filesUnreadable files that could not be read (media error, tape file shorter than recorded)
 * @param summary     the counts and the first bad and unreadable files named, or "all good"
 * @param findings    every bad and unreadable file, each with its tape file and why
 */
public record Verification(String barcode, long verifiedAt, boolean sampled, int filesGood, int filesBad,
                           int filesUnreadable, String summary, List<Finding> findings) {

    /** One file a verification found bad ({@code bad}: its checksum differed) or unreadable, and why. */
    public record Finding(String pnfsid, int tapeFile, boolean bad, String reason) {
        public Finding {
            Objects.requireNonNull(pnfsid, "pnfsid");
            Objects.requireNonNull(reason, "reason");
        }
    }

    public Verification {
        findings = List.copyOf(findings);
    }

    /** Whether every file read matched. */
    public boolean good() {
        return filesBad == 0 && filesUnreadable == 0;
    }
}
