package org.tapeq.daemon;

import java.io.IOException;
import java.time.Instant;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.daemon.config.CatalogConfig;
import org.tapeq.scheduler.catalog.CatalogUnavailableException;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.engine.Scheduler;

/**
 * Whether the daemon's catalog answers, as {@code /ready}, the {@code tapeq_catalog_connected} metric,
 * {@code tapeq status} and the admin commands see it: while the daemon starts, whether the catalog could be
 * opened; once the scheduler runs, what its catalog writer last saw. Any thread may read it.
 *
 * <p>A PostgreSQL catalog that does not answer at start is waited for ({@link #open}), with a log line per
 * attempt, not turned into an exit: a server restart or a daemon started before its database is an outage to
 * wait out, not a configuration error (systemd would otherwise restart the daemon and give up).
 */
final class CatalogHealth {

    private static final Logger LOG = LoggerFactory.getLogger(CatalogHealth.class);

    /** First wait between two attempts to open the catalog at start, ms; doubles up to {@link #MAX_WAIT_MILLIS}. */
    static final long FIRST_WAIT_MILLIS = 1_000;
    static final long MAX_WAIT_MILLIS = 30_000;

    private volatile Scheduler scheduler;
    private volatile boolean opened;
    private volatile long waitingSince;
    private volatile String waitingReason = "being opened";
    /** Since when the site lease's renewals fail (wall-clock ms), 0 while they succeed; and the last failure. */
    private volatile long renewalFailingSince;
    private volatile String renewalFailure;

    /** Opens the catalog, waiting for as long as it is unreachable; other failures (bad schema, password file) throw. */
    JdbcCatalog open(CatalogConfig config) throws IOException, InterruptedException {
        long wait = FIRST_WAIT_MILLIS;
        while (true) {
            try {
                JdbcCatalog catalog = config.openBeforeLease(); // migrated once the lease is held
                if (waitingSince > 0) {
                    LOG.warn("Catalog reachable after {} s of waiting; starting", (now() - waitingSince) / 1000);
                }
                markOpened();
                return catalog;
            } catch (CatalogUnavailableException e) {
                if (waitingSince == 0) {
                    waitingSince = now();
                }
                waitingReason = e.getMessage();
                LOG.warn("Catalog unreachable at start, waiting for it (next attempt in {} s, /ready answers 503 "
                        + "meanwhile): {}", wait / 1000, e.getMessage());
                Thread.sleep(wait);
                wait = Math.min(MAX_WAIT_MILLIS, wait * 2);
            }
        }
    }

    /** The catalog was opened (it answered). */
    void markOpened() {
        opened = true;
    }

    /** From now on the scheduler's catalog writer says whether the catalog answers. */
    void follow(Scheduler s) {
        scheduler = s;
    }

    /**
     * The lease keeper's renewal failed ({@code reason}) or, with null, succeeded. An idle daemon's catalog writer
     * has nothing to write, so a failing renewal is what tells that the catalog does not answer.
     */
    void renewal(String reason) {
        if (reason == null) {
            renewalFailingSince = 0;
        } else {
            if (renewalFailingSince == 0) {
                renewalFailingSince = now();
            }
            renewalFailure = reason;
        }
    }

    boolean reachable() {
        return state().reachable();
    }

    /** For {@code tapeq status} and {@code /status}. */
    DaemonStatus.CatalogState state() {
        DaemonStatus.CatalogState c = writerState();
        long failing = renewalFailingSince;
        if (c.reachable() && failing > 0) {
            return new DaemonStatus.CatalogState(false, failing, "renewing the site lease failed: " + renewalFailure);
        }
        return c;
    }

    private DaemonStatus.CatalogState writerState() {
        Scheduler s = scheduler;
        if (s != null) {
            return new DaemonStatus.CatalogState(s.catalogReachable(), s.catalogUnreachableSince(),
                    s.catalogUnreachableReason());
        }
        return opened ? new DaemonStatus.CatalogState(true, 0, null)
                : new DaemonStatus.CatalogState(false, waitingSince, waitingReason);
    }

    /** Null if the catalog answers, else why not and since when, for an answer to an operator. */
    String unreachable() {
        DaemonStatus.CatalogState c = state();
        if (c.reachable()) {
            return null;
        }
        if (c.unreachableSince() == 0) {
            return "the catalog is being opened"; // the first attempt at start has not failed (yet)
        }
        return "the catalog is unreachable since " + Instant.ofEpochMilli(c.unreachableSince()) + " (" + c.reason()
                + "); the daemon waits for it and resumes by itself";
    }

    private static long now() {
        return System.currentTimeMillis();
    }
}
