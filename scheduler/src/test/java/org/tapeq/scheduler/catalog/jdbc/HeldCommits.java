package org.tapeq.scheduler.catalog.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;

/**
 * An SQLite catalog whose transactions, once {@link #hold} was called, stop just before their COMMIT (the
 * statements of the transaction have run, the commit never does), or, after {@link #holdAfter}, just after it
 * (the commit is durable, the caller never learns it). The process is meant to be killed there.
 */
public final class HeldCommits {

    private final Runnable whenHeld;
    /** 0: commit; 1: hold before the COMMIT; 2: hold after it. */
    private volatile int hold;
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
        hold = 1;
    }

    /** From now on, each COMMIT commits and then runs {@code whenHeld} and waits forever instead of returning. */
    public void holdAfter() {
        hold = 2;
    }

    /** Opens the catalog at {@code db}; {@code whenHeld} runs on the committing thread when a commit is held. */
    public static HeldCommits open(Path db, Runnable whenHeld) throws SQLException {
        HeldCommits held = new HeldCommits(whenHeld);
        Connection real = DriverManager.getConnection("jdbc:sqlite:" + db);
        Connection wrapped = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    boolean commit = method.getName().equals("commit");
                    if (commit && held.hold == 1) {
                        held.whenHeld.run();
                        new CountDownLatch(1).await();
                    }
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (commit && held.hold == 2) {
                        held.whenHeld.run();
                        new CountDownLatch(1).await();
                    }
                    return result;
                });
        held.catalog = JdbcCatalog.open("held-commits", JdbcCatalog.Dialect.SQLITE,
                CatalogConnections.single(wrapped));
        return held;
    }
}
