package org.tapeq.scheduler.engine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.jdbc.HeldCommits;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.testing.support.Poll;

/**
 * A process killed (SIGKILL) while a group commit's transaction is in flight acknowledges none of its aggregates,
 * and the catalog, opened again, holds none of them; everything acknowledged before is in the catalog. The
 * process is a child JVM ({@link #main}) that runs the catalog writer on an SQLite catalog whose second batch
 * stops just before its COMMIT; this test kills it there.
 */
class GroupCommitCrashTest {

    @TempDir
    Path dir;

    @Test
    void killedDuringAGroupCommit_acknowledgesNoneOfItsAggregates_andTheCatalogHoldsExactlyTheAcknowledged()
            throws Exception {
        Path db = dir.resolve("catalog.db");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), GroupCommitCrashTest.class.getName(), db.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                }
            } catch (java.io.IOException e) {
                lines.add("read failed: " + e);
            }
        }, "crash-test-child-output");
        reader.start();
        try {
            Poll.until("the child holds a commit", () -> lines.contains("HELD") || !child.isAlive());
        } finally {
            child.destroyForcibly(); // SIGKILL
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            reader.join(10_000);
        }
        assertTrue(lines.contains("HELD"), "the child reached the held commit: " + lines);
        assertTrue(lines.contains("TRANSACTION [4, 5, 6]"), "the held transaction was one batch of three: " + lines);
        List<Integer> acknowledged = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("ACK ")) {
                acknowledged.add(Integer.parseInt(line.substring(4)));
            }
        }
        assertEquals(List.of(1, 2, 3), acknowledged, "only the first batch was acknowledged: " + lines);
        try (JdbcCatalog after = JdbcCatalog.open("jdbc:sqlite:" + db)) {
            assertEquals(acknowledged, after.aggregates(GroupCommitTest.TAPE).stream()
                    .map(AggregateRecord::tapeFile).toList(), "the catalog holds exactly the acknowledged");
            for (int tf = 4; tf <= 6; tf++) {
                String member = GroupCommitTest.members(GroupCommitTest.TAPE, tf).get(0).pnfsid();
                assertTrue(after.file(member).isEmpty(), "member of the killed batch recorded: " + member);
            }
        }
    }

    /** The child: one batch of three committed and acknowledged, then a batch of three held before its COMMIT. */
    public static void main(String[] args) throws Exception {
        HeldCommits held = HeldCommits.open(Path.of(args[0]), () -> say("HELD"));
        held.catalog().putCartridge(GroupCommitTest.tape());
        Catalog catalog = GroupCommitTest.recording(held.catalog(), new TransactionsSaid());
        RealTimeEventLoop loop = new RealTimeEventLoop("crash-child-loop", 1);
        CatalogWriter writer = CatalogWriter.threaded(loop, 4, CatalogWriter.Timing.NONE);
        batch(loop, writer, catalog, 1);
        held.hold();
        batch(loop, writer, catalog, 4);
        Thread.sleep(Long.MAX_VALUE); // killed by the test
    }

    /** Commits tape files {@code first .. first+2} as one batch; returns once they were told (or at once if held). */
    private static void batch(RealTimeEventLoop loop, CatalogWriter writer, Catalog catalog, int first)
            throws InterruptedException {
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
