package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CatalogLeaseException;
import org.tapeq.scheduler.catalog.SiteLease;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.testing.postgres.TestSchema;
import org.tapeq.testing.support.Poll;

/**
 * A start slower than the lease timeout (the library's inventory and drive status held up at the step after
 * opening it, as a large SCSI library can be): the lease is renewed through the start, so a standby on the same
 * PostgreSQL catalog keeps waiting and the daemon keeps its epoch; a lease lost during the start aborts it.
 */
@Tag("slow")
class SlowStartLeaseTest {

    private static final long TIMEOUT = 6_000;

    @TempDir
    Path tmp;

    private TestSchema schema;
    private DaemonFixture fixture;

    @BeforeEach
    void schema() {
        schema = TestSchema.create().orElse(null);
        assumeTrue(schema != null, "PostgreSQL not reachable");
    }

    @AfterEach
    void drop() throws SQLException {
        if (fixture != null) {
            fixture.close();
        }
        if (schema != null) {
            schema.close();
        }
    }

    private DaemonFixture daemon() throws Exception {
        return new DaemonFixture(Files.createDirectories(tmp.resolve("a")), String.join("\n",
                "catalog:",
                "  url: \"" + schema.url() + "\"",
                "  site: gridka-test",
                "  leaseTimeout: 6s"));
    }

    @Test
    void startLongerThanTheLeaseTimeout_standbyKeepsWaiting_epochStays() throws Exception {
        fixture = daemon();
        try (JdbcCatalog standbyCatalog = JdbcCatalog.open(schema.url())) {
            Standby standby = new Standby("gridka-test", 1_000, Thread::sleep);
            CompletableFuture<SiteLease> takenOver = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    takenOver.complete(standby.takeLease(
                            () -> standbyCatalog.acquireLease("gridka-test", "standby", "tape-b.example.org", 77,
                                    System.currentTimeMillis(), TIMEOUT),
                            () -> standbyCatalog.leaseKeepingOut("gridka-test", "standby", "tape-b.example.org",
                                    System.currentTimeMillis())));
                } catch (InterruptedException e) {
                    takenOver.cancel(false);
                } catch (RuntimeException e) {
                    takenOver.completeExceptionally(e);
                }
            }, "test-standby");
            fixture.start(step -> {
                if (step == Daemon.StartStep.LIBRARY_OPENED) {
                    waiter.start(); // the standby starts polling while the first daemon is still starting
                    sleep(2 * TIMEOUT);
                }
            });
            try {
                // and keeps polling once the first serves: at least a lease timeout's worth of looks (one a second)
                long looked = standby.polls();
                Poll.until("the standby's looks at the lease for one lease timeout after the first daemon served",
                        Duration.ofSeconds(30), () -> standby.polls() >= looked + TIMEOUT / 1_000);
                assertFalse(takenOver.isDone(), "the standby took the site over from a starting daemon");
                assertTrue(standby.waiting().startsWith("standby, lease held by"), standby.waiting());
                assertFalse(fixture.daemon.deposed().isDone(), "the first daemon was deposed");
                SiteLease held = ((JdbcCatalog) fixture.daemon.catalog()).heldLease();
                assertEquals(1, held.epoch());
                assertEquals(1, standbyCatalog.lease("gridka-test").orElseThrow().epoch());
                assertNull(fixture.daemon.notReady());
            } finally {
                waiter.interrupt();
                waiter.join(10_000);
            }
        }
    }

    @Test
    void leaseTakenOverDuringTheStart_startAborted_schedulerNeverStarted() throws Exception {
        fixture = daemon();
        CatalogLeaseException aborted = assertThrows(CatalogLeaseException.class, () -> fixture.start(step -> {
            if (step == Daemon.StartStep.LIBRARY_OPENED) {
                try (JdbcCatalog other = JdbcCatalog.open(schema.url())) {
                    // another process takes the site over as if this one had stopped renewing long ago
                    other.acquireLease("gridka-test", "other", "elsewhere.example.org", 1,
                            System.currentTimeMillis() + 3_600_000, 60_000);
                }
                sleep(TIMEOUT); // the renewal (every 2 s) learns of it meanwhile
            }
        }));
        assertTrue(aborted.getMessage().contains("start aborted after opening the library"), aborted.getMessage());
        assertTrue(aborted.getMessage().contains("elsewhere.example.org"), aborted.getMessage());
    }

    private static void sleep(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
