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
 * holder: {@link #takeLease} tries to take it every {@code pollMillis} (a sixth of {@code catalog.leaseTimeout})
 * until the holder's lease lapses or is released, with the takeover rules of any start (epoch + 1). Meanwhile it
 * says why it waits ({@link #waiting()}: {@code /ready}, {@code /status}, {@code tapeq_site_standby}).
 *
 * <p>Design notes. A refused attempt writes nothing (its transaction is rolled back) and the holder is read
 * back for the message, so the standby writes the catalog only once it holds the lease. It does not open the
 * library or the request directories: the daemon opens them after {@link #takeLease} returns. A catalog that
 * does not answer is waited out the same way. Written by the starting thread, read by any: one volatile field.
 */
final class Standby {

    private static final Logger LOG = LoggerFactory.getLogger(Standby.class);

    /** Sleeps between two attempts; tests pass one that moves a fake clock. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private final String site;
    private final long pollMillis;
    private final Sleeper sleeper;
    /** Why the daemon waits (standby, lease held by ...), or null once it holds the lease. */
    private volatile String waiting;
    /** Attempts made (for tests and the log). */
    private volatile long attempts;

    Standby(String site, long pollMillis, Sleeper sleeper) {
        this.site = site;
        this.pollMillis = pollMillis;
        this.sleeper = sleeper;
        this.waiting = "standby, about to try the site lease of '" + site + "'";
    }

    /**
     * Runs {@code acquire} until it succeeds: a refusal (a live holder) or an unreachable catalog is waited out
     * for {@code pollMillis} and tried again; {@code holder} reads the lease row for the message.
     *
     * @throws CatalogException on any other catalog failure (the daemon stops, as at any start)
     */
    SiteLease takeLease(Supplier<SiteLease> acquire, Supplier<Optional<SiteLease>> holder)
            throws InterruptedException {
        String last = null;
        while (true) {
            attempts++;
            try {
                SiteLease taken = acquire.get();
                if (last != null) {
                    LOG.warn("Standby: took site '{}' over (epoch {}) after {} attempts; starting the engine", site,
                            taken.epoch(), attempts);
                }
                waiting = null;
                return taken;
            } catch (CatalogLeaseException e) {
                waiting = heldBy(holder);
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

    private String heldBy(Supplier<Optional<SiteLease>> holder) {
        try {
            return holder.get().map(l -> "standby, lease held by " + l.host() + " pid " + l.pid() + " (epoch "
                    + l.epoch() + ")").orElse("standby, lease held by another tapeq (released just now)");
        } catch (CatalogException e) {
            return "standby, lease held by another tapeq (" + e.getMessage() + ")";
        }
    }

    /** Why the daemon is not serving yet (starts with "standby"), or null once it holds the lease. */
    String waiting() {
        return waiting;
    }

    long attempts() {
        return attempts;
    }
}
