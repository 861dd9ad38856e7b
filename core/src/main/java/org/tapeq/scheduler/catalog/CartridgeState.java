package org.tapeq.scheduler.catalog;

/** Life cycle of a cartridge as the catalog knows it. Administrative disabling is a separate flag. */
public enum CartridgeState {
    /** Seen in the library; its label has not been read yet. Not written until labelled. */
    UNKNOWN,
    /** Read: it has no label. Written only after an administrator labels it. */
    BLANK,
    /** Labelled by tapeq for a family; more tape files can be appended. */
    APPENDABLE,
    /** Closed for writing (tape full or nearly); readable. */
    FULL,
    /** Media errors were seen: readable but never written again. */
    SUSPECT,
    /** Carries a label that is not tapeq's or not this cartridge's. Never written. */
    FOREIGN,
    /**
     * Emptied by a repack: no live file is left on it, all its bytes are reclaimable. Never written again until
     * it is relabelled.
     */
    EMPTY;

    /** Whether tapeq may append to a cartridge in this state (ignoring the disabled flag). */
    public boolean writable() {
        return this == APPENDABLE;
    }
}
