package org.tapeq.scheduler.catalog.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Properties;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * Where {@link JdbcCatalog} gets its connection for one operation, and what it does with it afterwards.
 *
 * <p>Design notes. PostgreSQL: a HikariCP pool of one connection (the catalog serialises its calls under one
 * lock, so a second connection would sit idle). Each operation borrows it and gives it back; Hikari checks a
 * connection that was idle before lending it, replaces one that failed, and opens a new one when the server is
 * back, so a server restart costs the operations that ran into it and nothing after. The pool is built even if
 * the server is down ({@code initializationFailTimeout = -1}); a borrow then waits {@link #CONNECT_TIMEOUT_MS}
 * and fails. A failure that says the server is unreachable ({@link #isConnectionLoss}) evicts the connection
 * and is reported as {@code CatalogUnavailableException}, which callers may retry; so is SQLite's BUSY/LOCKED
 * ({@link #isBusy}), and a failure the server may get past later ({@link #isTransient}: deadlock, serialisation
 * failure, disk full, out of memory), which keeps the connection. Every other SQL error fails the operation at
 * once.
 *
 * <p>SQLite: one connection to the file for the catalog's life, never replaced: there is no server to lose,
 * and a pool would only add a second writer to a database that has one (WAL, BEGIN IMMEDIATE). The prepared
 * statements of the SQLite connection are kept across operations; those of a pooled connection are closed
 * when it goes back.
 */
abstract class CatalogConnections implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CatalogConnections.class);

    /** How long an operation waits for a PostgreSQL connection before it fails as unavailable. */
    static final long CONNECT_TIMEOUT_MS = 5_000;
    /** How long a validity check of an idle PostgreSQL connection may take. */
    static final long VALIDATION_TIMEOUT_MS = 3_000;
    /** How often Hikari checks the idle PostgreSQL connection, so a dead one is found before it is lent. */
    static final long KEEPALIVE_MS = 30_000;
    /** PostgreSQL's own connect timeout, seconds (a server host that is down does not answer at all). */
    static final int DRIVER_CONNECT_TIMEOUT_S = 5;
    /**
     * How long the server lets a catalog session sit inside an open transaction without a command before it ends
     * the session (PostgreSQL's {@code idle_in_transaction_session_timeout}). A catalog transaction is a short
     * run of statements with no wait between them, so only a holder that died, hung or was cut off from the
     * server stays idle that long; ending its session releases the fence's row lock, which a standby's takeover
     * (SELECT ... FOR UPDATE on the lease row) would otherwise wait for until the server noticed the dead
     * connection (hours with the kernel's default TCP keepalive). Shorter than the shortest lease timeout (6 s).
     */
    static final long IDLE_IN_TRANSACTION_MS = 5_000;
    /**
     * The server's TCP keepalive towards catalog sessions (idle seconds, probe interval, probes): a session of a
     * host that vanished outside a transaction is ended within about 20 s instead of the kernel's two hours.
     */
    static final int[] SERVER_KEEPALIVE = {10, 3, 3};
    /** The session settings above, as the driver's {@code options} start-up parameter. */
    static final String SESSION_OPTIONS = "-c idle_in_transaction_session_timeout=" + IDLE_IN_TRANSACTION_MS
            + " -c tcp_keepalives_idle=" + SERVER_KEEPALIVE[0] + " -c tcp_keepalives_interval=" + SERVER_KEEPALIVE[1]
            + " -c tcp_keepalives_count=" + SERVER_KEEPALIVE[2];

    /** The connection for one operation. */
    abstract Connection acquire() throws SQLException;

    /** Gives back what {@link #acquire} lent; {@code lost}: it failed as a connection loss and must not be reused. */
    abstract void release(Connection connection, boolean lost);

    /** Whether prepared statements stay valid across operations (the connection is never replaced). */
    abstract boolean keepsStatements();

    @Override
    public abstract void close() throws SQLException;

    /**
     * Whether {@code e} (or an exception it chains) says the database could not be reached rather than that the
     * statement was wrong: SQLSTATE class 08 (connection exception), 57P01-57P03 (admin shutdown, crash shutdown,
     * cannot connect now), 57P05 (the server ended an idle session), or HikariCP's {@link SQLTransientConnectionException} (no connection within the pool's
     * timeout). Nothing else: a constraint violation, a data error, a syntax error or a cancelled statement is
     * about what was asked, and retrying it would fail the same way for ever ({@link #isTransient} names the
     * failures worth waiting out although the connection is fine).
     */
    static boolean isConnectionLoss(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException sql) {
                for (SQLException s = sql; s != null; s = s.getNextException()) {
                    if (isConnectionState(s.getSQLState())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Whether {@code e} (or an exception it chains) is SQLite's BUSY or LOCKED: another process held the
     * database longer than the busy timeout. Transient: the same operation may succeed later.
     */
    static boolean isBusy(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLiteException sqlite) {
                int primary = sqlite.getResultCode().code & 0xff; // extended codes keep the primary in the low byte
                if (primary == SQLiteErrorCode.SQLITE_BUSY.code || primary == SQLiteErrorCode.SQLITE_LOCKED.code) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isConnectionState(String state) {
        return state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
                || state.equals("57P03") || state.equals("57P05"));
    }

    /**
     * Whether {@code e} (or an exception it chains) is a failure the same operation may get past later, though
     * the server answers: SQLSTATE 40001 (serialisation failure) or 40P01 (deadlock), where the server rolled the
     * transaction back and asks for it again; class 53 (insufficient resources: 53100 disk full, 53200 out of
     * memory, 53300 too many connections); SQLite's SQLITE_FULL (the disk is full). Not the rest of class 40
     * (40002, an integrity constraint, fails again the same way).
     */
    static boolean isTransient(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLiteException sqlite) {
                if ((sqlite.getResultCode().code & 0xff) == SQLiteErrorCode.SQLITE_FULL.code) {
                    return true;
                }
            } else if (t instanceof SQLException sql) {
                for (SQLException s = sql; s != null; s = s.getNextException()) {
                    String state = s.getSQLState();
                    if (state != null && (state.equals("40001") || state.equals("40P01") || state.startsWith("53"))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** One SQLite connection for the catalog's life. */
    static CatalogConnections single(Connection connection) {
        return new CatalogConnections() {
            @Override
            Connection acquire() {
                return connection;
            }

            @Override
            void release(Connection c, boolean lost) {
            }

            @Override
            boolean keepsStatements() {
                return true;
            }

            @Override
            public void close() throws SQLException {
                connection.close();
            }
        };
    }

    /** A pool of one PostgreSQL connection; built even if the server is down now. */
    static CatalogConnections pooled(String jdbcUrl, Properties credentials, String description) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("tapeq-catalog-pool");
        config.setJdbcUrl(jdbcUrl);
        Properties properties = new Properties();
        properties.putAll(credentials);
        properties.putIfAbsent("connectTimeout", Integer.toString(DRIVER_CONNECT_TIMEOUT_S));
        properties.putIfAbsent("options", SESSION_OPTIONS); // an options= in the catalog URL replaces these
        properties.putIfAbsent("tcpKeepAlive", "true"); // this side notices a vanished server host too
        config.setDataSourceProperties(properties);
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(CONNECT_TIMEOUT_MS);
        config.setValidationTimeout(VALIDATION_TIMEOUT_MS);
        config.setKeepaliveTime(KEEPALIVE_MS);
        config.setInitializationFailTimeout(-1);
        config.setAutoCommit(true);
        HikariDataSource pool = new HikariDataSource(config);
        return new CatalogConnections() {
            @Override
            Connection acquire() throws SQLException {
                return pool.getConnection();
            }

            @Override
            void release(Connection c, boolean lost) {
                if (lost) {
                    pool.evictConnection(c);
                    return;
                }
                try {
                    c.close();
                } catch (SQLException e) {
                    LOG.debug("Catalog {}: returning a connection: {}", description, e.toString());
                }
            }

            @Override
            boolean keepsStatements() {
                return false;
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }

    /** A SQLite connection with the catalog's settings. */
    static Connection sqlite(String jdbcUrl, Properties sqliteProperties) throws SQLException {
        return DriverManager.getConnection(jdbcUrl, sqliteProperties);
    }
}
