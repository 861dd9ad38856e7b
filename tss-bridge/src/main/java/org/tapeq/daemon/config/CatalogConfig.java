package org.tapeq.daemon.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

import org.tapeq.config.ConfigNode;
import org.tapeq.config.Units;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;

/**
 * Where the catalog lives ({@code catalog:}). A password is never in the configuration file, only the path of
 * a file that holds it.
 *
 * @param url          JDBC URL, {@code jdbc:sqlite:} or {@code jdbc:postgresql:}
 * @param user         database user (PostgreSQL), or null
 * @param passwordFile file holding the database password (PostgreSQL), or null
 * @param site         the site's name in the catalog's lease: one daemon per site may use the catalog
 * @param leaseTimeoutMillis how long the lease outlives its holder's last renewal
 * @param standby      whether a daemon that finds the site's lease held by a live holder waits as a standby and
 *                     takes the site over when that lease lapses (PostgreSQL only), instead of being refused
 * @param standbyRehearsal how many queued stage requests a standby rehearses a takeover with when it starts
 *                     (its JVM compiles the code a takeover runs before it is needed); 0 (the default): none
 */
public record CatalogConfig(String url, String user, Path passwordFile, String site, long leaseTimeoutMillis,
                            boolean standby, int standbyRehearsal) {

    static final String URL = "url";
    static final String USER = "user";
    static final String PASSWORD_FILE = "passwordFile";
    static final String SITE = "site";
    static final String LEASE_TIMEOUT = "leaseTimeout";
    static final String STANDBY = "standby";
    static final String STANDBY_REHEARSAL = "standbyRehearsal";
    static final List<String> KEYS = List.of(URL, USER, PASSWORD_FILE, SITE, LEASE_TIMEOUT, STANDBY,
            STANDBY_REHEARSAL);
    /**
     * Off: not shown to shorten a takeover yet (docs/benchmarks.md). 20 000 gives each per-request method enough calls
     * for the JIT's optimising tier (about ten to fifteen thousand), a few seconds of a standby's CPU once.
     */
    static final int DEFAULT_STANDBY_REHEARSAL = 0;
    static final int MAX_STANDBY_REHEARSAL = 200_000;
    static final String DEFAULT_SITE = "default";
    static final long DEFAULT_LEASE_TIMEOUT_MILLIS = 30_000;
    /** Renewed every third of the timeout, so two renewals may be missed; shorter than 6 s leaves too little. */
    static final long MIN_LEASE_TIMEOUT_MILLIS = 6_000;
    /** Refused with a pointer to {@link #PASSWORD_FILE}. */
    private static final String PASSWORD = "password";

    static final String SQLITE = "jdbc:sqlite:";
    static final String POSTGRESQL = "jdbc:postgresql:";
    /** The catalog file below the state directory when no URL is given. */
    static final String DEFAULT_FILE = "catalog.db";

    /** A configuration with the default site and lease timeout, not a standby. */
    public CatalogConfig(String url, String user, Path passwordFile) {
        this(url, user, passwordFile, DEFAULT_SITE, DEFAULT_LEASE_TIMEOUT_MILLIS, false, 0);
    }

    /**
     * How often a standby tries to take the lease over: a sixth of the lease timeout (at least a second), so it
     * takes a dead holder's site over at most that long after the lease lapsed.
     */
    public long standbyPollMillis() {
        return Math.max(1_000, leaseTimeoutMillis / 6);
    }

    /** Opens the catalog with the configured credentials (the password read from its file now). */
    public JdbcCatalog open() throws IOException {
        return JdbcCatalog.open(url, credentials());
    }

    /**
     * As {@link #open()} for a process that writes only under the site lease (the daemon, a standby,
     * import-hints): an older schema is migrated only once the lease is held ({@link JdbcCatalog#openBeforeLease}).
     */
    public JdbcCatalog openBeforeLease() throws IOException {
        return JdbcCatalog.openBeforeLease(url, credentials());
    }

    private Properties credentials() throws IOException {
        Properties p = new Properties();
        if (user != null) {
            p.setProperty("user", user);
        }
        if (passwordFile != null) {
            try {
                p.setProperty("password", Files.readString(passwordFile).strip());
            } catch (IOException e) {
                throw new IOException("catalog.passwordFile: cannot read " + passwordFile + ": " + e.getMessage(), e);
            }
        }
        return p;
    }

    /** Whether the catalog is a SQLite file (else PostgreSQL). */
    public boolean isSqlite() {
        return url.startsWith(SQLITE);
    }

    static CatalogConfig parse(ConfigNode catalog, Path state, List<String> warnings) {
        if (catalog.has(PASSWORD)) {
            throw catalog.error(PASSWORD, "not allowed: put the password in a file readable only by the daemon "
                    + "and give its path as " + PASSWORD_FILE);
        }
        catalog.allow(KEYS);
        String url = catalog.string(URL, SQLITE + state.resolve(DEFAULT_FILE));
        if (url.toLowerCase(Locale.ROOT).contains("password=")) {
            throw catalog.error(URL, "must not contain a password; give its file as " + PASSWORD_FILE);
        }
        if (!url.startsWith(SQLITE) && !url.startsWith(POSTGRESQL)) {
            throw catalog.error(URL, "\"" + url + "\" must start with " + SQLITE + " or " + POSTGRESQL);
        }
        String site = catalog.string(SITE, DEFAULT_SITE);
        if (!site.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
            throw catalog.error(SITE, "\"" + site + "\" must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        long lease = catalog.duration(LEASE_TIMEOUT, DEFAULT_LEASE_TIMEOUT_MILLIS);
        if (lease < MIN_LEASE_TIMEOUT_MILLIS) {
            throw catalog.error(LEASE_TIMEOUT, "must be at least " + Units.formatDuration(MIN_LEASE_TIMEOUT_MILLIS)
                    + ", not " + Units.formatDuration(lease));
        }
        boolean standby = catalog.bool(STANDBY, false);
        if (standby && url.startsWith(SQLITE)) {
            throw catalog.error(STANDBY, "needs a PostgreSQL catalog (catalog.url jdbc:postgresql:...): a SQLite "
                    + "catalog is a file of one host, a standby on another host cannot share it");
        }
        int rehearsal = (int) catalog.integer(STANDBY_REHEARSAL, DEFAULT_STANDBY_REHEARSAL, 0, MAX_STANDBY_REHEARSAL);
        if (!standby && rehearsal > 0) {
            warnings.add(catalog.warning(STANDBY_REHEARSAL, "ignored: only a standby rehearses a takeover"));
            rehearsal = 0;
        }
        CatalogConfig config = new CatalogConfig(url, catalog.string(USER, null), catalog.path(PASSWORD_FILE, null),
                site, lease, standby, rehearsal);
        if (config.isSqlite() && (config.user != null || config.passwordFile != null)) {
            warnings.add(catalog.warning(config.user != null ? USER : PASSWORD_FILE, "ignored: SQLite has no users"));
        }
        return config;
    }

    void describe(YamlText out) {
        out.put(0, DaemonConfig.CATALOG, null).put(1, URL, YamlText.quote(url));
        if (user != null) {
            out.put(1, USER, YamlText.quote(user));
        }
        if (passwordFile != null) {
            out.put(1, PASSWORD_FILE, YamlText.quote(passwordFile));
        }
        out.put(1, SITE, YamlText.quote(site)).put(1, LEASE_TIMEOUT, Units.formatDuration(leaseTimeoutMillis))
                .put(1, STANDBY, Boolean.toString(standby));
        if (standby) {
            out.put(1, STANDBY_REHEARSAL, Integer.toString(standbyRehearsal));
        }
    }
}
