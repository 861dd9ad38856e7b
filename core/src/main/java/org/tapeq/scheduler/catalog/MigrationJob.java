package org.tapeq.scheduler.catalog;

import java.util.List;
import java.util.Objects;

/**
 * A media migration as the catalog keeps it ({@code tapeq migrate}): the cartridges of one media type (of one
 * family, or all) repacked one after another onto cartridges of another media type. Its progress is not stored:
 * each cartridge's outcome is its {@link RepackJob} asked for at or after {@link #requestedAt}, so a restart
 * resumes it from the catalog alone.
 *
 * @param id          its name, {@code <from>-<to>-<requestedAt>}
 * @param fromMedia   the media type emptied ({@code MediaType} name)
 * @param toMedia     the media type written to
 * @param family      the only family migrated, or null for every family
 * @param state       {@code running}, {@code done}, {@code failed} or {@code cancelled} ({@link RepackJob} states)
 * @param requestedAt loop time it was asked for
 * @param endedAt     loop time it ended, or 0
 * @param cartridges  the cartridges to empty, in the order they are repacked, fixed when it was asked for
 * @param bytesTotal  their live bytes then
 * @param summary     what it ended with (the cartridges that failed and why), or null
 */
public record MigrationJob(String id, String fromMedia, String toMedia, String family, String state,
                           long requestedAt, long endedAt, List<String> cartridges, long bytesTotal,
                           String summary) {

    public MigrationJob {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(fromMedia, "fromMedia");
        Objects.requireNonNull(toMedia, "toMedia");
        Objects.requireNonNull(state, "state");
        cartridges = List.copyOf(cartridges);
    }

    /** Whether a restart resumes it. */
    public boolean unfinished() {
        return RepackJob.RUNNING.equals(state) || RepackJob.QUEUED.equals(state);
    }

    /** The same migration ended. */
    public MigrationJob ended(String endState, long when, String why) {
        return new MigrationJob(id, fromMedia, toMedia, family, endState, requestedAt, when, cartridges, bytesTotal,
                why);
    }
}
