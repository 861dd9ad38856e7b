package org.tapeq.scheduler.catalog;

import java.util.Objects;

/**
 * A cartridge's repack as the catalog keeps it ({@code tapeq cartridge repack}), one per source cartridge, the
 * latest replacing the one before. A job {@link #unfinished()} at a restart is resumed: its progress is not
 * stored, it is what the catalog says is still live on the source.
 *
 * @param source       the cartridge being emptied
 * @param targetFamily the family whose cartridges receive its files
 * @param state        {@code queued}, {@code running}, {@code done}, {@code failed} or {@code cancelled}
 * @param requestedAt  loop time it was asked for
 * @param endedAt      loop time it ended, or 0
 * @param filesTotal   live files on the source when it was asked for
 * @param bytesTotal   their bytes
 * @param filesFailed  files that could not be moved (they stay on the source), at its end
 * @param summary      what it ended with (the failed files, the first ones named), or null
 * @param targetMedia  the media type ({@code MediaType} name) the target cartridges must be of, or null for any
 *                     (a repack onto new media, {@code tapeq cartridge repack VID --to LTO9}, or a migration)
 */
public record RepackJob(String source, String targetFamily, String state, long requestedAt, long endedAt,
                        int filesTotal, long bytesTotal, int filesFailed, String summary, String targetMedia) {

    public static final String QUEUED = "queued";
    public static final String RUNNING = "running";
    public static final String DONE = "done";
    public static final String FAILED = "failed";
    public static final String CANCELLED = "cancelled";

    /** A job onto cartridges of any media type. */
    public RepackJob(String source, String targetFamily, String state, long requestedAt, long endedAt,
                     int filesTotal, long bytesTotal, int filesFailed, String summary) {
        this(source, targetFamily, state, requestedAt, endedAt, filesTotal, bytesTotal, filesFailed, summary, null);
    }

    public RepackJob {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(targetFamily, "targetFamily");
        Objects.requireNonNull(state, "state");
    }

    /** Whether a restart resumes it. */
    public boolean unfinished() {
        return QUEUED.equals(state) || RUNNING.equals(state);
    }

    /** The same job ended. */
    public RepackJob ended(String endState, long when, int failed, String why) {
        return new RepackJob(source, targetFamily, endState, requestedAt, when, filesTotal, bytesTotal, failed, why,
                targetMedia);
    }

    /** The same job in another state, not ended. */
    public RepackJob inState(String newState) {
        return new RepackJob(source, targetFamily, newState, requestedAt, 0, filesTotal, bytesTotal, filesFailed,
                summary, targetMedia);
    }
}
