package org.tapeq.it;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.bridge.BridgeStatus;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.testing.support.Poll;

/**
 * Waits on what the daemon reports it has done, for tests that then assert that something did not happen: the
 * assertion means something only once the daemon has provably looked.
 */
final class DaemonWaits {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Drive states in which a drive moves no data and no cartridge. */
    private static final Set<String> QUIET_DRIVE_STATES = Set.of("empty", "idle", "dwell", "down");

    private DaemonWaits() {
    }

    /**
     * The first directory's status from a snapshot its bridge's thread took after this call
     * ({@link Daemon#freshStatus}): the status is published every
     * {@link org.tapeq.daemon.bridge.DirectoryBridge#STATUS_REFRESH_MILLIS}, so a count read at once may not hold
     * what the thread did a moment ago (an error file already visible, its count not yet published).
     */
    static BridgeStatus bridge(Daemon daemon) throws InterruptedException {
        try {
            return daemon.freshStatus().get(WAIT.toMillis(), TimeUnit.MILLISECONDS).directories().get(0);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("no status taken after asking within " + WAIT, e);
        }
    }

    /**
     * Until the daemon has listed the request directory in a rescan that began after this call, and has read and
     * taken every request file it found: whatever the directory held at the call has been looked at. The status
     * snapshot is taken on the bridge's thread, where rescans run too, so the first rescan it does not count
     * begins after it.
     */
    static void rescan(Daemon daemon) throws InterruptedException {
        long seen = bridge(daemon).rescans();
        Poll.until("a rescan after rescan " + seen + " and every request file it found taken", WAIT, () -> {
            BridgeStatus s = bridge(daemon);
            return s.rescans() > seen && s.intakeBacklog() == 0;
        });
    }

    /**
     * Until the scheduler has nothing to do: no queue with work, no drive mounting, reading, writing or
     * unmounting. A request still queued keeps its queue non-empty until its read or write is over.
     */
    static SchedulerStatus schedulerQuiet(Daemon daemon) throws InterruptedException {
        return Poll.value("the scheduler has nothing to do", WAIT, () -> {
            SchedulerStatus s = daemon.scheduler().status(0).get(30, TimeUnit.SECONDS);
            boolean quiet = s.queueCount() == 0
                    && s.drives().stream().allMatch(d -> QUIET_DRIVE_STATES.contains(d.state()));
            return quiet ? s : null;
        });
    }
}
