package org.tapeq.daemon;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogLeaseException;

/**
 * Keeps the daemon's site lease and steps the daemon down when it may have lapsed: {@link #renew} (on its own
 * thread, straight to the catalog, never behind the scheduler's catalog writer) records the time of each
 * successful renewal; {@link #check} (on another thread, so a hung renewal cannot delay it) holds all tape work
 * and answers ({@code holdWork}; during the daemon's start it aborts the start) once
 * {@code renewalAge > leaseTimeout - safetyMargin}, and
 * resumes them after the next successful renewal (the same epoch: a renewal is refused once the lease was taken
 * over). A refused renewal, or no successful renewal for the whole {@code leaseTimeout} (the lease has lapsed:
 * a standby may have taken the site, and this daemon, cut off, cannot learn it), holds all tape work and answers
 * for good and completes the {@code deposed} future the daemon passed in: the daemon stops with 75.
 *
 * <p>Design notes. The margin (a third of the timeout) covers a renewal that the database committed but whose
 * answer has not arrived, and the skew between this host's clock and the other hosts'. The age is measured on
 * the injected monotonic clock from the start of the last successful renewal (a wall clock stepped back would
 * delay the step-down by the step, while the expiry in the catalog stays on the old timeline); the wall clock
 * only gives the renewal's time written to the catalog. Thread-safe: the fields are volatile and each is written
 * by one thread.
 */
final class LeaseKeeper {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

    private final Catalog catalog;
    private final Consumer<String> holdWork;
    private final Runnable resumeWork;
    private final long timeoutMillis;
    private final LongSupplier clock;
    private final LongSupplier nanoClock;
    private final CompletableFuture<String> deposed;
    /** Told of each renewal that failed on the catalog (the reason), and with null of each that succeeded. */
    private final Consumer<String> renewals;
    /** Monotonic ns taken when the last successful renewal (or the acquisition) started; written by renew only. */
    private volatile long lastRenewalNanos;
    /** Why work is held, or null; written by check only. */
    private volatile String held;

    /**
     * @param holdWork   holds all tape work and answers, with the reason; {@code resumeWork} lets them through
     * @param clock      wall-clock ms (the lease's expiry in the catalog)
     * @param renewals   told of each failed renewal (its reason) and, with null, of each successful one: the
     *                   catalog's health as {@code /ready} and {@code tapeq_catalog_connected} show it
     * @param nanoClock  monotonic ns (the age of the last renewal); {@code acquiredAtNanos} on it: when the lease
     *                   was acquired
     */
    LeaseKeeper(Catalog catalog, Consumer<String> holdWork, Runnable resumeWork, long timeoutMillis,
                LongSupplier clock, LongSupplier nanoClock, long acquiredAtNanos,
                CompletableFuture<String> deposed, Consumer<String> renewals) {
        this.catalog = catalog;
        this.renewals = renewals;
        this.holdWork = holdWork;
        this.resumeWork = resumeWork;
        this.timeoutMillis = timeoutMillis;
        this.clock = clock;
        this.nanoClock = nanoClock;
        this.deposed = deposed;
        this.lastRenewalNanos = acquiredAtNanos;
    }

    /** How often {@link #renew} runs. */
    long renewEveryMillis() {
        return timeoutMillis / 3;
    }

    /** Past this age of the last renewal the daemon holds all tape work. */
    long stepDownAfterMillis() {
        return timeoutMillis - timeoutMillis / 3;
    }

    /** Renews the lease now; a refusal means another process took the site over. */
    void renew() {
        long now = clock.getAsLong();
        long started = nanoClock.getAsLong();
        try {
            catalog.renewLease(now);
            lastRenewalNanos = started;
            renewals.accept(null);
        } catch (CatalogLeaseException e) {
            LOG.error("Deposed: {}; stopping", e.getMessage());
            holdWork.accept("deposed: " + e.getMessage()); // never resumed: the new holder owns the library
            deposed.complete(e.getMessage());
        } catch (RuntimeException e) {
            renewals.accept(e.getMessage());
            LOG.warn("Renewing the site lease failed (tried again in {} s): {}", renewEveryMillis() / 1000,
                    e.getMessage());
        }
    }

    /**
     * Holds or resumes tape work by the age of the last successful renewal; past the whole lease timeout the lease
     * has lapsed and a standby may hold the site now: the daemon takes itself as deposed (it stops with 75 and lets
     * go of its request directories), even if the catalog stays unreachable.
     */
    void check() {
        long age = renewalAgeMillis();
        if (age > timeoutMillis && !deposed.isDone()) {
            String why = "site lease not renewed for " + age / 1000 + " s, longer than catalog.leaseTimeout ("
                    + timeoutMillis / 1000 + " s): it has lapsed and another tapeq may hold the site now";
            LOG.error("Deposed: {}; stopping", why);
            holdWork.accept("deposed: " + why); // never resumed, as for a refused renewal
            deposed.complete(why);
        } else if (age > stepDownAfterMillis() && !deposed.isDone()) {
            if (held == null) {
                held = "site lease not renewed for " + age / 1000 + " s (it lapses after " + timeoutMillis / 1000
                        + " s): no mount, tape write or answer until a renewal succeeds";
                LOG.error("Stepping down: {}", held);
                holdWork.accept(held);
            }
        } else if (held != null && !deposed.isDone()) {
            LOG.warn("Site lease renewed again: resuming tape work and answers");
            held = null;
            resumeWork.run();
        }
    }

    /** Why tape work is held now, or null. */
    String held() {
        return held;
    }

    /** Ms since the last successful renewal started, on the monotonic clock. */
    long renewalAgeMillis() {
        return (nanoClock.getAsLong() - lastRenewalNanos) / 1_000_000;
    }
}
