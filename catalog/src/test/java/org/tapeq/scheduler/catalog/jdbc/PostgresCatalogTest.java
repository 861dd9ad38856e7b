package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The catalog contract on PostgreSQL, each test in a schema of its own. Skipped when no server answers at
 * {@link #BASE_URL} (override with the environment variable {@code TAPEQ_TEST_POSTGRES_URL}).
 */
class PostgresCatalogTest extends AbstractCatalogTest {
    static final String BASE_URL = baseUrl();

    private String schema;

    static String baseUrl() {
        String url = System.getenv("TAPEQ_TEST_POSTGRES_URL");
        return url != null && !url.isBlank() ? url : "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    }

    /** A URL with extra parameters appended to {@link #BASE_URL}. */
    static String withParameters(String parameters) {
        return BASE_URL + (BASE_URL.contains("?") ? "&" : "?") + parameters;
    }

    /** Probed once; every test is skipped (JUnit assumption) if no server answers. */
    private static Boolean reachable;

    static synchronized void assumeServer() {
        if (reachable == null) {
            reachable = reachable();
        }
        assumeTrue(reachable, "PostgreSQL not reachable at " + JdbcCatalog.redact(BASE_URL));
    }

    static boolean reachable() {
        try (Connection c = DriverManager.getConnection(withParameters("connectTimeout=3&loginTimeout=3"))) {
            return c.isValid(3);
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    String newDatabase() throws SQLException {
        assumeServer();
        schema = "tapeq_test_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(BASE_URL); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        return withParameters("currentSchema=" + schema);
    }

    @Override
    void dropDatabase() throws SQLException {
        if (schema != null) {
            try (Connection c = DriverManager.getConnection(BASE_URL); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    @Override
    Connection rawConnection() throws SQLException {
        return DriverManager.getConnection(url);
    }

    @Override
    void failInsertsOf(String pnfsid) throws SQLException {
        try (Connection c = rawConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE FUNCTION " + schema + ".fail_insert() RETURNS trigger LANGUAGE plpgsql AS $$"
                    + " BEGIN IF NEW.pnfsid = '" + pnfsid + "' THEN RAISE EXCEPTION 'injected failure'; END IF;"
                    + " RETURN NEW; END $$");
            s.execute("CREATE TRIGGER fail_insert BEFORE INSERT ON " + schema + ".files FOR EACH ROW"
                    + " EXECUTE FUNCTION " + schema + ".fail_insert()");
        }
    }
}
