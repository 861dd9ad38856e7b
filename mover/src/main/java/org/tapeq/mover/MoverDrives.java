package org.tapeq.mover;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.engine.Scheduler;

/**
 * What a lost or returning mover means to the scheduler: its drives go out of service with the reason "mover NAME
 * unreachable since T: ..." (state "unavailable"; a cartridge in one stays there, shown in the drive's
 * status and its queue's, until the mover returns), and come back when it answers again, holding what the mover
 * reports in them. Neither is an
 * administrator's drive down or up: a drive an operator took down stays down across its mover's loss and return.
 * Any thread: the scheduler's methods hop onto its loop.
 */
public final class MoverDrives implements MoverEvents {

    private static final Logger LOG = LoggerFactory.getLogger(MoverDrives.class);

    private final Scheduler scheduler;

    public MoverDrives(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public void unreachable(String mover, List<String> drives, String reason) {
        for (String d : drives) {
            scheduler.driveUnavailable(d, reason).exceptionally(e -> {
                LOG.error("Could not take drive {} of mover {} out of service", d, mover, e);
                return null;
            });
        }
    }

    @Override
    public void reachable(String mover, List<String> drives, Map<String, Optional<String>> holding) {
        for (String d : drives) {
            Optional<String> h = holding.get(d);
            (h == null ? scheduler.driveReachable(d) : scheduler.driveReturned(d, h.orElse(null))).exceptionally(e -> {
                LOG.error("Could not put drive {} of mover {} back into service", d, mover, e);
                return null;
            });
        }
    }
}
