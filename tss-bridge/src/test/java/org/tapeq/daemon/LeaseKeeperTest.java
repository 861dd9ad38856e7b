package org.tapeq.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogLeaseException;

/** The lease keeper's step-down, on a catalog stub and separate wall and monotonic clocks. */
class LeaseKeeperTest {

    private static final long TIMEOUT = 30_000;
    private static final long START = 1_700_000_000_000L;

    private long wall = START;
    private long nanos = 5_000_000_000L;
    /** What the catalog does with the next renewal: null to accept it, else thrown. */
    private RuntimeException renewal;
    private final List<Long> renewedAt = new ArrayList<>();
    private final List<String> calls = new ArrayList<>();
    private final CompletableFuture<String> deposed = new CompletableFuture<>();

    private final Catalog catalog = (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(),
            new Class<?>[] {Catalog.class}, (proxy, method, args) -> {
                if (!method.getName().equals("renewLease")) {
                    throw new UnsupportedOperationException(method.getName());
                }
                if (renewal != null) {
                    throw renewal;
                }
                renewedAt.add((Long) args[0]);
                return null;
            });

    private final CatalogHealth health = new CatalogHealth();
    private final LeaseKeeper keeper = new LeaseKeeper(catalog, why -> calls.add("hold: " + why),
            () -> calls.add("resume"), TIMEOUT, () -> wall, () -> nanos, nanos, deposed, health::renewal);


    private void advance(long millis) {
        wall += millis;
        nanos += millis * 1_000_000;
    }

    @Test
    void check_renewalsSucceed_noHold() {
        for (int i = 0; i < 10; i++) {
            advance(keeper.renewEveryMillis());
            keeper.renew();
            keeper.check();
        }
        assertTrue(calls.isEmpty(), calls.toString());
        assertNull(keeper.held());
        assertEquals(10, renewedAt.size());
        assertEquals(wall, renewedAt.get(9), "the expiry is written on the wall clock");
    }

    @Test
    void check_renewalsFailPastTwoThirds_holdsOnce() {
        renewal = new IllegalStateException("connection refused");
        advance(keeper.stepDownAfterMillis());
        keeper.renew();
        keeper.check();
        assertTrue(calls.isEmpty(), "held at exactly two thirds: " + calls);

        advance(1);
        keeper.check();
        keeper.check();
        assertEquals(1, calls.size(), calls.toString());
        assertTrue(calls.get(0).startsWith("hold: site lease not renewed for 20 s"), calls.get(0));
        assertNotNull(keeper.held());
        assertTrue(!deposed.isDone());
    }

    @Test
    void check_renewalSucceedsAgainAfterHold_resumes() {
        renewal = new IllegalStateException("connection refused");
        advance(keeper.stepDownAfterMillis() + 1);
        keeper.renew();
        keeper.check();
        renewal = null;
        advance(1_000);
        keeper.renew();
        keeper.check();
        assertEquals(2, calls.size(), calls.toString());
        assertEquals("resume", calls.get(1));
        assertNull(keeper.held());
    }

    @Test
    void renew_refused_holdsWorkAndCompletesDeposed() {
        renewal = new CatalogLeaseException("site lease of 'main' was taken over by host-b (epoch 3)");
        advance(keeper.renewEveryMillis());
        keeper.renew();
        assertTrue(deposed.isDone());
        assertEquals(1, calls.size(), calls.toString());
        assertTrue(calls.get(0).startsWith("hold: deposed: "), calls.get(0));
        keeper.check();
        assertEquals(1, calls.size(), "held once, never resumed: " + calls);
    }

    @Test
    void check_wallClockSteppedBack_holdsByMonotonicAge() {
        renewal = new IllegalStateException("connection refused");
        wall -= 3_600_000; // an hour back: the wall-clock age is negative
        nanos += (keeper.stepDownAfterMillis() + 1) * 1_000_000;
        keeper.check();
        assertEquals(1, calls.size(), calls.toString());
        assertNotNull(keeper.held());
    }

    @Test
    void check_noRenewalForWholeTimeout_deposedWhileCatalogStaysUnreachable() {
        renewal = new IllegalStateException("connection refused");
        advance(TIMEOUT);
        keeper.renew();
        keeper.check();
        assertTrue(!deposed.isDone(), "deposed at exactly the timeout");
        assertEquals(1, calls.size(), calls.toString());

        advance(1);
        keeper.check();
        assertTrue(deposed.isDone(), "a holder cut off past the lease timeout must take itself as deposed");
        assertTrue(deposed.join().contains("longer than catalog.leaseTimeout"), deposed.join());
        assertEquals(2, calls.size(), calls.toString());
        assertTrue(calls.get(1).startsWith("hold: deposed: "), calls.get(1));
        renewal = null;
        keeper.renew();
        keeper.check();
        assertEquals(2, calls.size(), "never resumed once deposed: " + calls);
    }

    @Test
    void renew_fails_catalogShownUnreachableUntilARenewalSucceeds() {
        health.markOpened();
        assertTrue(health.reachable());
        renewal = new IllegalStateException("connection refused");
        advance(keeper.renewEveryMillis());
        keeper.renew();
        assertTrue(!health.reachable(), "a failed renewal must show the catalog unreachable");
        assertTrue(health.unreachable().contains("renewing the site lease failed: connection refused"),
                health.unreachable());
        renewal = null;
        advance(keeper.renewEveryMillis());
        keeper.renew();
        assertTrue(health.reachable(), "a successful renewal clears it: " + health.unreachable());
        assertNull(health.unreachable());
    }
}
