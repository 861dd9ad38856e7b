package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedRemoveRequest;
import org.tapeq.poolemulator.EmulatedRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.testing.support.Poll;

/**
 * The daemon runs as its own JVM and is killed with SIGKILL at random moments while the real provider, driven
 * by the pool emulator in this JVM, flushes 150 files of mixed sizes in six datasets, then stages them back with
 * the disk copies dropped while removing others. After each kill the daemon is started again at once, as systemd
 * would (without the 30 s pause). At the end: every request answered exactly once (the pool emulator records a
 * second completion as a violation), every acknowledged flush in the catalog with its size and checksum, every
 * byte staged back identical, removed files gone from the catalog, and nothing left in the request directory.
 *
 * <p>The kill schedule comes from a seeded {@link Random}. Each run tries the pinned seeds ({@link #PINNED_SEEDS}:
 * 4, 5 and 6 kills), so that a change is always checked against the same schedules, and one seed drawn anew, so
 * that every run also tries a schedule never tried before. The seed and every kill are printed, and
 * {@code -Dtapeq.it.seed=N} runs that one schedule only ({@code -Dtapeq.it.kills=N} sets the number of kills,
 * for longer hunts). A seed repeats the schedule, not the daemon's timing: the moment a kill meets depends on
 * the machine. The daemon's log is {@code daemon.log} in the test directory, kept when the test fails.
 */
@Tag("slow")
class CrashRecoveryTest {

    private static final int FILES = 150;
    private static final int DATASETS = 6;
    private static final int REMOVES = 20;
    private static final long MAX_SIZE = 3_000_000;
    private static final long PHASE_SECONDS = 120;
    /** Schedules run every time, chosen for their number of kills (4, 5 and 6). */
    private static final long[] PINNED_SEEDS = {1, 2, 3};

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    private final List<String> killLog = new ArrayList<>();
    private long t0;

    /** The seed given with {@code -Dtapeq.it.seed}, or the pinned seeds and one drawn now. */
    static LongStream seeds() {
        Long given = Long.getLong("tapeq.it.seed");
        if (given != null) {
            return LongStream.of(given);
        }
        return LongStream.concat(LongStream.of(PINNED_SEEDS), LongStream.of(System.nanoTime()));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void daemonKilledAtRandomMoments_losesNothingAndAnswersEveryRequestExactlyOnce(long seed) throws Exception {
        Random random = new Random(seed);
        int kills = 4 + random.nextInt(3);
        kills = Integer.getInteger("tapeq.it.kills", kills);
        int flushKills = (kills + 1) / 2;
        int stageKills = kills - flushKills;
        note("seed " + seed + " (repeat with -Dtapeq.it.seed=" + seed + "): " + kills + " kills, " + flushKills
                + " while flushing, " + stageKills + " while staging and removing; work directory " + tmp);
        t0 = System.nanoTime();

        Site site = new Site(tmp).drives(3).cartridges(6).speed(500);
        List<TestFile> files = TestFile.generate(random, FILES, DATASETS, 1, MAX_SIZE);
        try (DaemonProcess daemon = new DaemonProcess(site)) {
            daemon.start();
            daemon.awaitStatus(Duration.ofSeconds(60));
            daemon.labelAll();
            try (Pool pool = Pool.start(site)) {
                run(random, site, daemon, pool, files, flushKills, stageKills);
            } catch (AssertionError | Exception e) {
                throw new AssertionError(e.getMessage() + " [seed " + seed + ", kills " + killLog + ", daemon log "
                        + daemon.log() + "]", e);
            }
        }
        note("done in " + elapsedMillis() + " ms");
    }

    private void run(Random random, Site site, DaemonProcess daemon, Pool pool, List<TestFile> files, int flushKills,
            int stageKills) throws Exception {
        // ---- flush: submissions spread over the kill schedule, so that every kill meets work in progress
        List<EmulatedFlushRequest> flushes = Collections.synchronizedList(new ArrayList<>());
        List<Runnable> batches = new ArrayList<>();
        for (List<TestFile> batch : batches(random, files)) {
            batches.add(() -> flushes.addAll(flush(pool, batch)));
        }
        campaign(random, daemon, "flush", killDelays(random, flushKills), batches, flushes);
        Pool.awaitAll(flushes, PHASE_SECONDS);
        note("all " + flushes.size() + " flushes answered at +" + elapsedMillis() + " ms");
        Map<String, EmulatedFlushRequest> flushOf = new HashMap<>();
        flushes.forEach(r -> flushOf.put(r.getFileAttributes().getPnfsId().toString(), r));
        assertEquals(files.size(), flushOf.size());
        for (TestFile f : files) {
            Outcome o = flushOf.get(f.pnfsid()).outcome();
            assertTrue(o.isCompleted(), "flush of " + f + ": " + o);
            assertEquals(Set.of(Pool.flushUri(f)), o.result(), f.toString());
        }
        assertEquals(List.of(), pool.emulator.violations(), "SPI violations after the flushes");

        // ---- drop the disk copies; stage most back in random order and remove the others, with kills
        for (TestFile f : files) {
            pool.dropReplica(f);
        }
        List<TestFile> shuffled = new ArrayList<>(files);
        Collections.shuffle(shuffled, random);
        List<TestFile> removed = shuffled.subList(0, REMOVES);
        List<TestFile> staged = shuffled.subList(REMOVES, shuffled.size());
        Set<TestFile> toRemove = Set.copyOf(removed);
        Map<String, EmulatedStageRequest> stageOf = new ConcurrentHashMap<>();
        List<EmulatedRemoveRequest> removes = Collections.synchronizedList(new ArrayList<>());
        List<EmulatedRequest<?>> all = Collections.synchronizedList(new ArrayList<>());
        List<TestFile> mixed = new ArrayList<>(shuffled);
        Collections.shuffle(mixed, random);
        batches = new ArrayList<>();
        for (List<TestFile> batch : batches(random, mixed)) {
            batches.add(() -> {
                List<TestFile> stage = batch.stream().filter(f -> !toRemove.contains(f)).toList();
                List<URI> remove = batch.stream().filter(toRemove::contains).map(Pool::flushUri).toList();
                List<EmulatedStageRequest> s = pool.stage(stage);
                for (int i = 0; i < stage.size(); i++) {
                    stageOf.put(stage.get(i).pnfsid(), s.get(i));
                }
                all.addAll(s);
                List<EmulatedRemoveRequest> r = pool.remove(remove);
                removes.addAll(r);
                all.addAll(r);
            });
        }
        campaign(random, daemon, "stage", killDelays(random, stageKills), batches, all);
        Pool.awaitAll(all, PHASE_SECONDS);
        note("all " + stageOf.size() + " stages and " + removes.size() + " removes answered at +" + elapsedMillis()
                + " ms");
        assertEquals(staged.size(), stageOf.size());
        assertEquals(removed.size(), removes.size());
        for (TestFile f : staged) {
            Outcome o = stageOf.get(f.pnfsid()).outcome();
            assertTrue(o.isCompleted(), "stage of " + f + ": " + o);
            assertArrayEquals(f.content(), Files.readAllBytes(pool.emulator.replicaPath(f.pnfsId())),
                    "staged bytes of " + f);
        }
        for (EmulatedRemoveRequest r : removes) {
            assertTrue(r.outcome().isCompleted(), r.getUri() + ": " + r.outcome());
        }
        assertEquals(List.of(), pool.emulator.violations(), "SPI violations (a second completion is one)");
        assertEquals(flushes.size() + all.size(), pool.emulator.completedCount(), "every request completed once");
        assertEquals(0, pool.emulator.failedCount());

        // ---- the daemon settles: removes processed, nothing in flight; then it is stopped normally
        Poll.until("the daemon has nothing left to do", Duration.ofSeconds(60), () -> idle(daemon, site));
        JsonNode status = daemon.control("status", List.of());
        note("final daemon counters (since its last start): " + status.path("scheduler").path("counters"));
        int exit = daemon.stop();
        note("daemon stopped with SIGTERM, exit " + exit);

        // ---- the catalog, read after the daemon is gone
        try (JdbcCatalog catalog = JdbcCatalog.open(site.catalogUrl())) {
            for (TestFile f : staged) {
                FileRecord r = catalog.file(f.pnfsid()).orElseThrow(() -> new AssertionError(f + " flushed, "
                        + "acknowledged and staged, but not in the catalog"));
                assertEquals(f.size(), r.size(), f.toString());
                assertEquals("adler32:" + f.adler32(), r.checksum(), f.toString());
            }
            for (TestFile f : removed) {
                assertTrue(catalog.file(f.pnfsid()).isEmpty(), "removed but still in the catalog: " + f);
            }
            Map<String, Integer> seen = new HashMap<>();
            catalog.forEachFile(r -> seen.merge(r.pnfsid(), 1, Integer::sum));
            assertEquals(staged.size(), seen.size(), "the catalog holds exactly the files not removed");
        }

        // ---- the request directory is clean
        assertEquals(List.of(), site.list(RequestDirectory.REQUEST), "requests or error files left");
        assertEquals(List.of(), site.list(RequestDirectory.OUT), "links left");
        assertEquals(List.of(), site.list(RequestDirectory.TRASH), "trash entries left");
        assertEquals(List.of(), site.temporariesInIn(), "temporary (partial) stage files left in in/");
        assertEquals(List.of(), site.list(RequestDirectory.IN), "staged files nobody took");
        note(logSummary(daemon.log()));
    }

    private static List<EmulatedFlushRequest> flush(Pool pool, List<TestFile> batch) {
        try {
            return pool.flush(batch);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** 0.3 to 3 s before each kill, counted from the (re)start before it. */
    private static List<Long> killDelays(Random random, int kills) {
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < kills; i++) {
            delays.add(300L + random.nextInt(2701));
        }
        return delays;
    }

    /** Random batches of 1 to 8 files. */
    private static List<List<TestFile>> batches(Random random, List<TestFile> files) {
        List<List<TestFile>> out = new ArrayList<>();
        for (int i = 0; i < files.size(); ) {
            int n = Math.min(files.size() - i, 1 + random.nextInt(8));
            out.add(files.subList(i, i + n));
            i += n;
        }
        return out;
    }

    /**
     * Submits the batches from a feeder thread, spread over the time the kills take (each kill's delay plus about
     * 1.5 s for the restart), while this thread kills the daemon after each delay and starts it again at once.
     */
    private void campaign(Random random, DaemonProcess daemon, String phase, List<Long> delays, List<Runnable> batches,
            List<? extends EmulatedRequest<?>> submitted) throws Exception {
        long window = delays.stream().mapToLong(Long::longValue).sum() + 1500L * delays.size();
        long[] gaps = new long[batches.size()];
        for (int i = 0; i < gaps.length; i++) {
            gaps[i] = (long) (random.nextDouble() * 2 * window / Math.max(1, batches.size()));
        }
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread feeder = new Thread(() -> {
            try {
                for (int i = 0; i < batches.size(); i++) {
                    Thread.sleep(gaps[i]);
                    batches.get(i).run();
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "it-feeder-" + phase);
        feeder.start();
        for (long delay : delays) {
            Thread.sleep(delay);
            int answered;
            int total;
            synchronized (submitted) {
                total = submitted.size();
                answered = (int) submitted.stream().filter(r -> r.outcome() != null).count();
            }
            long pid = daemon.pid();
            daemon.kill();
            String entry = phase + "@+" + elapsedMillis() + "ms(after " + delay + " ms, pid " + pid + ", " + answered
                    + "/" + total + " answered)";
            killLog.add(entry);
            note("SIGKILL " + killLog.size() + ": " + entry);
            daemon.start();
        }
        feeder.join(TimeUnit.SECONDS.toMillis(PHASE_SECONDS));
        if (failed.get() != null) {
            throw new AssertionError("submitting " + phase + " requests failed", failed.get());
        }
        note(phase + ": all " + submitted.size() + " requests submitted at +" + elapsedMillis() + " ms");
    }

    /** The daemon serves nothing any more: no request tracked, none in the scheduler, no trash being removed. */
    private static boolean idle(DaemonProcess daemon, Site site) throws Exception {
        JsonNode s = daemon.control("status", List.of());
        if (s == null) {
            return false;
        }
        JsonNode d = s.path("directories").path(0);
        int tracked = 0;
        for (JsonNode n : d.path("requests")) {
            tracked += n.asInt();
        }
        return tracked == 0 && d.path("inScheduler").asInt() == 0 && d.path("removing").asInt() == 0
                && site.list(RequestDirectory.TRASH).isEmpty();
    }

    private static String logSummary(Path log) throws java.io.IOException {
        List<String> lines = Files.readAllLines(log);
        long errors = lines.stream().filter(l -> l.contains(" ERROR ")).count();
        long warnings = lines.stream().filter(l -> l.contains(" WARN ")).count();
        return "daemon log: " + lines.size() + " lines, " + errors + " ERROR, " + warnings + " WARN";
    }

    private long elapsedMillis() {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static void note(String s) {
        System.out.println("[CrashRecoveryTest] " + s);
    }
}
