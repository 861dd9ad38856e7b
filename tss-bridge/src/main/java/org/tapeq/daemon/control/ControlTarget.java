package org.tapeq.daemon.control;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.lifecycle.ReclaimStatus;

/** What the admin commands act on: the running daemon's scheduler, status and catalog. */
public interface ControlTarget {

    Scheduler scheduler();

    /** The daemon's status as {@code tapeq status --json} prints it, with that page of each list. */
    JsonNode status(StatusPage page);

    /**
     * Why admin commands other than {@code status} cannot run now (the catalog is unreachable, the daemon is
     * starting), or null.
     */
    default String refusal() {
        return null;
    }

    /**
     * The reclamation policy's status as {@code tapeq reclaim} answers it; the daemon adds the wall-clock times of
     * its loop times ({@code pausedSinceTime}, {@code lastLookTime}).
     */
    default JsonNode reclaim(ReclaimStatus status) {
        return ControlProtocol.JSON.valueToTree(status);
    }

    /** The catalog's cartridges. */
    List<CartridgeRecord> cartridges();

    /** Live user files per cartridge ({@link org.tapeq.scheduler.catalog.Catalog#fileCounts}). */
    Map<String, Long> fileCounts();
}
