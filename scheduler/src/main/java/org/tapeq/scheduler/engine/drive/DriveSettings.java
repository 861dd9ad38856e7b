package org.tapeq.scheduler.engine.drive;

/**
 * The settings a drive works with (a view of the scheduler configuration).
 *
 * @param checkLabels        each mount reads and checks the label
 * @param verifyAfterWrite   each written tape file is read back before the commit
 * @param idleUnmountMillis  an idle cartridge is unloaded after this time
 * @param dwellMillis        an emptied cartridge is kept this long after its last new request
 * @param retryBackoffMillis first retry delay (doubles per attempt)
 * @param driveErrorLimit    consecutive errors that take a drive out of service
 * @param mergeGapBytes      members of one tape file this close are read in one unit
 * @param flushFiles         tape files written with buffered tape marks between drive flushes; 0: synchronous marks
 * @param flushBytes         bytes written with buffered tape marks between drive flushes
 * @param flushHoldMillis    longest a written tape file waits for the drive's flush
 */
public record DriveSettings(boolean checkLabels, boolean verifyAfterWrite, long idleUnmountMillis,
                            long dwellMillis, long retryBackoffMillis, int driveErrorLimit, long mergeGapBytes,
                            int flushFiles, long flushBytes, long flushHoldMillis) {
}
