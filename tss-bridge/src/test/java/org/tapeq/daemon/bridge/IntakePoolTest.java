package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.time.Threads;

class IntakePoolTest {

    @Test
    void offer_whenFull_refusesWithoutRunningTheTaskAndCallsBackOnceItDrains() throws Exception {
        try (IntakePool pool = new IntakePool(1, 2, Threads.numbered("test-intake"))) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch running = new CountDownLatch(1);
            assertTrue(pool.offer(() -> {
                running.countDown();
                awaitQuietly(release);
            }, () -> { }));
            running.await();
            assertTrue(pool.offer(() -> { }, () -> { }));
            assertTrue(pool.offer(() -> { }, () -> { }));
            assertEquals(2, pool.backlog());

            AtomicInteger refusedRan = new AtomicInteger();
            AtomicReference<String> calledBackOn = new AtomicReference<>();
            CountDownLatch calledBack = new CountDownLatch(1);
            boolean taken = pool.offer(refusedRan::incrementAndGet, () -> {
                calledBackOn.set(Thread.currentThread().getName());
                calledBack.countDown();
            });
            assertFalse(taken, "a full pool refuses");
            assertEquals(1, calledBack.getCount(), "no call-back while full");

            release.countDown();
            assertTrue(calledBack.await(30, TimeUnit.SECONDS), "called back once the pool drained");
            assertEquals("test-intake-1", calledBackOn.get());
            assertNotEquals(Thread.currentThread().getName(), calledBackOn.get());
            assertEquals(0, refusedRan.get(), "a refused task is never run");
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
