package org.tapeq.scheduler.catalog.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.tapeq.scheduler.catalog.jdbc.Records.aggregate;
import static org.tapeq.scheduler.catalog.jdbc.Records.cartridge;
import static org.tapeq.scheduler.catalog.jdbc.Records.members;
import static org.tapeq.scheduler.catalog.jdbc.Records.pnfsid;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CatalogUnavailableException;
import org.tapeq.scheduler.model.FileRecord;

/**
 * A write whose COMMIT reached the database but whose answer was lost (the connection dropped in between) is
 * reported as unavailable, and the catalog writer runs it again: the second run must see the first one's effect
 * and neither apply it twice nor report it as not done.
 */
class LostCommitTest {

    @TempDir
    Path dir;

    private Connection real;
    /** Set: the next COMMIT reaches the database, then fails as a lost connection. */
    private boolean loseNextCommitAnswer;
    private JdbcCatalog catalog;

    @BeforeEach
    void open() throws SQLException {
        real = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("catalog.db"));
        Connection wrapped = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("commit") && loseNextCommitAnswer) {
                        loseNextCommitAnswer = false;
                        throw new SQLException("An I/O error occurred while sending to the backend.", "08006");
                    }
                    return result;
                });
        catalog = JdbcCatalog.open("lost-commit", JdbcCatalog.Dialect.SQLITE, CatalogConnections.single(wrapped));
        catalog.putCartridge(cartridge("A00001", "atlas"));
    }

    @AfterEach
    void close() {
        catalog.close();
    }

    @Test
    void recordMount_commitAnswerLostThenRetried_countsOneMount() {
        loseNextCommitAnswer = true;
        assertThrows(CatalogUnavailableException.class, () -> catalog.recordMount("A00001", 1_000));
        catalog.recordMount("A00001", 1_000); // the writer's retry

        CartridgeRecord c = catalog.cartridge("A00001").orElseThrow();
        assertEquals(1, c.mountCount());
        assertEquals(1_000, c.lastMount());

        catalog.recordMount("A00001", 2_000);
        assertEquals(2, catalog.cartridge("A00001").orElseThrow().mountCount());
    }

    @Test
    void recordMount_firstMountAtTimeZero_isCounted() {
        catalog.recordMount("A00001", 0);
        assertEquals(1, catalog.cartridge("A00001").orElseThrow().mountCount());
    }

    @Test
    void delete_commitAnswerLostThenRetried_reportsTheFileDeletedOnce() {
        List<FileRecord> files = members("A00001", 1, 1, 2, 1_000, "d");
        catalog.commitAggregate(aggregate("A00001", 1, files, "atlas", "d", 100), files);

        loseNextCommitAnswer = true;
        assertThrows(CatalogUnavailableException.class, () -> catalog.delete(List.of(pnfsid(1)), 5_000));
        assertEquals(List.of(pnfsid(1)), catalog.delete(List.of(pnfsid(1)), 5_000)); // the writer's retry

        assertEquals(1_000, catalog.cartridge("A00001").orElseThrow().reclaimableBytes());
        assertEquals(List.of(), catalog.delete(List.of(pnfsid(1)), 6_000), "a later delete finds nothing");
    }
}
