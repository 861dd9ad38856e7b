package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.FileRecord;

/**
 * A repack while the daemon, its own JVM, is killed with SIGKILL three times, each once the repack has moved more
 * files since the last kill (the first with files in the spool, the second while writing), and started again at once: it resumes by itself, and at the end every file is on
 * the target exactly once, staged back byte-identical, and the source is EMPTY. The spool is small (2 MB: a few
 * files per batch), so the kills meet files in the spool, being written, or committed.
 */
@Tag("slow")
class RepackCrashTest {

    private static final int FILES = 40;
    private static final int KILLS = 3;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    @Test
    void daemonKilledDuringARepack_resumesLosingNothingCommittingNothingTwice() throws Exception {
        Random random = new Random(19);
        Site site = new Site(tmp).drives(1).cartridges(4).speed(100).scheduler("repackSpool", "2MB");
        List<TestFile> files = new ArrayList<>();
        for (int i = 0; i < FILES; i++) {
            files.add(TestFile.of(random, 2 * (i % 2), 200_000 + random.nextInt(300_000))); // atlas:raw, atlas:aod
        }
        try (DaemonProcess daemon = new DaemonProcess(site)) {
            daemon.start();
            daemon.awaitStatus(Duration.ofSeconds(60));
            daemon.labelAll(); // two atlas cartridges, two cms
            String source;
            try (Pool pool = Pool.start(site)) {
                List<EmulatedFlushRequest> flushes = pool.flush(files);
                Pool.awaitAll(flushes, 120);
                for (EmulatedFlushRequest r : flushes) {
                    assertTrue(r.outcome().isCompleted(), r.outcome().toString());
                }
                source = fullestAtlas(daemon);
                int onSource = filesOn(daemon, source);
                assertTrue(onSource > 10, "files on " + source + ": " + onSource);

                JsonNode queued = daemon.control("cartridge-repack", List.of(source, "-"));
                assertEquals(onSource, queued.path("filesTotal").asInt(), String.valueOf(queued));

                int kills = 0;
                int lastKillAt = 0;
                List<String> killedAt = new ArrayList<>();
                long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
                while (true) {
                    JsonNode r = repack(daemon);
                    if (r != null && r.path("state").asText().equals("done")) {
                        break;
                    }
                    if (r != null && List.of("failed", "cancelled").contains(r.path("state").asText())) {
                        throw new AssertionError("the repack ended " + r + "; see " + daemon.log());
                    }
                    assertTrue(System.nanoTime() < deadline, "no end of the repack in 5 min: " + r + "; killed at "
                            + killedAt + "; see " + daemon.log());
                    int done = r == null ? 0 : r.path("filesDone").asInt();
                    // the first kill with files in the spool, the second while writing, the third at any moment
                    boolean moment = r != null && (kills == 0 ? r.path("spooledFiles").asInt() > 0
                            : kills != 1 || r.path("state").asText().equals("writing"));
                    if (kills < KILLS && moment && done > lastKillAt && done < onSource) {
                        daemon.kill();
                        kills++;
                        lastKillAt = done;
                        killedAt.add(done + " moved, " + r.path("spooledFiles").asInt() + " in the spool, "
                                + r.path("state").asText());
                        daemon.start();
                        daemon.awaitStatus(Duration.ofSeconds(60));
                    }
                    assertTrue(daemon.isAlive(), "the daemon exited; see " + daemon.log());
                    Thread.sleep(20);
                }
                System.out.println("[RepackCrashTest] killed at: " + killedAt);
                assertEquals(KILLS, kills, "the repack ended before every kill: " + killedAt);
                JsonNode done = repack(daemon);
                assertEquals(onSource, done.path("filesDone").asInt(), done.toString());
                assertEquals(0, done.path("filesFailed").asInt(), done.toString());
                assertTrue(done.path("emptied").asBoolean(), done.toString());

                for (TestFile f : files) {
                    pool.dropReplica(f);
                }
                List<EmulatedStageRequest> stages = pool.stage(files);
                Pool.awaitAll(stages, 120);
                for (int i = 0; i < files.size(); i++) {
                    Outcome o = stages.get(i).outcome();
                    assertTrue(o.isCompleted(), files.get(i) + ": " + o);
                    assertArrayEquals(files.get(i).content(),
                            Files.readAllBytes(pool.emulator.replicaPath(files.get(i).pnfsId())), files.get(i).pnfsid());
                }
            }
            daemon.stop();

            try (JdbcCatalog catalog = JdbcCatalog.open(site.catalogUrl())) {
                Map<String, FileRecord> live = new HashMap<>();
                catalog.forEachFile(r -> assertEquals(null, live.put(r.pnfsid(), r), "twice: " + r.pnfsid()));
                assertEquals(FILES, live.size());
                for (TestFile f : files) {
                    assertNotEquals(source, live.get(f.pnfsid()).cartridge(), f.pnfsid());
                }
                assertEquals(List.of(), catalog.files(source));
                // one row per file cannot show a file written twice; the aggregates can: every file is a member
                // of exactly one committed aggregate off the source (a copy committed twice would count twice)
                int members = 0;
                for (var c : catalog.cartridges()) {
                    if (!c.barcode().equals(source)) {
                        members += catalog.aggregates(c.barcode()).stream()
                                .mapToInt(org.tapeq.scheduler.model.AggregateRecord::memberCount).sum();
                    }
                }
                assertEquals(FILES, members, "aggregate members off " + source);
                assertEquals(CartridgeState.EMPTY, catalog.cartridge(source).orElseThrow().state());
                assertEquals(RepackJob.DONE, catalog.repackJobs().get(0).state());
            }
            assertFalse(Files.exists(site.state.resolve("repack-spool").resolve(source)));
        }
    }

    private static JsonNode repack(DaemonProcess daemon) {
        JsonNode status = daemon.control("status", List.of());
        JsonNode repacks = status == null ? null : status.path("scheduler").path("repacks");
        return repacks == null || repacks.isEmpty() ? null : repacks.get(0);
    }

    private static String fullestAtlas(DaemonProcess daemon) {
        String best = null;
        long most = -1;
        for (JsonNode c : daemon.control("cartridge-list", List.of())) {
            if ("atlas".equals(c.path("family").asText()) && c.path("files").asLong() > most) {
                most = c.path("files").asLong();
                best = c.path("barcode").asText();
            }
        }
        return best;
    }

    private static int filesOn(DaemonProcess daemon, String barcode) {
        for (JsonNode c : daemon.control("cartridge-list", List.of())) {
            if (barcode.equals(c.path("barcode").asText())) {
                return c.path("files").asInt();
            }
        }
        return 0;
    }
}
