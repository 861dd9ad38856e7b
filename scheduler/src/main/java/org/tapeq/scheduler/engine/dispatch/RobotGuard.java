package org.tapeq.scheduler.engine.dispatch;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.time.EventLoop;

/**
 * Consecutive robot errors: after the limit every mount pauses for the backoff (a mount or a switch needs the
 * robot), and status says why.
 */
public final class RobotGuard {

    private static final Logger LOG = LoggerFactory.getLogger(RobotGuard.class);

    private final EventLoop loop;
    private final DispatchSettings settings;
    private final Runnable afterPause;
    private int errors;
    private long pausedUntil = Long.MIN_VALUE;
    private String reason;

    RobotGuard(EventLoop loop, DispatchSettings settings, Runnable afterPause) {
        this.loop = loop;
        this.settings = settings;
        this.afterPause = afterPause;
    }

    public void succeeded() {
        errors = 0;
        reason = null;
    }

    public void failed(TapeFault fault) {
        errors++;
        reason = fault.getMessage();
        if (errors >= settings.robotErrorLimit()) {
            pausedUntil = loop.now() + settings.retryBackoffMillis();
            // Loop time is wall-clock time at speed 1 (the daemon's); readable, with its zone (UTC).
            reason = "mounts paused for " + settings.retryBackoffMillis() / 1000 + " s (until "
                    + Instant.ofEpochMilli(pausedUntil).truncatedTo(ChronoUnit.SECONDS) + ") after " + errors
                    + " consecutive robot errors; last: " + fault.getMessage();
            LOG.error("{}", reason);
            loop.schedule(settings.retryBackoffMillis(), afterPause);
        }
    }

    /** Whether mounts are paused at {@code now}. */
    public boolean paused(long now) {
        return now < pausedUntil;
    }

    /** Why mounts are paused (or the last robot error). */
    public String reason() {
        return reason;
    }
}
