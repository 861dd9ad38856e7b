package org.tapeq.mover;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.mover.proto.Fence;

/**
 * A mover's fencing rule: it remembers the newest site lease epoch any scheduler has shown it and refuses every
 * command from an older one, so a deposed scheduler (partitioned, paused, killed and back) can neither write nor
 * move a cartridge once its successor has spoken to this mover. Any thread.
 */
public final class EpochFence {

    private static final Logger LOG = LoggerFactory.getLogger(EpochFence.class);

    private final String mover;
    private final AtomicLong newest = new AtomicLong();

    public EpochFence(String mover) {
        this.mover = mover;
    }

    /** The newest epoch seen, 0 before any command. */
    public long newest() {
        return newest.get();
    }

    /**
     * Admits {@code what} from {@code fence} (remembering its epoch if it is newer), or returns why it is refused:
     * an epoch below 1 or below the newest seen.
     */
    public String refusal(Fence fence, String what) {
        long epoch = fence.getEpoch();
        if (epoch < 1) {
            return "mover " + mover + " refuses " + what + " from scheduler '" + fence.getScheduler()
                    + "': it carries no site lease epoch";
        }
        while (true) {
            long seen = newest.get();
            if (epoch < seen) {
                return "mover " + mover + " refuses " + what + " from scheduler '" + fence.getScheduler()
                        + "' at lease epoch " + epoch + ": epoch " + seen + " has taken the site over (fenced)";
            }
            if (epoch == seen || newest.compareAndSet(seen, epoch)) {
                if (epoch > seen) {
                    LOG.info("Mover {}: scheduler '{}' speaks with lease epoch {} (was {}); older epochs are refused",
                            mover, fence.getScheduler(), epoch, seen);
                }
                return null;
            }
        }
    }
}
