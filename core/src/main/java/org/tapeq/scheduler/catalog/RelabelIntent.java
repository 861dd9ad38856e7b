package org.tapeq.scheduler.catalog;

import java.util.Objects;

/**
 * A cartridge the catalog has been told is being relabelled ({@code tapeq cartridge relabel}): recorded before the
 * new label is written, removed in the transaction that forgets the old tape files. One found at a restart means
 * the label may or may not be on tape; the relabel is run again (writing a label twice is harmless, trusting a
 * tape as empty whose label was never rewritten is not).
 *
 * @param barcode     the cartridge
 * @param family      the family of its new label
 * @param requestedAt loop time the relabel was asked for
 */
public record RelabelIntent(String barcode, String family, long requestedAt) {

    public RelabelIntent {
        Objects.requireNonNull(barcode, "barcode");
        Objects.requireNonNull(family, "family");
    }
}
