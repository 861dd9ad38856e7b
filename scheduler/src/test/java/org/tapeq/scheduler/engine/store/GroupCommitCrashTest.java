package org.tapeq.scheduler.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.jdbc.HeldCommits;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.testing.support.Poll;

/**
 * A process killed (SIGKILL) while a group commit is in flight has acknowledged only aggregates that the catalog,
 * opened again, holds (what the flush protocol promises: acknowledged is a subset of committed). The process is
 * a child JVM ({@link #main}) that runs the catalog writer on an SQLite catalog; its second batch stops at one of
 * the {@link KillPoint}s, and this test kills it there.
 */
class GroupCommitCrashTest {

    /** Where the child's second batch (tape files 4-6) stops to be killed. */
    enum KillPoint {
        /** Inside the shared transaction, before its COMMIT: nothing of it is recorded or acknowledged. */
        BEFORE_COMMIT(List.of(1, 2, 3), List.of(1, 2, 3)),
        /** Right after the COMMIT, before the writer learns it: recorded, not acknowledged. */
        AFTER_COMMIT(List.of(1, 2, 3), List.of(1, 2, 3, 4, 5, 6)),
        /** While the completions run: tape file 4 told, 5 and 6 not. */
        IN_COMPLETIONS(List.of(1, 2, 3, 4), List.of(1, 2, 3, 4, 5, 6));

        final List<Integer> acknowledged;
        final List<Integer> recorded;

        KillPoint(List<Integer> acknowledged, List<Integer> recorded) {
            this.acknowledged = acknowledged;
            this.recorded = recorded;
        }
    }

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(KillPoint.class)
    void killedDuringAGroupCommit_acknowledgedIsASubsetOfTheCatalog(KillPoint point) throws Exception {
        Path db = dir.resolve("catalog.db");
        Path stderr = dir.resolve("child.err");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), GroupCommitCrashTest.class.getName(), db.toString(),
                point.name())
                .redirectError(stderr.toFile()).start();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("read failed: " + e);
            }
        }, "crash-test-child-output");
        reader.start();
        try {
            Poll.until("the child holds at " + point, () -> lines.contains("HELD") || !child.isAlive());
        } finally {
            child.destroyForcibly(); // SIGKILL
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            reader.join(10_000);
        }
        String said = lines + "; the child's stderr:\n" + Files.readString(stderr);
        assertTrue(lines.contains("HELD"), "the child reached " + point + ": " + said);
        assertTrue(lines.contains("TRANSACTION [4, 5, 6]"), "the held transaction was one batch of three: " + said);
        List<Integer> acknowledged = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("ACK ")) {
                acknowledged.add(Integer.parseInt(line.substring(4)));
            }
        }
        assertEquals(point.acknowledged, acknowledged, "acknowledged before the kill: " + said);
        try (JdbcCatalog after = JdbcCatalog.open("jdbc:sqlite:" + db)) {
            List<Integer> recorded = after.aggregates(GroupCommitTest.TAPE).stream()
                    .map(AggregateRecord::tapeFile).toList();
            assertTrue(recorded.containsAll(acknowledged), "every acknowledged aggregate is in the catalog: "
                    + recorded + ", acknowledged " + acknowledged);
            assertEquals(point.recorded, recorded, "the catalog after the kill at " + point);
            for (int tf = 4; tf <= 6; tf++) {
                String member = GroupCommitTest.members(GroupCommitTest.TAPE, tf).get(0).pnfsid();
                assertEquals(point.recorded.contains(tf), after.file(member).isPresent(),
                        "member " + member + " of the killed batch, recorded as its aggregate is");
            }
        }
    }

    /**
     * The child: one batch of three committed and acknowledged, then a batch of three held at the kill point
     * named by {@code args[1]}.
     */
    public static void main(String[] args) throws Exception {
        KillPoint point = KillPoint.valueOf(args[1]);
        HeldCommits held = HeldCommits.open(Path.of(args[0]), () -> say("HELD"));
        held.catalog().putCartridge(GroupCommitTest.tape());
        Catalog catalog = GroupCommitTest.recording(held.catalog(), new TransactionsSaid());
        RealTimeEventLoop loop = new RealTimeEventLoop("crash-child-loop", 1);
        CatalogWriter writer = CatalogWriter.threaded(loop, 4, CatalogWriter.Timing.NONE);
        batch(loop, writer, catalog, 1, false);
        if (point == KillPoint.BEFORE_COMMIT) {
            held.hold();
        } else if (point == KillPoint.AFTER_COMMIT) {
            held.holdAfter();
        }
        batch(loop, writer, catalog, 4, point == KillPoint.IN_COMPLETIONS);
        Thread.sleep(Long.MAX_VALUE); // killed by the test
    }

    /**
     * Commits tape files {@code first .. first+2} as one batch; returns once they were told (or at once for the
     * second batch). {@code holdAfterFirst}: the completion after the first one's says HELD and waits forever.
     */
    private static void batch(RealTimeEventLoop loop, CatalogWriter writer, Catalog catalog, int first,
                              boolean holdAfterFirst) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch told = new CountDownLatch(3);
        loop.execute(() -> {
            GroupCommitTest.busy(writer, release);
            for (int tf = first; tf < first + 3; tf++) {
                int n = tf;
                writer.commit(catalog, GroupCommitTest.aggregate(GroupCommitTest.TAPE, n),
                        GroupCommitTest.members(GroupCommitTest.TAPE, n), new CatalogWriter.Done<CartridgeRecord>() {
                            @Override
                            public void succeeded(CartridgeRecord after) {
                                if (holdAfterFirst && n == first + 1) {
                                    say("HELD");
                                    awaitForever();
                                }
                                say("ACK " + n);
                                told.countDown();
                            }

                            @Override
                            public void failed(RuntimeException e) {
                                say("FAILED " + n + " " + e.getMessage());
                                told.countDown();
                            }
                        });
            }
            release.countDown();
        });
        if (first == 1 && !told.await(30, TimeUnit.SECONDS)) {
            say("first batch not told");
        }
    }

    private static void awaitForever() {
        try {
            new CountDownLatch(1).await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** Prints each commit transaction's tape files as the recording catalog adds them. */
    private static final class TransactionsSaid extends ArrayList<List<Integer>> {
        @Override
        public boolean add(List<Integer> tapeFiles) {
            say("TRANSACTION " + tapeFiles);
            return super.add(tapeFiles);
        }
    }
}
