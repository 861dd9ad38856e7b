package org.tapeq.scheduler.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.CatalogException;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.testing.support.Poll;

/** Group commit in the {@link CatalogWriter}: what shares a transaction, and what a failed one fails. */
class GroupCommitTest {

    static final String TAPE = "A00001L9";
    private static final String NOT_IN_CATALOG = "Z99999L9";
    private static final int BS = 262_144;

    @TempDir
    Path dir;

    /** The catalog, recording the tape files of each commit transaction it is asked for. */
    static Catalog recording(Catalog delegate, List<List<Integer>> transactions) {
        return (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(), new Class<?>[] {Catalog.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("commitAggregate")) {
                        transactions.add(List.of(((AggregateRecord) args[0]).tapeFile()));
                    } else if (method.getName().equals("commitAggregates")) {
                        @SuppressWarnings("unchecked")
                        List<Catalog.Written> ws = (List<Catalog.Written>) args[0];
                        transactions.add(ws.stream().map(w -> w.aggregate().tapeFile()).toList());
                    }
                    try {
                        return method.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    static List<FileRecord> members(String barcode, int tapeFile) {
        List<FileRecord> m = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long offset = BS + 512L + i * 5_000L;
            m.add(new FileRecord(String.format("0000%016X%016X", tapeFile, i), barcode, tapeFile,
                    1000L * tapeFile + offset / BS, offset, 4_000, null, null, null, "ds", 0));
        }
        return m;
    }

    static AggregateRecord aggregate(String barcode, int tapeFile) {
        return new AggregateRecord(barcode, tapeFile, 1000L * tapeFile, 2, BS, 2L * BS, 3, "raw", "ds", 0);
    }

    /** Completions by tape file: the cartridge told, or the failure. */
    private static final class Ends {
        /** Stands for a null cartridge (the map holds no nulls). */
        static final Object NULL = new Object();
        final Map<Integer, Object> byTapeFile = new ConcurrentHashMap<>();
        final List<Integer> order = new CopyOnWriteArrayList<>();

        CatalogWriter.Done<CartridgeRecord> of(int tapeFile) {
            return new CatalogWriter.Done<>() {
                @Override
                public void succeeded(CartridgeRecord after) {
                    byTapeFile.put(tapeFile, after == null ? NULL : after);
                    order.add(tapeFile);
                }

                @Override
                public void failed(RuntimeException e) {
                    byTapeFile.put(tapeFile, e);
                    order.add(tapeFile);
                }
            };
        }
    }

    /** A timing that notes the size of every transaction that committed aggregates. */
    static CatalogWriter.Timing batchSizes(List<Integer> sizes) {
        return new CatalogWriter.Timing() {
            @Override
            public void taskDone(CatalogWriter.Kind kind, long nanos) {
            }

            @Override
            public void batchCommitted(int aggregates) {
                sizes.add(aggregates);
            }
        };
    }

    /** Holds the writer busy until the latch opens, as a commit in flight would. */
    static void busy(CatalogWriter writer, CountDownLatch release) {
        writer.submit(CatalogWriter.Kind.READ, () -> {
            try {
                return release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }, CatalogWriter.Done.always(() -> { }));
    }

    private void commit(CatalogWriter writer, Catalog catalog, String barcode, int tapeFile, Ends ends) {
        writer.commit(catalog, aggregate(barcode, tapeFile), members(barcode, tapeFile), ends.of(tapeFile));
    }

    private JdbcCatalog catalogWithTape() {
        JdbcCatalog c = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        c.putCartridge(tape());
        return c;
    }

    static CartridgeRecord tape() {
        return new CartridgeRecord(TAPE, "LTO9", "raw", CartridgeState.APPENDABLE, 18_000_000_000_000L, 0, 0, 0, 0,
                0, false, null);
    }

    @Test
    void commitsQueuedWhileTheWriterIsBusy_shareOneTransaction_andAreToldOnlyAfterIt() throws Exception {
        List<List<Integer>> transactions = new CopyOnWriteArrayList<>();
        try (RealTimeEventLoop loop = new RealTimeEventLoop("group-commit-test", 1);
             JdbcCatalog real = catalogWithTape()) {
            Catalog catalog = recording(real, transactions);
            List<Integer> committed = new CopyOnWriteArrayList<>();
            CatalogWriter writer = CatalogWriter.threaded(loop, 4, batchSizes(committed));
            CountDownLatch release = new CountDownLatch(1);
            Ends ends = new Ends();
            CountDownLatch submitted = new CountDownLatch(1);
            loop.execute(() -> {
                busy(writer, release);
                for (int tf = 1; tf <= 3; tf++) {
                    commit(writer, catalog, TAPE, tf, ends);
                }
                submitted.countDown();
            });
            assertTrue(submitted.await(10, TimeUnit.SECONDS));
            assertEquals(List.of(), transactions, "nothing committed while the writer is busy");
            assertEquals(Map.of(), ends.byTapeFile, "nothing told before the commit");
            release.countDown();
            Poll.until("three commits told", () -> ends.order.size() == 3);

            assertEquals(List.of(List.of(1, 2, 3)), transactions, "one transaction for the three");
            assertEquals(List.of(1, 2, 3), ends.order, "told in submission order");
            for (int tf = 1; tf <= 3; tf++) {
                CartridgeRecord after = (CartridgeRecord) ends.byTapeFile.get(tf);
                assertEquals(3, after.tapeFiles(), "cartridge read after the whole batch, tape file " + tf);
            }
            assertEquals(3, real.aggregates(TAPE).size());
            assertEquals(List.of(3), committed, "the timing is told the transaction's size");
            Poll.until("writer drained", () -> writer.depth() == 0);
        }
    }

    @Test
    void aFailedSharedTransaction_isFollowedByOnePerAggregate_andOnlyTheBadOneFails() throws Exception {
        List<List<Integer>> transactions = new CopyOnWriteArrayList<>();
        try (RealTimeEventLoop loop = new RealTimeEventLoop("group-commit-test", 1);
             JdbcCatalog real = catalogWithTape()) {
            Catalog catalog = recording(real, transactions);
            List<Integer> committed = new CopyOnWriteArrayList<>();
            CatalogWriter writer = CatalogWriter.threaded(loop, 4, batchSizes(committed));
            CountDownLatch release = new CountDownLatch(1);
            Ends ends = new Ends();
            List<Integer> seenByRead = new CopyOnWriteArrayList<>();
            loop.execute(() -> {
                busy(writer, release);
                commit(writer, catalog, TAPE, 1, ends);
                commit(writer, catalog, NOT_IN_CATALOG, 2, ends); // fails inside the transaction, after 1
                // a read between commits closes the batch: it sees the first batch's outcome, the next commit
                // gets a transaction of its own
                writer.submit(CatalogWriter.Kind.READ, () -> {
                    seenByRead.add(real.aggregates(TAPE).size());
                    return null;
                }, CatalogWriter.Done.always(() -> { }));
                commit(writer, catalog, TAPE, 3, ends);
                commit(writer, catalog, TAPE, 4, ends);
                release.countDown(); // after the submissions: the writer is busy while they arrive
            });
            Poll.until("four commits told", () -> ends.order.size() == 4);

            assertEquals(List.of(List.of(1, 2), List.of(1), List.of(2), List.of(3, 4)), transactions,
                    "the failed shared transaction is followed by one per aggregate");
            assertTrue(ends.byTapeFile.get(1) instanceof CartridgeRecord, "1 is recorded and told so: "
                    + ends.byTapeFile.get(1));
            assertTrue(ends.byTapeFile.get(2) instanceof CatalogException, "2: " + ends.byTapeFile.get(2));
            assertTrue(((Exception) ends.byTapeFile.get(2)).getMessage().contains(NOT_IN_CATALOG),
                    "2 is told its own failure: " + ends.byTapeFile.get(2));
            assertTrue(ends.byTapeFile.get(3) instanceof CartridgeRecord, "3: " + ends.byTapeFile.get(3));
            assertTrue(ends.byTapeFile.get(4) instanceof CartridgeRecord, "4: " + ends.byTapeFile.get(4));
            assertEquals(List.of(1, 2, 3, 4), ends.order, "told in submission order");
            assertEquals(List.of(1), seenByRead, "the batch recorded its good aggregate before the read");
            assertEquals(List.of(1, 2), committed, "sizes of the transactions that committed");
            assertEquals(List.of(1, 3, 4),
                    real.aggregates(TAPE).stream().map(AggregateRecord::tapeFile).toList());
            Poll.until("writer drained", () -> writer.depth() == 0);
        }
    }

    @Test
    void aFailedReReadOfTheCartridge_afterTheCommit_isNoFailureOfTheAggregates() throws Exception {
        List<List<Integer>> transactions = new CopyOnWriteArrayList<>();
        try (RealTimeEventLoop loop = new RealTimeEventLoop("group-commit-test", 1);
             JdbcCatalog real = catalogWithTape()) {
            Catalog catalog = failingOnce(recording(real, transactions), "cartridge",
                    new CatalogException("read failed on purpose"));
            CatalogWriter writer = CatalogWriter.threaded(loop, 4, CatalogWriter.Timing.NONE);
            CountDownLatch release = new CountDownLatch(1);
            Ends ends = new Ends();
            loop.execute(() -> {
                busy(writer, release);
                commit(writer, catalog, TAPE, 1, ends);
                commit(writer, catalog, TAPE, 2, ends);
                release.countDown();
            });
            Poll.until("two commits told", () -> ends.order.size() == 2);

            assertEquals(List.of(List.of(1, 2)), transactions);
            assertEquals(List.of(1, 2), real.aggregates(TAPE).stream().map(AggregateRecord::tapeFile).toList());
            for (int tf = 1; tf <= 2; tf++) {
                assertTrue(ends.byTapeFile.containsKey(tf) && ends.byTapeFile.get(tf) == NO_CARTRIDGE,
                        "durable aggregate " + tf + " told success without a cartridge: " + ends.byTapeFile.get(tf));
            }
            Poll.until("writer drained", () -> writer.depth() == 0);
        }
    }

    @Test
    void aCompletionThatThrows_leavesNoOtherCommitOfTheBatchUntold_andTheBatchIsNotKept() throws Exception {
        try (RealTimeEventLoop loop = new RealTimeEventLoop("group-commit-test", 1);
             JdbcCatalog real = catalogWithTape()) {
            CatalogWriter writer = CatalogWriter.threaded(loop, 4, CatalogWriter.Timing.NONE);
            CountDownLatch release = new CountDownLatch(1);
            Ends ends = new Ends();
            loop.execute(() -> {
                busy(writer, release);
                writer.commit(real, aggregate(TAPE, 1), members(TAPE, 1),
                        CatalogWriter.Done.always(() -> {
                            throw new IllegalStateException("completion failed on purpose");
                        }));
                commit(writer, real, TAPE, 2, ends);
                commit(writer, real, TAPE, 3, ends);
                release.countDown();
            });
            Poll.until("the commits after the throwing one told", () -> ends.order.size() == 2);
            assertEquals(List.of(2, 3), ends.order);
            Poll.until("writer drained", () -> writer.depth() == 0);
            CompletableFuture<Boolean> open = new CompletableFuture<>();
            loop.execute(() -> open.complete(writer.batchOpen()));
            assertFalse(open.get(10, TimeUnit.SECONDS), "a completed batch is not kept as the open one");
        }
    }

    @Test
    void aBatchIsBoundedByItsMemberRows_tooNotOnlyByItsAggregates() {
        FileRecord row = members(TAPE, 1).get(0);
        CommitBatch batch = new CommitBatch(null, entry(CommitBatch.MAX_MEMBERS - 10, row));
        assertTrue(batch.join(null, entry(10, row)), "up to the bound");
        assertFalse(batch.join(null, entry(1, row)), "one member row past the bound opens the next batch");
        assertEquals(2, batch.entries().size());
    }

    private static CommitBatch.Entry entry(int rows, FileRecord row) {
        return new CommitBatch.Entry(aggregate(TAPE, 1), Collections.nCopies(rows, row),
                CatalogWriter.Done.always(() -> { }));
    }

    /** What {@link Ends} holds for a success told a null cartridge. */
    private static final Object NO_CARTRIDGE = Ends.NULL;

    /** {@code delegate}, whose first call of {@code method} throws {@code failure}. */
    static Catalog failingOnce(Catalog delegate, String method, RuntimeException failure) {
        AtomicBoolean failed = new AtomicBoolean();
        return (Catalog) Proxy.newProxyInstance(Catalog.class.getClassLoader(), new Class<?>[] {Catalog.class},
                (proxy, m, args) -> {
                    if (m.getName().equals(method) && failed.compareAndSet(false, true)) {
                        throw failure;
                    }
                    try {
                        return m.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
