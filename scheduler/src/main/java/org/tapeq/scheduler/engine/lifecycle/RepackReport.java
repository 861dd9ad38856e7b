package org.tapeq.scheduler.engine.lifecycle;

import java.util.List;

/**
 * A cartridge repack's progress and, once it ended, its result ({@code tapeq cartridge repack}).
 *
 * @param state        {@code queued} (waiting for a drive), {@code reading} (from the source into the spool),
 *                     {@code preparing} (spooled files checked again for writing, no drive held),
 *                     {@code writing} (new aggregates on a target), {@code finishing} (the result on its way to
 *                     the catalog), {@code done}, {@code cancelled} or {@code failed} (see {@code error}; files
 *                     moved stay moved, the rest stay on the source, asking again resumes)
 * @param target       the cartridge written to now, or null
 * @param filesTotal   live files on the source when the repack was asked for, {@code bytesTotal} their bytes
 * @param filesDone    files committed on their new cartridge, {@code bytesDone} their bytes
 * @param filesFailed  files that could not be moved (they stay on the source)
 * @param spooledFiles files read and waiting in the spool to be written, {@code spooledBytes} their bytes
 * @param failed       the first {@link VerifyReport#LISTED} failed files, each also logged at WARN
 * @param emptied      whether the source was left without a live file and marked {@code EMPTY}
 * @param targetMedia  the media type of the targets, or null for any
 */
public record RepackReport(String source, String targetFamily, String state, String target, int filesTotal,
                           long bytesTotal, int filesDone, long bytesDone, int filesFailed, int spooledFiles,
                           long spooledBytes, List<VerifyReport.FileResult> failed, boolean emptied, long started,
                           long ended, String error, String targetMedia) {

    /** Whether it ended (done, cancelled or failed). */
    public boolean hasEnded() {
        return ended > 0 || "done".equals(state) || "cancelled".equals(state) || "failed".equals(state);
    }
}
