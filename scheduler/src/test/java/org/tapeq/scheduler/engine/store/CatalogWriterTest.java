package org.tapeq.scheduler.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.scheduler.time.VirtualEventLoop;

class CatalogWriterTest {

    /** Collects completions on the loop; each records whether it ran on the loop. */
    private static final class Ends {
        final List<Object> values = new ArrayList<>();
        final List<RuntimeException> failures = new ArrayList<>();
        boolean allOnLoop = true;

        <T> CatalogWriter.Done<T> done(RealTimeEventLoop loop, CountDownLatch latch) {
            return new CatalogWriter.Done<>() {
                @Override
                public void succeeded(T value) {
                    allOnLoop &= loop.inLoop();
                    values.add(value);
                    latch.countDown();
                }

                @Override
                public void failed(RuntimeException e) {
                    allOnLoop &= loop.inLoop();
                    failures.add(e);
                    latch.countDown();
                }
            };
        }
    }

    private static void onLoop(RealTimeEventLoop loop, Runnable r) throws Exception {
        CompletableFuture<Void> f = new CompletableFuture<>();
        loop.execute(() -> {
            r.run();
            f.complete(null);
        });
        f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void submit_manyTasks_runOffTheLoopInOrderAndCompleteOnTheLoopInOrder() throws Exception {
        try (RealTimeEventLoop loop = new RealTimeEventLoop("writer-test-loop", 1)) {
            CatalogWriter writer = CatalogWriter.threaded(loop, 4, CatalogWriter.Timing.NONE);
            List<Integer> ran = new ArrayList<>();
            Map<String, Boolean> threads = new ConcurrentHashMap<>();
            Ends ends = new Ends();
            CountDownLatch all = new CountDownLatch(100);
            onLoop(loop, () -> {
                for (int i = 0; i < 100; i++) {
                    int n = i;
                    writer.submit(CatalogWriter.Kind.CARTRIDGE, () -> {
                        threads.put(Thread.currentThread().getName(), loop.inLoop());
                        synchronized (ran) {
                            ran.add(n);
                        }
                        return n;
                    }, ends.done(loop, all));
                }
            });
            assertTrue(all.await(10, TimeUnit.SECONDS));
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                expected.add(i);
            }
            synchronized (ran) {
                assertEquals(expected, ran, "the writer runs the tasks in submission order");
            }
            assertEquals(new ArrayList<Object>(expected), ends.values, "completions come back in the same order");
            assertTrue(ends.allOnLoop, "every completion runs on the loop");
            assertEquals(Map.of("tapeq-catalog", false), threads, "the work runs on the writer's thread only");
            assertEquals(0, writer.depth());
        }
    }

    @Test
    void submit_workThrows_failureReachesTheLoopAndLaterTasksStillRun() throws Exception {
        try (RealTimeEventLoop loop = new RealTimeEventLoop("writer-test-loop", 1)) {
            CatalogWriter writer = CatalogWriter.threaded(loop, 4, CatalogWriter.Timing.NONE);
            Ends ends = new Ends();
            CountDownLatch all = new CountDownLatch(2);
            IllegalStateException boom = new IllegalStateException("disk full");
            onLoop(loop, () -> {
                writer.submit(CatalogWriter.Kind.COMMIT, () -> {
                    throw boom;
                }, ends.done(loop, all));
                writer.submit(CatalogWriter.Kind.COMMIT, () -> "after", ends.done(loop, all));
            });
            assertTrue(all.await(10, TimeUnit.SECONDS));
            assertEquals(1, ends.failures.size());
            assertSame(boom, ends.failures.get(0));
            assertEquals(List.of("after"), ends.values);
            assertTrue(ends.allOnLoop);
        }
    }

    @Test
    void submit_writerFull_loopHoldsTheRestWithoutBlockingAndHandsThemOverInOrder() throws Exception {
        try (RealTimeEventLoop loop = new RealTimeEventLoop("writer-test-loop", 1)) {
            CatalogWriter writer = CatalogWriter.threaded(loop, 2, CatalogWriter.Timing.NONE);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch firstStarted = new CountDownLatch(1);
            Ends ends = new Ends();
            CountDownLatch all = new CountDownLatch(6);
            List<Integer> ran = new ArrayList<>();
            onLoop(loop, () -> {
                for (int i = 0; i < 6; i++) {
                    int n = i;
                    writer.submit(CatalogWriter.Kind.DELETE, () -> {
                        if (n == 0) {
                            firstStarted.countDown();
                            await(release);
                        }
                        synchronized (ran) {
                            ran.add(n);
                        }
                        return n;
                    }, ends.done(loop, all));
                }
            });
            assertTrue(firstStarted.await(10, TimeUnit.SECONDS));
            // The writer is stuck on the first task: the loop still serves other work at once.
            int[] held = new int[1];
            onLoop(loop, () -> held[0] = writer.held());
            assertEquals(4, held[0], "two tasks handed to the writer, four held by the loop");
            assertEquals(6, writer.depth());
            assertEquals(6, all.getCount(), "nothing completed while the writer is stuck");
            release.countDown();
            assertTrue(all.await(10, TimeUnit.SECONDS), "the held tasks run once the writer has room");
            synchronized (ran) {
                assertEquals(List.of(0, 1, 2, 3, 4, 5), ran);
            }
            assertEquals(List.<Object>of(0, 1, 2, 3, 4, 5), ends.values);
            onLoop(loop, () -> held[0] = writer.held());
            assertEquals(0, held[0]);
            assertEquals(0, writer.depth());
        }
    }

    @Test
    void submit_inline_runsAndCompletesBeforeSubmitReturns() {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        List<String> timed = new ArrayList<>();
        CatalogWriter writer = CatalogWriter.inline(loop, (kind, nanos) -> timed.add(kind.label()));
        List<String> steps = new ArrayList<>();
        AtomicBoolean failedToo = new AtomicBoolean();
        writer.submit(CatalogWriter.Kind.COMMIT, () -> {
            steps.add("work");
            return "v";
        }, done(v -> steps.add("done " + v), e -> failedToo.set(true)));
        steps.add("returned");
        assertEquals(List.of("work", "done v", "returned"), steps);
        assertFalse(failedToo.get());
        assertEquals(List.of("commit"), timed, "inline tasks are timed too");
        assertEquals(0, writer.depth());
    }

    @Test
    void submit_timing_toldKindOfEveryTask() throws Exception {
        try (RealTimeEventLoop loop = new RealTimeEventLoop("writer-test-loop", 1)) {
            Map<CatalogWriter.Kind, Long> timed = new ConcurrentHashMap<>();
            CatalogWriter writer = CatalogWriter.threaded(loop, 4, (kind, nanos) -> timed.merge(kind, 1L, Long::sum));
            CountDownLatch all = new CountDownLatch(3);
            Ends ends = new Ends();
            onLoop(loop, () -> {
                writer.submit(CatalogWriter.Kind.COMMIT, () -> 1, ends.done(loop, all));
                writer.submit(CatalogWriter.Kind.COMMIT, () -> 2, ends.done(loop, all));
                writer.submit(CatalogWriter.Kind.REPLACE, () -> 3, ends.done(loop, all));
            });
            assertTrue(all.await(10, TimeUnit.SECONDS));
            assertEquals(Map.of(CatalogWriter.Kind.COMMIT, 2L, CatalogWriter.Kind.REPLACE, 1L), timed);
        }
    }

    private static <T> CatalogWriter.Done<T> done(Consumer<T> ok, Consumer<RuntimeException> failed) {
        return new CatalogWriter.Done<>() {
            @Override
            public void succeeded(T value) {
                ok.accept(value);
            }

            @Override
            public void failed(RuntimeException e) {
                failed.accept(e);
            }
        };
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
