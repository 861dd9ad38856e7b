package org.tapeq.scheduler.tape.sim;

/**
 * What the filemark after each appended tape file costs a simulated drive. Synchronous tape marks (the default)
 * flush the drive's buffer at every one: {@code filemarkMillis} each. Buffered tape marks (written with the Immed
 * bit, as CTA writes them) cost nothing until the files or bytes written since the last flush reach the system's
 * flush limit; that append then pays one synchronous flush. The final flush before an unload is not charged.
 * A writer that flushes the drive itself ({@code TapeLibrary#appendBuffered} and {@code #flush}, as tapeq does)
 * pays one synchronous flush per flush it asks for, whatever the library's own setting.
 *
 * @param filemarkMillis time of one synchronous flush (buffer drain and back-hitch)
 * @param flushFiles     buffered marks: a flush after this many tape files; 0 = every tape mark is synchronous
 * @param flushBytes     buffered marks: a flush once this many bytes were written since the last one
 */
public record TapeMarks(long filemarkMillis, int flushFiles, long flushBytes) {

    public TapeMarks {
        if (filemarkMillis < 0 || flushFiles < 0 || flushBytes < 0) {
            throw new IllegalArgumentException("tape marks: negative filemarkMillis " + filemarkMillis
                    + ", flushFiles " + flushFiles + " or flushBytes " + flushBytes);
        }
        if ((flushFiles == 0) != (flushBytes == 0)) {
            throw new IllegalArgumentException("tape marks: flushFiles " + flushFiles + " and flushBytes "
                    + flushBytes + " must both be set (buffered marks) or both 0 (synchronous marks)");
        }
    }

    /** A synchronous tape mark after every tape file. */
    public static TapeMarks synchronous(long filemarkMillis) {
        return new TapeMarks(filemarkMillis, 0, 0);
    }

    /** Buffered tape marks with a synchronous flush at {@code flushFiles} tape files or {@code flushBytes}. */
    public static TapeMarks buffered(long filemarkMillis, int flushFiles, long flushBytes) {
        if (flushFiles <= 0 || flushBytes <= 0) {
            throw new IllegalArgumentException("buffered tape marks need positive flush limits: " + flushFiles
                    + " files, " + flushBytes + " bytes");
        }
        return new TapeMarks(filemarkMillis, flushFiles, flushBytes);
    }

    /** Whether tape marks are buffered. */
    public boolean buffered() {
        return flushFiles > 0;
    }

    /**
     * The mark's cost after a tape file of {@code bytes} on {@code drive}: a flush if it reaches the drive's flush
     * limit. Counts nothing: {@link #written} does once the tape file is on the tape.
     */
    long costAfterTapeFile(SimDrive drive, long bytes) {
        return !buffered() || reachesFlush(drive, bytes) ? filemarkMillis : 0;
    }

    /** A tape file of {@code bytes} was written on {@code drive}: counted toward its next flush, or flushed. */
    void written(SimDrive drive, long bytes) {
        if (!buffered()) {
            flushed(drive); // a synchronous mark writes whatever a buffered append left in the buffer
            return;
        }
        if (reachesFlush(drive, bytes)) {
            drive.unflushedFiles = 0;
            drive.unflushedBytes = 0;
        } else {
            drive.unflushedFiles++;
            drive.unflushedBytes += bytes;
        }
    }

    /**
     * A tape file of {@code bytes} was appended with a buffered mark at the writer's request ({@code
     * TapeLibrary#appendBuffered}): it costs nothing now and waits in the buffer for the writer's flush.
     */
    void bufferedByWriter(SimDrive drive, long bytes) {
        drive.unflushedFiles++;
        drive.unflushedBytes += bytes;
    }

    /**
     * What the writer's flush ({@code TapeLibrary#flush}) costs on {@code drive}: a synchronous flush if anything
     * is buffered.
     */
    long flushCost(SimDrive drive) {
        return drive.unflushedFiles > 0 ? filemarkMillis : 0;
    }

    /** The drive's buffer was written to tape. */
    static void flushed(SimDrive drive) {
        drive.unflushedFiles = 0;
        drive.unflushedBytes = 0;
    }

    private boolean reachesFlush(SimDrive drive, long bytes) {
        return drive.unflushedFiles + 1 >= flushFiles || drive.unflushedBytes + bytes >= flushBytes;
    }
}
