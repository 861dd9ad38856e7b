package org.tapeq.daemon.bridge;

import java.nio.file.Path;

import org.tapeq.protocol.AtomicFiles;
import org.tapeq.scheduler.model.StageRequest;

/**
 * Where the stages of one directory write their bytes before the rename into {@code in/}:
 * {@code in/.<pnfsid>.<id hex>.tapeq.tmp}, named from the request's id and pnfsid whenever asked, so that a queued
 * request holds no path of its own. Immutable: the scheduler's threads ask it too.
 */
record StageTargets(Path inDir) implements StageRequest.Targets {

    /** Marks stage targets for whoever lists in/. */
    private static final String TEMPORARY_MARK = ".tapeq";

    @Override
    public Path of(long id, String pnfsid) {
        return inDir.resolve(AtomicFiles.TEMPORARY_PREFIX + pnfsid + '.' + Long.toHexString(id) + TEMPORARY_MARK
                + AtomicFiles.TEMPORARY_SUFFIX);
    }
}
