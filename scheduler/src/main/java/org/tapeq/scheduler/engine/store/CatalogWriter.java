package org.tapeq.scheduler.engine.store;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogUnavailableException;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.time.EventLoop;
import org.tapeq.scheduler.time.Threads;

/**
 * The one way the engine's catalog calls run once the loop serves work: one writer, first in first out, its
 * completions posted back to the loop.
 *
 * <p>Design notes. In real time the work runs on one thread of its own ({@code tapeq-catalog}; it ends after
 * a few idle seconds and starts again with the next task), so a commit, a delete of a thousand ids or the
 * contents of a rebuilt cartridge never hold the loop. In virtual time ({@link #inline}) the work runs at once
 * on the loop and its completion follows in the same call, exactly where the call stood before, so the
 * simulator stays deterministic. One writer keeps the order: a read submitted after a write sees it, and
 * work that needs a value read after a write (the cartridge after a commit) does the read in the same task.
 *
 * <p>Back-pressure: at most {@code capacity} tasks are handed to the writer thread at a time. When that many
 * are in flight, the loop does not wait: further tasks are held, in order, in a list the loop owns and handed
 * over as completions come back. Whoever waits for a completion (a drive whose commit is held, a rebuild, a
 * batch of removes) waits with it; the loop goes on serving everything else. Only the loop calls
 * {@link #submit}; the counts are the loop's, except {@link #depth()}, which any thread may read.
 *
 * <p>Catalog outage (real time only). A task that fails with {@link CatalogUnavailableException} (the database
 * cannot be reached: server restarting, connection cut) is not completed: the writer marks the catalog
 * unreachable, tells the loop ({@link Health}), waits ({@link #RETRY_FIRST_MILLIS} doubling up to
 * {@link #RETRY_MAX_MILLIS}) and runs the same task again, for as long as the outage lasts; the tasks after it
 * wait behind it, so the order is kept. The first task that succeeds again marks the catalog reachable and
 * tells the loop. So an outage never turns into failed commits, reads or removes: they complete late. There is
 * no limit on the wait: a commit held here is for a tape file already written, and failing it would only make
 * the pool flush the file again (dead space); the pool's own timeouts bound how long a request waits. The
 * reachability ({@link #reachable()}) is the writer thread's to change and any thread's to read.
 *
 * <p>Group commit ({@link #commit}). An aggregate commit does not always get a task of its own: if the task
 * submitted last is a batch of aggregate commits ({@link CommitBatch}) the writer has not started yet, the
 * commit joins it, and the writer records the whole batch in one transaction ({@link Catalog#commitAggregates}:
 * all or none), then reads the cartridges. So while one transaction is in flight, the commits of the other
 * drives gather behind it and share the next one. What may be batched: only aggregate commits submitted one
 * directly after another; any other task (a mount, a drive, a delete, a repack commit, a read,
 * {@link #afterWrites}) submitted after a batch closes it to further joins. Why that is safe: the catalog sees
 * exactly the order of calls it saw without batching (the joined commits run where they were submitted, with
 * no other task between them), every read or barrier submitted after a commit still runs after it, and
 * nothing is reported before its transaction ended: the completions go to the loop, one per aggregate, in
 * submission order, only after the shared transaction committed (or failed), each in a try of its own so a
 * completion that throws leaves no other untold. A shared transaction that failed (and rolled back) is followed by
 * one transaction per aggregate, and each is told its own outcome ({@link CommitBatch}); an unreachable catalog or
 * a lost lease fails the run, and an unreachable catalog runs the same batch again, like any task. The cartridge record each commit is told is read after the
 * batch, so it may already count the later aggregates of the same batch on that cartridge (never fewer).
 * Inline (virtual time) every batch holds one commit, as before.
 */
public final class CatalogWriter {

    private static final Logger LOG = LoggerFactory.getLogger(CatalogWriter.class);

    /** Tasks handed to the writer thread at most at a time, unless the builder says otherwise. */
    public static final int DEFAULT_CAPACITY = 256;

    /** What a task does, for the latency histogram. */
    public enum Kind {
        /** {@code commitAggregate} (or a batch of them, {@link #commit}) and the re-read of the cartridges. */
        COMMIT,
        /** {@code putCartridge}. */
        CARTRIDGE,
        /** {@code recordMount}. */
        MOUNT,
        /** {@code putDrive}. */
        DRIVE,
        /** {@code delete} of a batch of removes. */
        DELETE,
        /** {@code replaceCartridgeContents} (rebuild, relabel). */
        REPLACE,
        /** A read that must see the writes before it. */
        READ;

        /** The label value in metrics. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The end of a task, on the loop. */
    public interface Done<T> {
        void succeeded(T value);

        void failed(RuntimeException e);

        /** Runs {@code then} whether the task succeeded or failed. */
        static <T> Done<T> always(Runnable then) {
            return new Done<>() {
                @Override
                public void succeeded(T value) {
                    then.run();
                }

                @Override
                public void failed(RuntimeException e) {
                    then.run();
                }
            };
        }

        /** Completes {@code future} as the task ends. */
        static <T> Done<T> into(CompletableFuture<T> future) {
            return new Done<>() {
                @Override
                public void succeeded(T value) {
                    future.complete(value);
                }

                @Override
                public void failed(RuntimeException e) {
                    future.completeExceptionally(e);
                }
            };
        }
    }

    /** Told on the loop when the catalog becomes unreachable or reachable again. */
    @FunctionalInterface
    public interface Health {
        Health NONE = (reachable, reason) -> { };

        /** {@code reason}: why it is unreachable (the failure's message), or null when reachable. */
        void changed(boolean reachable, String reason);
    }

    /** First wait before a task that found the catalog unreachable runs again, ms. */
    public static final long RETRY_FIRST_MILLIS = 250;
    /** Longest wait between two attempts during an outage, ms. */
    public static final long RETRY_MAX_MILLIS = 5_000;

    /** Told the duration of every task, on the writer's thread. */
    @FunctionalInterface
    public interface Timing {
        Timing NONE = (kind, nanos) -> { };

        void taskDone(Kind kind, long nanos);

        /** A transaction recorded {@code aggregates} aggregate commits (group commit), on the writer's thread. */
        default void batchCommitted(int aggregates) {
        }
    }

    private final EventLoop loop;
    /** Null: run inline. */
    private final Executor thread;
    private final int capacity;
    private final Timing timing;
    private final ArrayDeque<Task<?>> held = new ArrayDeque<>();
    private final AtomicInteger depth = new AtomicInteger();
    private int inFlight;
    private Health health = Health.NONE;
    /** The batch of aggregate commits submitted last, which further commits may join; null after any other task. */
    private CommitBatch openBatch;
    /** Written by the writer thread only. */
    private volatile boolean reachable = true;
    private volatile long unreachableSince;
    private volatile String unreachableReason;

    private CatalogWriter(EventLoop loop, Executor thread, int capacity, Timing timing) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.loop = loop;
        this.thread = thread;
        this.capacity = capacity;
        this.timing = timing;
    }

    /** Runs every task at once on the caller (virtual time). */
    public static CatalogWriter inline(EventLoop loop, Timing timing) {
        return new CatalogWriter(loop, null, 1, timing);
    }

    /** Runs the tasks on a thread named {@code tapeq-catalog}, at most {@code capacity} handed over at a time. */
    public static CatalogWriter threaded(EventLoop loop, int capacity, Timing timing) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                Threads.named("tapeq-catalog"));
        pool.allowCoreThreadTimeOut(true);
        return new CatalogWriter(loop, pool, capacity, timing);
    }

    /** Who is told (on the loop) when the catalog becomes unreachable or reachable; set before the first task. */
    public void health(Health h) {
        health = h;
    }

    /** Whether the last catalog task found the database reachable; any thread. */
    public boolean reachable() {
        return reachable;
    }

    /** Wall-clock ms since which the catalog is unreachable, or 0; any thread. */
    public long unreachableSince() {
        return reachable ? 0 : unreachableSince;
    }

    /** Why the catalog is unreachable (the last failure), or null; any thread. */
    public String unreachableReason() {
        return reachable ? null : unreachableReason;
    }

    /** Runs {@code work} after every task submitted before it; {@code done} is told the result on the loop. */
    public <T> void submit(Kind kind, Supplier<T> work, Done<T> done) {
        openBatch = null;
        depth.incrementAndGet();
        Task<T> task = new Task<>(kind, work, done);
        if (thread == null) {
            task.run();
            task.complete();
            return;
        }
        if (!held.isEmpty() || inFlight >= capacity) {
            held.add(task);
            return;
        }
        handOver(task);
    }

    /**
     * Records an aggregate ({@link Catalog#commitAggregate}) and then reads its cartridge, after every task
     * submitted before; {@code done} is told the cartridge, on the loop, once the commit is durable. The commit
     * may share one transaction with the commits submitted directly before or after it (see the class comment).
     */
    public void commit(Catalog catalog, AggregateRecord aggregate, List<FileRecord> members,
                       Done<CartridgeRecord> done) {
        CommitBatch.Entry entry = new CommitBatch.Entry(aggregate, members, done);
        if (openBatch != null && openBatch.join(catalog, entry)) {
            depth.incrementAndGet();
            return;
        }
        CommitBatch batch = new CommitBatch(catalog, entry);
        submit(Kind.COMMIT, () -> batch.run(this::batchCommitted), new Done<List<CommitBatch.Outcome>>() {
            @Override
            public void succeeded(List<CommitBatch.Outcome> outcomes) {
                ended(batch, outcomes.size());
                for (CommitBatch.Outcome o : outcomes) {
                    tell(o.entry(), o.after(), o.failure());
                }
            }

            @Override
            public void failed(RuntimeException e) {
                List<CommitBatch.Entry> all = batch.entries();
                ended(batch, all.size());
                for (CommitBatch.Entry each : all) {
                    tell(each, null, e);
                }
            }
        });
        openBatch = batch;
    }

    /** On the loop: {@code batch} of {@code size} commits completed (its task already counted itself). */
    private void ended(CommitBatch batch, int size) {
        depth.addAndGet(1 - size);
        if (openBatch == batch) {
            openBatch = null; // keep no member lists of a completed batch
        }
    }

    /** Tells one commit its outcome; a completion that throws is logged and does not keep the others untold. */
    private static void tell(CommitBatch.Entry e, CartridgeRecord after, RuntimeException failure) {
        try {
            if (failure == null) {
                e.done().succeeded(after);
            } else {
                e.done().failed(failure);
            }
        } catch (RuntimeException thrown) {
            LOG.error("Catalog writer: the completion of the commit of aggregate {}/{} failed", e.aggregate()
                    .cartridge(), e.aggregate().tapeFile(), thrown);
        }
    }

    /** On the writer: tells the timing a transaction's size; a failure there is no failure of the commits. */
    private void batchCommitted(int aggregates) {
        try {
            timing.batchCommitted(aggregates);
        } catch (RuntimeException e) {
            LOG.warn("Catalog writer: timing failed: {}", e.toString());
        }
    }

    /** Whether a batch of commits is open to further joins; on the loop (for tests). */
    boolean batchOpen() {
        return openBatch != null;
    }

    /** A write nobody waits for: a failure is logged (the next write of the same record repeats it). */
    public void submit(Kind kind, Runnable work, String what) {
        submit(kind, () -> {
            work.run();
            return null;
        }, new Done<Object>() {
            @Override
            public void succeeded(Object value) {
            }

            @Override
            public void failed(RuntimeException e) {
                LOG.warn("Catalog: cannot {}: {}", what, e.getMessage());
            }
        });
    }

    /** Runs {@code then} on the loop once every task submitted before has completed (at once if inline). */
    public void afterWrites(Runnable then) {
        submit(null, () -> null, Done.always(then));
    }

    /** Tasks submitted and not yet completed (held, queued or running); any thread. */
    public int depth() {
        return depth.get();
    }

    /** Tasks the loop holds because the writer has {@code capacity} in flight; on the loop. */
    public int held() {
        return held.size();
    }

    private void handOver(Task<?> task) {
        inFlight++;
        thread.execute(() -> {
            task.run();
            loop.execute(() -> {
                inFlight--;
                while (!held.isEmpty() && inFlight < capacity) {
                    handOver(held.poll());
                }
                task.complete();
            });
        });
    }

    private final class Task<T> {
        private final Kind kind;
        private final Supplier<T> work;
        private final Done<T> done;
        private T value;
        private RuntimeException failure;

        Task(Kind kind, Supplier<T> work, Done<T> done) {
            this.kind = kind;
            this.work = work;
            this.done = done;
        }

        /** On the writer; in real time, runs again while the catalog is unreachable (see the class comment). */
        void run() {
            long t0 = System.nanoTime();
            long wait = RETRY_FIRST_MILLIS;
            while (true) {
                try {
                    value = work.get();
                    if (!reachable && thread != null) {
                        reachableAgain();
                    }
                    break;
                } catch (CatalogUnavailableException e) {
                    if (thread == null || !unreachable(e, wait)) {
                        failure = e;
                        break;
                    }
                    wait = Math.min(RETRY_MAX_MILLIS, wait * 2);
                } catch (RuntimeException e) {
                    failure = e;
                    break;
                }
            }
            try {
                if (kind != null) { // null: a barrier of afterWrites, not a catalog call
                    timing.taskDone(kind, System.nanoTime() - t0);
                }
            } catch (RuntimeException e) {
                LOG.warn("Catalog writer: timing failed: {}", e.toString());
            }
        }

        /** Notes the outage and waits before the next attempt; false if interrupted (shutting down). */
        private boolean unreachable(CatalogUnavailableException e, long waitMillis) {
            unreachableReason = e.getMessage();
            if (reachable) {
                unreachableSince = System.currentTimeMillis();
                reachable = false;
                LOG.error("Catalog unreachable: {}; no new writes start, and catalog work waits and is retried "
                        + "until it answers", e.getMessage());
                String reason = e.getMessage();
                loop.execute(() -> health.changed(false, reason));
            } else {
                LOG.debug("Catalog still unreachable: {}", e.getMessage());
            }
            try {
                Thread.sleep(waitMillis);
                return true;
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        private void reachableAgain() {
            long seconds = (System.currentTimeMillis() - unreachableSince) / 1000;
            reachable = true;
            LOG.warn("Catalog reachable again after {} s; held catalog work resumes", seconds);
            loop.execute(() -> health.changed(true, null));
        }

        /** On the loop. */
        void complete() {
            depth.decrementAndGet();
            if (failure != null) {
                done.failed(failure);
            } else {
                done.succeeded(value);
            }
        }
    }
}
