package org.tapeq.scheduler.catalog.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;

/**
 * An SQLite catalog whose transactions, once {@link #hold} was called, stop just before their COMMIT: the
 * statements of the transaction have run, the commit never does (the process is meant to be killed there).
 */
public final class HeldCommits {

    private final Runnable whenHeld;
    private volatile boolean hold;
    private JdbcCatalog catalog;

    private HeldCommits(Runnable whenHeld) {
        this.whenHeld = whenHeld;
    }

    /** The catalog. */
    public JdbcCatalog catalog() {
        return catalog;
    }

    /** From now on, each COMMIT runs {@code whenHeld} and then waits forever instead of committing. */
    public void hold() {
        hold = true;
    }

    /** Opens the catalog at {@code db}; {@code whenHeld} runs on the committing thread when a commit is held. */
    public static HeldCommits open(Path db, Runnable whenHeld) throws SQLException {
        HeldCommits held = new HeldCommits(whenHeld);
        Connection real = DriverManager.getConnection("jdbc:sqlite:" + db);
        Connection wrapped = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("commit") && held.hold) {
                        held.whenHeld.run();
                        new CountDownLatch(1).await();
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        held.catalog = JdbcCatalog.open("held-commits", JdbcCatalog.Dialect.SQLITE,
                CatalogConnections.single(wrapped));
        return held;
    }
}
