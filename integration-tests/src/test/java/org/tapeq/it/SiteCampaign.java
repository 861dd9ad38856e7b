package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.testing.support.Poll;

/**
 * What the tests of two daemon processes of one site on one catalog share ({@link CatalogRestartTest},
 * {@link PartitionTest}, {@link FailoverTest}): each host's configuration, and a campaign of files in two halves.
 * The first half is flushed before the test's fault; then stages of those files and flushes of the second half
 * are submitted in batches, and in the end every request must have completed exactly once with the right bytes,
 * and the catalog must hold every file with its size and checksum.
 */
final class SiteCampaign {

    /** Stages and flushes submitted together, a tenth of a second apart (as a pool's requests trickle in). */
    private static final int BATCH = 5;
    private static final long BATCH_GAP_MILLIS = 100;

    final List<TestFile> files;
    /** Flushed before the fault, staged back during the campaign. */
    final List<TestFile> first;
    /** Flushed during the campaign. */
    final List<TestFile> second;
    /** Every flush submitted: the first half's and the campaign's. */
    final List<EmulatedFlushRequest> flushes = new ArrayList<>();
    /** The campaign's flushes (of the second half). */
    final List<EmulatedFlushRequest> campaignFlushes = new ArrayList<>();
    /** The campaign: stages of the first half and flushes of the second, in the order submitted. */
    final List<EmulatedRequest<?>> requests = new ArrayList<>();
    private final long phaseSeconds;

    /** {@code count} files of 1 byte to 2 MB from {@code random}; each phase waits up to {@code phaseSeconds}. */
    SiteCampaign(Random random, int count, long phaseSeconds) {
        this.files = TestFile.generate(random, count, 4, 1, 2_000_000);
        this.first = files.subList(0, count / 2);
        this.second = files.subList(count / 2, count);
        this.phaseSeconds = phaseSeconds;
    }

    /**
     * A host of {@code site}: 2 drives, 4 cartridges, its catalog at {@code url} with the lease timeout given, a
     * standby while another host holds the site, without a takeover rehearsal (these tests time failovers on a
     * loaded machine; the rehearsal has tests of its own and runs in {@code tapeq demo --hosts 3}). The caller adds
     * the rest (speed, HTTP, movers).
     */
    static Site host(Path tmp, String name, String url, String site, long leaseTimeoutMillis) throws IOException {
        return new Site(tmp, name).drives(2).cartridges(4)
                .catalog(String.join("\n",
                        "  url: \"" + url + "\"",
                        "  site: " + site,
                        "  leaseTimeout: " + leaseTimeoutMillis / 1000 + "s",
                        "  standby: true",
                        "  standbyRehearsal: 0"));
    }

    /**
     * Until {@code standby}'s status says it waits for the site's lease, with each of {@code held} in the reason
     * (the holder's name, pid or epoch); returns that status.
     */
    static JsonNode awaitStandby(DaemonProcess standby, String... held) throws InterruptedException {
        return Poll.value("a standby waiting for the lease " + String.join(", ", held) + " (see " + standby.log()
                + ")", Duration.ofSeconds(60), () -> {
                    JsonNode s = standby.control("status", List.of());
                    if (s == null) {
                        return null;
                    }
                    String waiting = s.path("site").path("waiting").asText();
                    return Arrays.stream(held).allMatch(waiting::contains) ? s : null;
                });
    }

    /** Flushes the first half, asserts each completed, and drops their replicas: their stages must read tape. */
    void flushFirstHalf(Pool pool) throws Exception {
        List<EmulatedFlushRequest> firstFlushes = pool.flush(first);
        flushes.addAll(firstFlushes);
        Pool.awaitAll(firstFlushes, phaseSeconds);
        for (EmulatedFlushRequest r : firstFlushes) {
            assertTrue(r.outcome().isCompleted(), r + ": " + r.outcome());
        }
        for (TestFile f : first) {
            pool.dropReplica(f);
        }
    }

    /** Submits the stages of {@code first[from, to)} and the flushes of {@code second[from, to)}, in batches. */
    void submit(Pool pool, int from, int to) throws Exception {
        for (int i = from; i < to; i += BATCH) {
            int end = Math.min(to, i + BATCH);
            requests.addAll(pool.stage(first.subList(i, end)));
            List<EmulatedFlushRequest> fl = pool.flush(second.subList(i, end));
            flushes.addAll(fl);
            campaignFlushes.addAll(fl);
            requests.addAll(fl);
            Thread.sleep(BATCH_GAP_MILLIS); // pacing the submission, not waiting for anything
        }
    }

    /** The whole campaign. */
    void submitAll(Pool pool) throws Exception {
        submit(pool, 0, first.size());
    }

    /** Requests of the campaign answered so far. */
    int answered() {
        return (int) requests.stream().filter(r -> r.outcome() != null).count();
    }

    /** Flushes of the campaign acknowledged so far. */
    long flushesAcknowledged() {
        return campaignFlushes.stream().filter(r -> r.outcome() != null && r.outcome().isCompleted()).count();
    }

    /**
     * Waits for the whole campaign; asserts every request of it completed, the staged bytes, and every flush's
     * URI (the first half's too).
     */
    void assertCampaignCompleted(Pool pool) throws Exception {
        Pool.awaitAll(requests, phaseSeconds);
        for (EmulatedRequest<?> r : requests) {
            assertTrue(r.outcome().isCompleted(), r + ": " + r.outcome());
        }
        for (TestFile f : first) {
            assertArrayEquals(f.content(), Files.readAllBytes(pool.emulator.replicaPath(f.pnfsId())),
                    "staged bytes of " + f);
        }
        Map<String, EmulatedFlushRequest> flushOf = new HashMap<>();
        flushes.forEach(r -> flushOf.put(r.getFileAttributes().getPnfsId().toString(), r));
        for (TestFile f : files) {
            Outcome o = flushOf.get(f.pnfsid()).outcome();
            assertEquals(Set.of(Pool.flushUri(f)), o.result(), "flush of " + f + ": " + o);
        }
    }

    /**
     * No request completed twice: no SPI violation (the pool emulator counts a second completion as one), the
     * flushes, the campaign's stages and {@code moreCompleted} other requests completed, none failed.
     */
    void assertEachCompletedOnce(Pool pool, int moreCompleted) {
        assertEquals(List.of(), pool.emulator.violations(), "SPI violations (a second completion is one)");
        assertEquals(flushes.size() + first.size() + moreCompleted, pool.emulator.completedCount(),
                "every request completed once");
        assertEquals(0, pool.emulator.failedCount());
    }

    /** The catalog at {@code url} holds every file once, with its size and checksum, and no other file. */
    void assertCatalogHoldsEveryFile(String url) {
        try (JdbcCatalog catalog = JdbcCatalog.open(url)) {
            for (TestFile f : files) {
                FileRecord r = catalog.file(f.pnfsid()).orElseThrow(() -> new AssertionError(f + " flushed and "
                        + "acknowledged, but not in the catalog"));
                assertEquals(f.size(), r.size(), f.toString());
                assertEquals("adler32:" + f.adler32(), r.checksum(), f.toString());
            }
            Map<String, Integer> seen = new HashMap<>();
            catalog.forEachFile(r -> seen.merge(r.pnfsid(), 1, Integer::sum));
            assertEquals(files.size(), seen.size(), "the catalog holds exactly the files flushed");
        }
    }
}
