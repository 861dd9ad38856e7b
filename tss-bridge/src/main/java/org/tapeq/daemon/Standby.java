package org.tapeq.daemon;

import java.util.Optional;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.CatalogLeaseException;
import org.tapeq.scheduler.catalog.CatalogUnavailableException;
import org.tapeq.scheduler.catalog.SiteLease;

/**
 * A daemon configured as a standby ({@code catalog.standby: true}) that finds the site's lease held by a live
 * holder: {@link #takeLease} looks at it every {@code pollMillis} (a sixth of {@code catalog.leaseTimeout}) and
 * takes it, with the takeover rules of any start (epoch + 1), once the holder's lease lapses or is released. Meanwhile it
 * says why it waits ({@link #waiting()}: {@code /ready}, {@code /status}, {@code tapeq_site_standby}).
 *
 * <p>Design notes. Each poll first reads the lease row without locking it ({@code keepingOut}, the takeover
 * rules applied to what it read) and tries the takeover, whose transaction locks the row, only when that says
 * the site may be taken: a standby polling for hours, or one whose connection stalls, never makes the holder's
 * fenced writes or renewal wait for its lock. A takeover that loses a race is refused, writes nothing (its
 * transaction is rolled back) and is tried again at the next poll, so the standby writes the catalog only once
 * it holds the lease. It does not open the library or the request directories: the daemon opens them after
 * {@link #takeLease} returns. A catalog that does not answer is waited out the same way. With a {@link Rehearsal}
 * configured, it starts it the first time it finds the site held (once per start, so a daemon that takes a free
 * site at once never does) and stops it before a takeover. Written by the starting thread, read by any: volatile
 * fields.
 */
final class Standby {

    private static final Logger LOG = LoggerFactory.getLogger(Standby.class);

    /** Work a standby does in the background while it waits; stopped before it takes the site over. */
    interface Rehearsal {
        Rehearsal NONE = new Rehearsal() {
            @Override
            public void start() {
            }

            @Override
            public void stopAndWait() {
            }
        };

        /** Starts in the background; returns at once. */
        void start();

        /** Stops it if it still runs and returns once it has ended. */
        void stopAndWait() throws InterruptedException;
    }

    /** Sleeps between two attempts; tests pass one that moves a fake clock. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private final String site;
    private final long pollMillis;
    private final Sleeper sleeper;
    /** Started once, when the site is first found held ({@link TakeoverRehearsal}); stopped before a takeover. */
    private final Rehearsal rehearsal;
    private boolean rehearsing;
    /** Why the daemon waits (standby, lease held by ...), or null once it holds the lease. */
    private volatile String waiting;
    /** Polls of the lease row, and takeovers tried (each after a poll that found the site free to take). */
    private volatile long polls;
    private volatile long attempts;

    Standby(String site, long pollMillis, Sleeper sleeper) {
        this(site, pollMillis, sleeper, Rehearsal.NONE);
    }

    Standby(String site, long pollMillis, Sleeper sleeper, Rehearsal rehearsal) {
        this.site = site;
        this.pollMillis = pollMillis;
        this.sleeper = sleeper;
        this.rehearsal = rehearsal;
        this.waiting = "standby, about to try the site lease of '" + site + "'";
    }

    /**
     * Polls every {@code pollMillis} until the site is taken: {@code keepingOut} reads the live lease of another
     * process that keeps this one out (empty when it may take the site), and only then {@code acquire} tries the
     * takeover. A live holder, a lost race (the takeover refused) or an unreachable catalog is waited out.
     *
     * @throws CatalogException on any other catalog failure (the daemon stops, as at any start)
     */
    SiteLease takeLease(Supplier<SiteLease> acquire, Supplier<Optional<SiteLease>> keepingOut)
            throws InterruptedException {
        try {
            return poll(acquire, keepingOut);
        } finally {
            rehearsal.stopAndWait(); // stopped already unless the wait ended otherwise (an error, an interrupt)
        }
    }

    private SiteLease poll(Supplier<SiteLease> acquire, Supplier<Optional<SiteLease>> keepingOut)
            throws InterruptedException {
        String last = null;
        while (true) {
            polls++;
            try {
                Optional<SiteLease> holder = keepingOut.get();
                if (holder.isPresent()) {
                    waiting = heldBy(holder.get());
                    if (!rehearsing) {
                        rehearsing = true; // a standby indeed: it rehearses once, in the background
                        rehearsal.start();
                    }
                } else {
                    rehearsal.stopAndWait(); // before the takeover: the engine starts right after it
                    attempts++;
                    SiteLease taken = acquire.get();
                    if (last != null) {
                        LOG.warn("Standby: took site '{}' over (epoch {}) after {} s of waiting; starting the engine",
                                site, taken.epoch(), (polls - 1) * pollMillis / 1000);
                    }
                    waiting = null;
                    return taken;
                }
            } catch (CatalogLeaseException e) {
                waiting = "standby, lost the takeover to another tapeq: " + e.getMessage();
            } catch (CatalogUnavailableException e) {
                waiting = "standby, the catalog is unreachable: " + e.getMessage();
            }
            if (!waiting.equals(last)) {
                LOG.warn("Standby for site '{}': {}; trying again every {} s", site, waiting, pollMillis / 1000.0);
                last = waiting;
            }
            sleeper.sleep(pollMillis);
        }
    }

    private static String heldBy(SiteLease l) {
        return "standby, lease held by " + l.host() + " pid " + l.pid() + " (epoch " + l.epoch() + ")";
    }

    /** Why the daemon is not serving yet (starts with "standby"), or null once it holds the lease. */
    String waiting() {
        return waiting;
    }

    long polls() {
        return polls;
    }

    long attempts() {
        return attempts;
    }
}
