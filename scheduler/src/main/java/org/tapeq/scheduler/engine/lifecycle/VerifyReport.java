package org.tapeq.scheduler.engine.lifecycle;

import java.util.List;

/**
 * A cartridge verification's progress and, once it ended, its result ({@code tapeq cartridge verify}).
 *
 * @param state           {@code queued}, {@code running}, {@code recording} (all read, the drive free, the result
 *                        on its way to the catalog), {@code done}, {@code cancelled} or {@code failed}
 *                        (stopped by an error that is not the cartridge's: drive, robot, catalog, the
 *                        cartridge gone from the catalog; see {@code error})
 * @param aggregatesDone  aggregates read so far, of {@code aggregatesTotal} to read
 * @param sampled         whether only a sample of the cartridge's aggregates is read
 * @param filesGood       files whose Adler-32 matched the catalog's
 * @param filesUnchecked  files read whole whose catalog checksum is not an Adler-32 (carried, not comparable)
 * @param filesBad        files whose checksum differed
 * @param filesUnreadable files that could not be read
 * @param bad             the first {@link #LISTED} of the files whose checksum differed (every one is logged and,
 *                        once the verification ended, in the catalog: {@code Verification#findings})
 * @param unreadable      the first {@link #LISTED} of the files that could not be read
 * @param started         loop time it was asked for
 * @param ended           loop time it ended, or 0
 */
public record VerifyReport(String barcode, String state, int aggregatesDone, int aggregatesTotal, boolean sampled,
                           int filesGood, int filesUnchecked, int filesBad, int filesUnreadable,
                           List<FileResult> bad, List<FileResult> unreadable, long started, long ended,
                           String error) {

    /** Files of each kind a report lists (status is built every second: its size must not grow with them). */
    public static final int LISTED = 10;

    /** One file that is not good, and why. */
    public record FileResult(String pnfsid, int tapeFile, String reason) {
    }

    /** Whether it ended and found nothing wrong. */
    public boolean good() {
        return "done".equals(state) && filesBad == 0 && filesUnreadable == 0;
    }
}
