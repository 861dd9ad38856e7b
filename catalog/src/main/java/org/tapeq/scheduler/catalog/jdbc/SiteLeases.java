package org.tapeq.scheduler.catalog.jdbc;

import static org.tapeq.scheduler.catalog.jdbc.CatalogSchema.LEASE_COLUMNS;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.CatalogLeaseException;
import org.tapeq.scheduler.catalog.CatalogUnavailableException;
import org.tapeq.scheduler.catalog.SiteLease;

/*
 * Design notes
 *
 * The site lease (schema 2, table site_lease, one row per site). acquire takes it in one transaction of the
 * catalog (serialised on PostgreSQL by an advisory lock): a row that is free, lapsed, released, or held by a
 * process of this host known to be gone (its holder string carries boot id, pid namespace, pid and start time:
 * ProcessIdentity; a bare pid is not trusted across containers) is taken with epoch + 1; a live one held by
 * another is refused (CatalogLeaseException naming the site, holder host, pid and since when). keepingOut
 * applies the same rule to the row read without a lock: a standby asks it before each attempt, so that its
 * polling never takes the row lock (FOR UPDATE) that the holder's fence and renewal would have to wait for.
 *
 * Fencing: from then on every mutating transaction of the catalog first calls fence, which reads the row
 * (SELECT ... WHERE site = ? AND holder = ? AND epoch = ?, FOR KEY SHARE on PostgreSQL) and refuses the write if
 * none matches (the lease was taken over); that row lock orders the commit against a takeover, whose SELECT ...
 * FOR UPDATE waits for it.
 *
 * Renewal moves the expiry on: on PostgreSQL on a connection of its own (a pool of one) and outside the
 * catalog's lock (its UPDATE of a non-key column does not conflict with KEY SHARE), so a stuck write never holds
 * the renewal up; on SQLite as a catalog write. release (at close) sets expires_at = 0. Times are the hosts'
 * wall clocks, so the hosts of a site must be NTP-synchronised (skew well below the lease time).
 *
 * Threads: the held lease and its length are volatile (the renewal reads them without the catalog's lock); one
 * renewal at a time (leaseLock). Everything else runs inside the catalog's transactions, under its lock.
 */

/**
 * The site lease of one {@link JdbcCatalog}: acquisition with the takeover rules, renewal on its own
 * connection, the fence every catalog write passes, release. See the design notes in the source.
 */
final class SiteLeases {
    private static final Logger LOG = LoggerFactory.getLogger(SiteLeases.class);

    /** Advisory lock key that puts two starting daemons one after the other (PostgreSQL). */
    private static final long ACQUIRE_LOCK = 7365808;

    private final JdbcCatalog catalog;
    private final String description;
    private final JdbcCatalog.Dialect dialect;
    /** PostgreSQL: the renewal's own connection (a pool of one), beside the writes'; null on SQLite. */
    private final CatalogConnections connections;
    /** One renewal at a time on {@link #connections}. */
    private final ReentrantLock renewLock = new ReentrantLock();
    /** The lease held, or null (no fencing), and its length. */
    private volatile SiteLease held;
    private volatile long ttlMillis;
    private volatile Path procRoot = ProcessIdentity.PROC;

    SiteLeases(JdbcCatalog catalog, String description, JdbcCatalog.Dialect dialect,
               CatalogConnections connections) {
        this.catalog = catalog;
        this.description = description;
        this.dialect = dialect;
        this.connections = connections;
    }

    /** See {@link JdbcCatalog#acquireLease}. */
    SiteLease acquire(String site, String holder, String host, long pid, long now, long ttl) {
        Objects.requireNonNull(site, "site");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(host, "host");
        SiteLease taken = catalog.transaction("acquireLease", "site " + site, () -> {
            if (dialect == JdbcCatalog.Dialect.POSTGRESQL) {
                catalog.execute("SELECT pg_advisory_xact_lock(" + ACQUIRE_LOCK + ")");
            }
            refuseOtherSite(site);
            SiteLease current = row(site, dialect.forUpdate);
            if (!mayTake(current, holder, host, now)) {
                throw new CatalogLeaseException("site '" + site + "': the catalog is in use by another tapeq, "
                        + describe(current, now) + "; a second daemon must not share it (stop the other one, or "
                        + "give this one a catalog of its own)");
            }
            SiteLease next = new SiteLease(site, holder, host, pid, current == null ? 1 : current.epoch() + 1, now,
                    now + ttl);
            PreparedStatement ps = catalog.statement(current == null
                    ? "INSERT INTO site_lease (" + LEASE_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?)"
                    : "UPDATE site_lease SET site = ?, holder = ?, host = ?, pid = ?, epoch = ?, acquired_at = ?,"
                            + " expires_at = ? WHERE site = ?");
            ps.setString(1, next.site());
            ps.setString(2, next.holder());
            ps.setString(3, next.host());
            ps.setLong(4, next.pid());
            ps.setLong(5, next.epoch());
            ps.setLong(6, next.acquiredAt());
            ps.setLong(7, next.expiresAt());
            if (current != null) {
                ps.setString(8, site);
            }
            ps.executeUpdate();
            if (current != null) {
                LOG.warn("Catalog {}: site '{}' taken over from {} (epoch {} -> {})", description, site,
                        describe(current, now), current.epoch(), next.epoch());
            }
            return next;
        });
        ttlMillis = ttl;
        held = taken;
        LOG.info("Catalog {}: site '{}' lease held by {} pid {} (epoch {})", description, site, host, pid,
                taken.epoch());
        return taken;
    }

    /**
     * A catalog belongs to one site: the first to take a lease on it, whose row stays (a release only makes it
     * lapse). A process of another site is refused, naming both and the catalog; it is not a lease conflict to
     * wait out (a standby of another site stops too), so the error is a plain {@link CatalogException}. Runs
     * under the acquisition's advisory lock on PostgreSQL: two sites starting at once on a new catalog cannot both
     * be first.
     */
    private void refuseOtherSite(String site) throws SQLException {
        PreparedStatement ps = catalog.statement("SELECT site FROM site_lease WHERE site <> ? ORDER BY acquired_at");
        ps.setString(1, site);
        try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                throw new CatalogException("site '" + site + "': catalog " + description + " belongs to site '"
                        + rs.getString(1) + "' (the first site to take a lease on it); a daemon of another site "
                        + "must not share it (set catalog.site: " + rs.getString(1) + " if this host is part of "
                        + "that site, else give site '" + site + "' a catalog of its own)");
            }
        }
    }

    /**
     * The takeover rule: whether {@code holder} of {@code host} may take a site whose lease row is {@code current}
     * (null: none yet) at {@code now}: free, lapsed, released, its own, or held by a process of this host known
     * to be dead.
     */
    private boolean mayTake(SiteLease current, String holder, String host, long now) {
        return current == null || current.expiresAt() <= now || current.holder().equals(holder)
                || deadOnThisHost(current, host);
    }

    /** See {@link JdbcCatalog#leaseKeepingOut}. */
    Optional<SiteLease> keepingOut(String site, String holder, String host, long now) {
        return catalog.read("lease", "site " + site, () -> {
            SiteLease current = row(site, "");
            return mayTake(current, holder, host, now) ? Optional.empty() : Optional.of(current);
        });
    }

    /** See {@link JdbcCatalog#renewLease}. */
    void renew(long now) {
        SiteLease lease = held;
        long ttl = ttlMillis;
        if (lease == null) {
            return;
        }
        if (connections == null) {
            catalog.transaction("renewLease", "site " + lease.site(), () -> {
                renew(catalog.connection(), lease, now + ttl, ttl);
                return null;
            });
        } else {
            renewLock.lock();
            try {
                catalog.ensureOpen();
                Connection c = null;
                boolean lost = false;
                try {
                    c = connections.acquire();
                    renew(c, lease, now + ttl, ttl);
                } catch (SQLException | RuntimeException e) {
                    if (!(e instanceof CatalogException) && CatalogConnections.isConnectionLoss(e)) {
                        lost = true;
                        throw new CatalogUnavailableException("renewLease site " + lease.site() + ": catalog "
                                + description + " unreachable: " + e.getMessage(), e);
                    }
                    if (e instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                    throw new CatalogException("renewLease site " + lease.site() + ": " + e.getMessage(), e);
                } finally {
                    if (c != null) {
                        connections.release(c, lost);
                    }
                }
            } finally {
                renewLock.unlock();
            }
        }
        if (held == lease) {
            held = new SiteLease(lease.site(), lease.holder(), lease.host(), lease.pid(), lease.epoch(),
                    lease.acquiredAt(), now + ttl);
        }
    }

    /** One UPDATE of the held row's expiry (autocommit on {@code c}); a row no longer held is a deposition. */
    private static void renew(Connection c, SiteLease lease, long expiresAt, long ttl) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE site_lease SET expires_at = ? WHERE site = ?"
                + " AND holder = ? AND epoch = ?")) {
            ps.setQueryTimeout((int) Math.max(1, ttl / 3 / 1000));
            ps.setLong(1, expiresAt);
            ps.setString(2, lease.site());
            ps.setString(3, lease.holder());
            ps.setLong(4, lease.epoch());
            if (ps.executeUpdate() == 1) {
                return;
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT " + LEASE_COLUMNS + " FROM site_lease WHERE site = ?")) {
            ps.setString(1, lease.site());
            try (ResultSet rs = ps.executeQuery()) {
                SiteLease now = rs.next() ? leaseOf(rs) : null;
                throw deposed("renewLease", "site " + lease.site(), lease, now);
            }
        }
    }

    /** The lease held, or null. */
    SiteLease held() {
        return held;
    }

    /** The site's lease row as the database has it now, or empty. */
    Optional<SiteLease> current(String site) {
        return catalog.read("lease", "site " + site, () -> Optional.ofNullable(row(site, "")));
    }

    /** Gives the held lease up (a clean stop): the next daemon takes it at once. Under the catalog's lock. */
    void release() {
        SiteLease lease = held;
        if (lease == null) {
            return;
        }
        catalog.transaction("releaseLease", "site " + lease.site(), () -> {
            PreparedStatement ps = catalog.statement("UPDATE site_lease SET expires_at = 0 WHERE site = ?"
                    + " AND holder = ? AND epoch = ?");
            ps.setString(1, lease.site());
            ps.setString(2, lease.holder());
            ps.setLong(3, lease.epoch());
            ps.executeUpdate();
            return null;
        });
        held = null;
    }

    /** Closes the renewal's own connection, if any. */
    void close() throws SQLException {
        if (connections != null) {
            connections.close();
        }
    }

    /**
     * Inside a write transaction of the catalog: this process still holds its epoch (if it holds a lease at
     * all), else the write is refused. On PostgreSQL the row is read FOR KEY SHARE: a takeover (SELECT ... FOR
     * UPDATE) waits until this transaction ends, so no write of a deposed holder commits after it, while this
     * holder's own renewal (an UPDATE of a non-key column) does not wait for it.
     */
    void fence(String operation, String subject) throws SQLException {
        SiteLease lease = held;
        if (lease == null) {
            return;
        }
        PreparedStatement ps = catalog.statement("SELECT epoch FROM site_lease WHERE site = ? AND holder = ?"
                + " AND epoch = ?" + (dialect == JdbcCatalog.Dialect.POSTGRESQL ? " FOR KEY SHARE" : ""));
        ps.setString(1, lease.site());
        ps.setString(2, lease.holder());
        ps.setLong(3, lease.epoch());
        try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                return;
            }
        }
        throw deposed(operation, subject, lease, row(lease.site(), ""));
    }

    private static CatalogLeaseException deposed(String operation, String subject, SiteLease lease, SiteLease now) {
        return new CatalogLeaseException(operation + " " + subject + ": refused, site '" + lease.site()
                + "' was taken over: this tapeq held epoch " + lease.epoch() + ", the catalog now says "
                + (now == null ? "no lease" : describe(now, System.currentTimeMillis())));
    }

    private SiteLease row(String site, String suffix) throws SQLException {
        PreparedStatement ps = catalog.statement("SELECT " + LEASE_COLUMNS + " FROM site_lease WHERE site = ?"
                + suffix);
        ps.setString(1, site);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? leaseOf(rs) : null;
        }
    }

    private static SiteLease leaseOf(ResultSet rs) throws SQLException {
        return new SiteLease(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5),
                rs.getLong(6), rs.getLong(7));
    }

    /**
     * Whether the holder of {@code l} is known dead: same host, and its identity in the holder string (boot,
     * pid namespace, pid, start time: {@link ProcessIdentity}) names no running process. A bare pid is not
     * trusted: in another pid namespace (a container) it may be alive or another process.
     */
    private boolean deadOnThisHost(SiteLease l, String host) {
        return l.host().equals(host) && ProcessIdentity.knownDead(l.holder(), procRoot);
    }

    /** For tests: the /proc tree that tells whether a lease holder of this host is dead. */
    void procRoot(Path proc) {
        this.procRoot = Objects.requireNonNull(proc, "proc");
    }

    static String describe(SiteLease l, long now) {
        return "held by host " + l.host() + " pid " + l.pid() + " since " + java.time.Instant.ofEpochMilli(
                l.acquiredAt()) + " (epoch " + l.epoch() + (l.expiresAt() > now ? ", lapses in "
                + (l.expiresAt() - now + 999) / 1000 + " s unless renewed)" : ", lapsed)");
    }
}
