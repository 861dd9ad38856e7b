package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.daemon.bridge.ExclusiveLock;
import org.tapeq.scheduler.catalog.CatalogLeaseException;
import org.tapeq.scheduler.catalog.SiteLease;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.testing.postgres.TestSchema;

/**
 * Two daemons on one PostgreSQL catalog: the second is refused at start, naming the site and the holder; once
 * the first stops it takes the site over with the next epoch; a daemon whose lease was taken over behind its
 * back cannot record or acknowledge a flush and learns at its next renewal that it is deposed. Uses the local server
 * ({@link TestSchema}); skipped if none answers.
 */
class DaemonSiteLeaseTest {

    @TempDir
    Path tmp;

    private TestSchema schema;
    private DaemonFixture first;
    private DaemonFixture second;

    @BeforeEach
    void schema() {
        schema = TestSchema.create().orElse(null);
        assumeTrue(schema != null, "PostgreSQL not reachable");
    }

    @AfterEach
    void drop() throws SQLException {
        for (DaemonFixture f : new DaemonFixture[] {first, second}) {
            if (f != null) {
                f.close();
            }
        }
        if (schema != null) {
            schema.close();
        }
    }

    private DaemonFixture daemon(String name) throws Exception {
        return new DaemonFixture(Files.createDirectories(tmp.resolve(name)), String.join("\n",
                "catalog:",
                "  url: \"" + schema.url() + "\"",
                "  site: gridka-test",
                "  leaseTimeout: 6s"));
    }

    @Test
    void secondDaemonRefusedNamingTheSite_takesOverAfterTheFirstStops() throws Exception {
        first = daemon("a");
        first.start();
        second = daemon("b");
        CatalogLeaseException refused = assertThrows(CatalogLeaseException.class, second::start);
        for (String part : new String[] {"site 'gridka-test'", "pid " + ProcessHandle.current().pid(), "since",
                "epoch 1", "a second daemon must not share it"}) {
            assertTrue(refused.getMessage().contains(part), part + " in: " + refused.getMessage());
        }
        first.stop();
        second.start();
        SiteLease lease = ((JdbcCatalog) second.daemon.catalog()).heldLease();
        assertEquals(2, lease.epoch());
        second.labelAll();
        second.onTape(DaemonFixture.randomBytes(2000));
    }

    @Test
    void leaseTakenOverBehindItsBack_flushNotRecorded_daemonDeposed() throws Exception {
        first = daemon("a");
        first.start();
        first.labelAll();
        first.onTape(DaemonFixture.randomBytes(2000));
        // Another process takes the site over as if the first had stopped renewing long ago.
        try (JdbcCatalog other = JdbcCatalog.open(schema.url())) {
            assertEquals(2, other.acquireLease("gridka-test", "other", "elsewhere.example.org", 1,
                    System.currentTimeMillis() + 3_600_000, 60_000).epoch());

            String id = DaemonFixture.newPnfsId();
            first.flush(id, DaemonFixture.randomBytes(3000), true);
            String reason = first.daemon.deposed().get(30, TimeUnit.SECONDS);
            assertTrue(reason.contains("elsewhere.example.org"), reason);
            // Which comes first is a race: the flush's fenced commit is refused (an error answer), or the renewal
            // learns of the takeover and holds all work for good (no answer: the request stays for the new holder).
            // Either way the flush is not acknowledged: its link is not removed without an error file.
            if (first.error(id) == null) {
                assertTrue(Files.exists(first.dir.outLink(id), java.nio.file.LinkOption.NOFOLLOW_LINKS),
                        "a deposed daemon acknowledged a flush");
            } else {
                assertTrue(first.error(id).message().contains("taken over"), first.error(id).message());
            }
            assertFalse(first.daemon.catalog().file(id).isPresent());
        }
    }

    /**
     * A deposed holder still holding the request directory's lock: the new holder's start waits for it (bounded by
     * twice the lease timeout) instead of failing, and serves once it is let go.
     */
    @Test
    void requestDirectoryLockedByDeposedHolder_startWaitsForIt() throws Exception {
        first = daemon("a");
        ExclusiveLock old = ExclusiveLock.take(first.endit.resolve(".tapeq-daemon.lock"), "request directory");
        CompletableFuture<Daemon> starting = CompletableFuture.supplyAsync(() -> {
            try {
                return first.start();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            starting.get(3, TimeUnit.SECONDS);
            throw new AssertionError("started while another holds the request directory's lock");
        } catch (java.util.concurrent.TimeoutException e) {
            // waiting for the lock, as it should
        } catch (ExecutionException e) {
            throw new AssertionError("the start failed at the lock instead of waiting for it", e.getCause());
        } finally {
            old.close();
        }
        starting.get(DaemonFixture.WAIT.toSeconds(), TimeUnit.SECONDS); // the rest of a start, on a loaded machine
        first.labelAll();
        first.onTape(DaemonFixture.randomBytes(2000));
    }

    @Test
    void requestDirectoryLockedPastTwiceTheLeaseTimeout_startFailsNamingIt() throws Exception {
        first = daemon("a");
        ExclusiveLock old = ExclusiveLock.take(first.endit.resolve(".tapeq-daemon.lock"), "request directory");
        try {
            long t0 = System.nanoTime();
            Exception e = assertThrows(Exception.class, first::start);
            long waited = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(e.getMessage().contains("still held after waiting 12 s"), e.getMessage());
            assertTrue(waited >= 12_000, "gave up after " + waited + " ms");
        } finally {
            old.close();
        }
    }
}
