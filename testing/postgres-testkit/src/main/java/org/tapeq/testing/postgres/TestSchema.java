package org.tapeq.testing.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A schema of its own on the local PostgreSQL server for one test, dropped by {@link #close()}. The server is
 * {@code TAPEQ_TEST_POSTGRES_URL}, else {@value #DEFAULT_URL}; {@link #create()} is empty when none answers, so
 * the test can skip.
 */
public final class TestSchema implements AutoCloseable {

    public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final Pattern URL = Pattern.compile("jdbc:postgresql://([^:/?]+)(?::(\\d+))?/([^?]*)(\\?.*)?");

    private final String base;
    private final Matcher parts;
    private final String name;

    private TestSchema(String base, Matcher parts, String name) {
        this.base = base;
        this.parts = parts;
        this.name = name;
    }

    /** A new schema, or empty if no server answers within a few seconds. */
    public static Optional<TestSchema> create() {
        String env = System.getenv("TAPEQ_TEST_POSTGRES_URL");
        String base = env != null && !env.isBlank() ? env : DEFAULT_URL;
        Matcher parts = URL.matcher(base);
        if (!parts.matches()) {
            throw new IllegalArgumentException("TAPEQ_TEST_POSTGRES_URL: not a jdbc:postgresql://host[:port]/db URL: "
                    + base);
        }
        String name = "tapeq_test_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(base + (base.contains("?") ? "&" : "?") + "connectTimeout=3");
             Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + name);
        } catch (SQLException e) {
            return Optional.empty();
        }
        return Optional.of(new TestSchema(base, parts, name));
    }

    /** The server's host. */
    public String host() {
        return parts.group(1);
    }

    /** The server's port. */
    public int port() {
        return parts.group(2) == null ? 5432 : Integer.parseInt(parts.group(2));
    }

    /** The URL of this schema on the server. */
    public String url() {
        return base + (base.contains("?") ? "&" : "?") + "currentSchema=" + name;
    }

    /** The URL of this schema through a proxy listening on 127.0.0.1:{@code port}. */
    public String urlVia(int proxyPort) {
        return "jdbc:postgresql://127.0.0.1:" + proxyPort + "/" + parts.group(3)
                + (parts.group(4) == null ? "?" : parts.group(4) + "&") + "currentSchema=" + name;
    }

    /** Drops the schema and everything in it. */
    @Override
    public void close() throws SQLException {
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA " + name + " CASCADE");
        }
    }
}
