package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.time.RealTimeEventLoop;

class IoGateTest {

    @Test
    void execute_poolRefusesWork_taskWaitsOnTheLoopAndRunsLaterOnThePool() throws Exception {
        // The limit is above the pool's room on purpose: the pool refuses, the gate keeps the task and retries.
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1),
                new ThreadPoolExecutor.AbortPolicy());
        try (RealTimeEventLoop loop = new RealTimeEventLoop("gate-test-loop", 1)) {
            IoGate gate = new IoGate(loop, pool, 50);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch all = new CountDownLatch(20);
            AtomicInteger onLoop = new AtomicInteger();
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                int n = i;
                gate.execute(() -> { // from the test thread: posted to the loop
                    if (loop.inLoop()) {
                        onLoop.incrementAndGet();
                    }
                    if (n == 0) {
                        awaitQuietly(release);
                    }
                    synchronized (order) {
                        order.add(n);
                    }
                    all.countDown();
                });
            }
            CountDownLatch probe = new CountDownLatch(1);
            loop.execute(probe::countDown);
            assertTrue(probe.await(10, TimeUnit.SECONDS), "the loop is free while the pool is full");
            assertTrue(gate.backlog() >= 18, "the refused tasks wait in the gate: " + gate.backlog());
            release.countDown();
            assertTrue(all.await(10, TimeUnit.SECONDS), "every task ran");
            assertEquals(0, onLoop.get());
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                expected.add(i);
            }
            synchronized (order) {
                assertEquals(expected, order, "one pool thread runs them in the order given");
            }
            assertEquals(0, gate.backlog());
        } finally {
            pool.shutdownNow();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
