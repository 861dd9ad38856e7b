package org.tapeq.scheduler.tape;

import org.tapeq.scheduler.model.TapeFault;

/**
 * Checks that a cartridge carries the label of its barcode, from the first bytes of its tape file 0. A backend
 * that guards its own writes is given one (the SCSI library checks before the first append after a mount); the
 * on-tape format module supplies it ({@code TapeLabel::parseFor}), so no backend depends on the format.
 */
@FunctionalInterface
public interface LabelVerifier {

    /**
     * @param firstBytesOfTapeFile0 what the start of tape file 0 holds (empty if the tape is blank)
     * @param barcode               the cartridge in the drive
     * @throws TapeFault of kind {@code LABEL} if tape file 0 is not the label of {@code barcode}
     */
    void verify(byte[] firstBytesOfTapeFile0, String barcode) throws TapeFault;
}
