package org.tapeq.scheduler.tape;

import java.util.Objects;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;

/**
 * What a {@link TapeLibrary#flush} must find on the drive for the tape files it makes durable to be the ones the
 * writer holds: the cartridge they were appended to, and the last of them (tape file {@code lastFile}) ending with
 * its filemark at block {@code endOfData - 1}, which is end of data unless a failed append left a short tape file
 * after it. A drive that was reset or power-cycled, or
 * whose cartridge was exchanged, after the buffered appends still answers a WRITE FILEMARKS of 0 marks; only this
 * check tells that the buffered files were lost.
 *
 * @param barcode   the cartridge the held tape files were appended to
 * @param lastFile  the number of the last held tape file
 * @param endOfData the block after the last held tape file's filemark
 */
public record FlushCheck(String barcode, int lastFile, long endOfData) {

    public FlushCheck {
        Objects.requireNonNull(barcode, "barcode");
        if (lastFile < 0 || endOfData <= lastFile) {
            throw new IllegalArgumentException("flush check on " + barcode + ": tape file " + lastFile
                    + " cannot end before block " + endOfData);
        }
    }

    /**
     * The fault of a flush on {@code drive} that found {@code foundBarcode} with end of data at {@code foundEnd}
     * after the synchronous mark, or null when both are the expected ones.
     */
    public TapeFault check(String drive, String foundBarcode, long foundEnd) {
        if (barcode.equals(foundBarcode) && foundEnd == endOfData) {
            return null;
        }
        return lost(drive, (foundBarcode == null ? "no cartridge" : "cartridge " + foundBarcode)
                + " with end of data at block " + foundEnd);
    }

    /** The fault of a flush on {@code drive} that found {@code found} instead of the held tape files. */
    public TapeFault lost(String drive, String found) {
        return new TapeFault(FaultKind.DRIVE, "flush on drive " + drive + ": expected cartridge " + barcode
                + " with end of data at block " + endOfData + " (after tape file " + lastFile + "), found " + found
                + ": the tape files held in the drive's buffer are not on the tape (drive reset, power cycle or"
                + " cartridge exchanged since they were appended)");
    }

    @Override
    public String toString() {
        return barcode + " tape file " + lastFile + ", end of data " + endOfData;
    }
}
