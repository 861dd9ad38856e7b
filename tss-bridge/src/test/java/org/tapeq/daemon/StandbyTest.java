package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.SiteLease;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;

/**
 * A standby on a catalog whose lease a live holder keeps: it waits, says whom for, and takes the site over
 * with the next epoch only once the holder stops renewing (lapse) or releases it. Virtual time: the sleeper
 * moves the clock on by the poll period.
 */
class StandbyTest {

    private static final long TTL = 30_000;
    private static final long POLL = 5_000;

    @TempDir
    Path dir;

    private JdbcCatalog active;
    private JdbcCatalog standbyCatalog;
    private final AtomicLong clock = new AtomicLong(1_000);
    private final List<String> seen = new ArrayList<>();

    @BeforeEach
    void open() {
        String url = "jdbc:sqlite:" + dir.resolve("catalog.db");
        active = JdbcCatalog.open(url);
        standbyCatalog = JdbcCatalog.open(url);
        active.acquireLease("gridka", "a", "tape-a.example.org", 4242, clock.get(), TTL);
    }

    @AfterEach
    void close() {
        standbyCatalog.close();
        active.close();
    }

    private SiteLease acquire() {
        return standbyCatalog.acquireLease("gridka", "b", "tape-b.example.org", 77, clock.get(), TTL);
    }

    private Optional<SiteLease> keepingOut() {
        return standbyCatalog.leaseKeepingOut("gridka", "b", "tape-b.example.org", clock.get());
    }

    private SiteLease take(Standby standby) throws InterruptedException {
        return standby.takeLease(this::acquire, this::keepingOut);
    }

    @Test
    void holderKeepsRenewing_standbyWaits_takesOverOnceTheLeaseLapses() throws Exception {
        Standby[] self = new Standby[1];
        self[0] = new Standby("gridka", POLL, millis -> {
            seen.add(self[0].waiting());
            // the holder's lease row is untouched by the waiting standby
            assertEquals("a", standbyCatalog.lease("gridka").orElseThrow().holder());
            clock.addAndGet(millis);
            if (clock.get() < 60_000) {
                active.renewLease(clock.get()); // alive until 60 s, then killed: its last expiry is < 90 s
            }
        });
        SiteLease taken = take(self[0]);

        assertEquals(2, taken.epoch());
        assertEquals("b", standbyCatalog.lease("gridka").orElseThrow().holder());
        long lastExpiry = 56_000 + TTL; // the last renewal, at 56 s
        assertTrue(clock.get() >= lastExpiry && clock.get() < lastExpiry + POLL, "taken over at " + clock.get());
        assertNull(self[0].waiting());
        assertEquals("standby, lease held by tape-a.example.org pid 4242 (epoch 1)", seen.get(0));
        assertEquals(seen.size() + 1, self[0].polls());
        assertEquals(1, self[0].attempts(), "the takeover (which locks the row) is tried only once it can succeed");
    }

    @Test
    void holderReleases_takenAtTheNextAttempt() throws Exception {
        Standby[] self = new Standby[1];
        self[0] = new Standby("gridka", POLL, millis -> {
            seen.add(self[0].waiting());
            clock.addAndGet(millis);
            if (seen.size() == 2) {
                active.close(); // a clean stop releases the lease
            }
        });
        SiteLease taken = take(self[0]);

        assertEquals(2, taken.epoch());
        assertEquals(3, self[0].polls());
        assertEquals(1_000 + 2 * POLL, clock.get());
    }

    @Test
    void takeoverLostToAnotherStandby_isRefused_writesNothing_triedAgainAtTheNextPoll() throws Exception {
        active.close(); // released: the site may be taken...
        JdbcCatalog other = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        try {
            Standby[] self = new Standby[1];
            self[0] = new Standby("gridka", POLL, millis -> {
                seen.add(self[0].waiting());
                assertEquals("c", standbyCatalog.lease("gridka").orElseThrow().holder(), "the refused takeover "
                        + "wrote nothing");
                other.close(); // the winner stops cleanly
                clock.addAndGet(millis);
            });
            SiteLease taken = self[0].takeLease(() -> {
                if (self[0].attempts() == 1) { // ...but another standby takes it between this one's look and its try
                    other.acquireLease("gridka", "c", "tape-c.example.org", 88, clock.get(), TTL);
                }
                return acquire();
            }, this::keepingOut);

            assertEquals(3, taken.epoch());
            assertEquals(1, seen.size());
            assertTrue(seen.get(0).startsWith("standby, lost the takeover to another tapeq: site 'gridka': the "
                    + "catalog is in use by another tapeq, held by host tape-c.example.org pid 88"), seen.get(0));
            assertEquals(2, self[0].attempts());
        } finally {
            other.close();
        }
    }

    @Test
    void freeLease_takenAtOnce_neverWaits() throws Exception {
        active.close();
        Standby standby = new Standby("gridka", POLL, millis -> {
            throw new AssertionError("a standby on a free site waited");
        });
        assertEquals(2, take(standby).epoch());
        assertEquals(1, standby.polls());
        assertEquals(1, standby.attempts());
    }
}
