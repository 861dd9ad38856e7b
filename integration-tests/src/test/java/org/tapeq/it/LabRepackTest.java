package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.tapeq.daemon.Daemon;
import org.tapeq.daemon.control.ControlProtocol;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedRemoveRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.testing.support.Poll;

/**
 * {@code tapeq cartridge repack} on a real kernel tape stack, once per lab ({@link Lab}; .ci/run starts the labs):
 * files flushed onto one cartridge through the pool emulator, the provider and the daemon on the SCSI backend;
 * some removed so that the cartridge is sparse (one dataset's aggregate mostly dead, so read member by member, one
 * with a few holes, one whole); the cartridge repacked onto another through the daemon's control socket, as the
 * command line asks; every live file then staged from its new location and compared byte for byte; then the
 * catalog rebuilt from the two cartridges with the command {@code tapeq catalog rebuild} sends, and once more
 * from an empty catalog, each time finding every live file where the repack put it (cartridge, tape file, block,
 * offset). Uses cartridges 6 (the source) and 7 (the target), labelled for atlas with force; the end-to-end test
 * uses 1-5 and the tape-scsi module's library test the last ones (on the mhVTL lab the last three, so that lab is
 * started with 10 cartridges: {@link MhvtlRepackTest}).
 */
@Tag("slow")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LabRepackTest {

    private static final long WAIT_SECONDS = 900;

    private final Lab spec;
    private final String source;
    private final String target;

    private Path lab;
    private Path root;
    private Site site;
    private Daemon daemon;
    private Pool pool;
    private boolean passed;
    private final Random random = new Random(20261126);
    /** The files still live after the removals, and where the repack put each. */
    private final List<TestFile> live = new ArrayList<>();
    private final Map<String, FileRecord> moved = new LinkedHashMap<>();
    private final List<TestFile> removed = new ArrayList<>();
    private final Map<String, Long> stepMillis = new LinkedHashMap<>();

    LabRepackTest(Lab spec) {
        this.spec = spec;
        this.source = spec.barcode(SOURCE);
        this.target = spec.barcode(TARGET);
    }

    /** Cartridge {@code n} of the lab: 6 the source, 7 the target. */
    static final int SOURCE = 6;
    static final int TARGET = 7;

    /** Checks that the lab, as started, leaves {@link #SOURCE} and {@link #TARGET} to this test; fails it if not. */
    void checkCartridges() {
    }

    @BeforeAll
    void start() throws Exception {
        lab = spec.dir();
        checkCartridges();
        root = Files.createTempDirectory("tapeq-it-repack-");
        site = Lab.site(root, lab);
        daemon = site.startDaemon();
        // only the source is labelled for now: every flush goes to it
        daemon.scheduler().labelCartridge(source, "atlas", true).get(5, TimeUnit.MINUTES);
        pool = Pool.start(site);
    }

    @AfterAll
    void stop() throws Exception {
        if (lab == null) {
            return;
        }
        System.out.println("Lab repack step durations (ms): " + stepMillis);
        Pool.closeAndCheck(pool, daemon);
        if (passed) { // every step passed: nothing to look at
            try (var paths = Files.walk(root)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    @Order(1)
    void flushOntoOneCartridge_thenRemoveSomeSoItIsSparse() throws Exception {
        long t0 = System.nanoTime();
        // atlas datasets 0, 2 and 3 (TestFile rotates storage classes over datasets): one aggregate each
        Map<Integer, List<TestFile>> byDataset = new LinkedHashMap<>();
        for (int ds : new int[] {0, 2, 3}) {
            List<TestFile> files = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                files.add(TestFile.of(random, ds, 20_000 + random.nextInt(280_000)));
            }
            byDataset.put(ds, files);
        }
        List<TestFile> all = byDataset.values().stream().flatMap(List::stream).toList();
        List<EmulatedFlushRequest> flushes = pool.flush(all);
        Pool.awaitAll(flushes, WAIT_SECONDS);
        Set<Integer> tapeFiles = new TreeSet<>();
        for (int i = 0; i < all.size(); i++) {
            Outcome o = flushes.get(i).outcome();
            assertTrue(o.isCompleted(), all.get(i) + ": " + o);
            FileRecord r = daemon.catalog().file(all.get(i).pnfsid()).orElseThrow();
            assertEquals(source, r.cartridge(), all.get(i).toString());
            tapeFiles.add(r.tapeFile());
        }
        assertTrue(tapeFiles.size() >= 3, "an aggregate per dataset at least: tape files " + tapeFiles);
        stepMillis.put("flush " + all.size() + " files", (System.nanoTime() - t0) / 1_000_000);

        // dataset 0 loses two files of three (sparse: read member by member), dataset 2 every fourth (read whole,
        // the dead members streamed past), dataset 3 none
        t0 = System.nanoTime();
        for (var e : byDataset.entrySet()) {
            for (int i = 0; i < e.getValue().size(); i++) {
                boolean remove = switch (e.getKey()) {
                    case 0 -> i % 3 != 0;
                    case 2 -> i % 4 == 1;
                    default -> false;
                };
                (remove ? removed : live).add(e.getValue().get(i));
            }
        }
        List<URI> uris = removed.stream().map(Pool::flushUri).toList();
        List<EmulatedRemoveRequest> removes = pool.remove(uris);
        Pool.awaitAll(removes, WAIT_SECONDS);
        for (EmulatedRemoveRequest r : removes) {
            assertTrue(r.outcome().isCompleted(), r.outcome().toString());
        }
        Poll.until("the removed files leave the catalog", Duration.ofSeconds(WAIT_SECONDS),
                () -> removed.stream().allMatch(f -> daemon.catalog().file(f.pnfsid()).isEmpty()));
        long removedBytes = removed.stream().mapToLong(TestFile::size).sum();
        assertTrue(daemon.catalog().cartridge(source).orElseThrow().reclaimableBytes() >= removedBytes,
                "the removed bytes are reclaimable: " + daemon.catalog().cartridge(source).orElseThrow());
        stepMillis.put("remove " + removed.size() + " files", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    @Order(2)
    void repackOntoAnotherCartridge_throughTheControlSocket() throws Exception {
        long t0 = System.nanoTime();
        daemon.scheduler().labelCartridge(target, "atlas", true).get(5, TimeUnit.MINUTES);
        Map<String, FileRecord> before = new LinkedHashMap<>();
        for (TestFile f : live) {
            before.put(f.pnfsid(), daemon.catalog().file(f.pnfsid()).orElseThrow());
        }

        JsonNode queued = control("cartridge-repack", List.of(source, "-"));
        assertEquals(live.size(), queued.path("filesTotal").asInt(), queued.toString());
        assertEquals("atlas", queued.path("targetFamily").asText(), queued.toString());
        Set<String> states = new LinkedHashSet<>();
        JsonNode done = Poll.value("the repack of " + source + " to end", Duration.ofSeconds(WAIT_SECONDS), () -> {
            JsonNode r = control("status", List.of()).path("scheduler").path("repacks").get(0);
            String state = r.path("state").asText();
            states.add(state);
            if (state.equals("failed") || state.equals("cancelled")) {
                throw new AssertionError("the repack ended " + r);
            }
            return state.equals("done") ? r : null;
        });
        System.out.println("Repack: states seen " + states + "; " + done);
        assertEquals(live.size(), done.path("filesDone").asInt(), done.toString());
        assertEquals(live.stream().mapToLong(TestFile::size).sum(), done.path("bytesDone").asLong(), done.toString());
        assertEquals(0, done.path("filesFailed").asInt(), done.toString());
        assertTrue(done.path("emptied").asBoolean(), done.toString());
        assertEquals(CartridgeState.EMPTY, daemon.catalog().cartridge(source).orElseThrow().state());
        assertEquals(List.of(), daemon.catalog().files(source));

        for (TestFile f : live) {
            FileRecord r = daemon.catalog().file(f.pnfsid()).orElseThrow(() -> new AssertionError(f + " lost"));
            assertEquals(target, r.cartridge(), f.toString());
            assertEquals(before.get(f.pnfsid()).checksum(), r.checksum(), f.toString());
            moved.put(f.pnfsid(), r);
        }
        for (TestFile f : removed) {
            assertTrue(daemon.catalog().file(f.pnfsid()).isEmpty(), f + " was removed, not moved");
        }
        // a copy committed twice would count twice here
        int members = daemon.catalog().aggregates(target).stream().mapToInt(AggregateRecord::memberCount).sum();
        assertEquals(live.size(), members, "aggregate members on " + target);
        stepMillis.put("repack " + live.size() + " files", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    @Order(3)
    void everyLiveFileStagedFromTheNewLocation_byteIdentical() throws Exception {
        long t0 = System.nanoTime();
        stageAllAndCompare();
        stepMillis.put("stage " + live.size() + " files", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    @Order(4)
    void catalogRebuiltFromBothCartridges_findsTheSameLocations() throws Exception {
        long t0 = System.nanoTime();
        JsonNode reports = control("catalog-rebuild", List.of(source, target));
        for (JsonNode r : reports) {
            assertEquals(0, r.path("skipped").size(), r.toString());
        }
        assertSameLocations();
        for (TestFile f : removed) {
            assertTrue(daemon.catalog().file(f.pnfsid()).isEmpty(), f + " was removed: the rebuild keeps it removed");
        }
        assertEquals(List.of(), daemon.catalog().files(source), "no file is live on the repacked source");
        System.out.println("Rebuild with the catalog: " + reports + "; " + source + " now "
                + daemon.catalog().cartridge(source).orElseThrow().state());
        assertEquals(CartridgeState.EMPTY, daemon.catalog().cartridge(source).orElseThrow().state(),
                "a rebuild keeps an emptied cartridge EMPTY while nothing on it is live (never appendable)");
        stepMillis.put("rebuild the two cartridges", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    @Order(5)
    void catalogWipedAndRebuiltFromTape_findsTheSameLocations_stagesAgain() throws Exception {
        long t0 = System.nanoTime();
        daemon.close(); // cartridges stay in the drives: the next daemon finds them there
        try (var s = Files.list(site.state)) {
            for (Path p : s.filter(p -> p.getFileName().toString().startsWith("catalog.db")).toList()) {
                Files.delete(p);
            }
        }
        daemon = site.startDaemon();
        // the source first: the target's later copies then supersede what it still holds
        JsonNode reports = control("catalog-rebuild", List.of(source, target));
        for (JsonNode r : reports) {
            assertEquals(0, r.path("skipped").size(), r.toString());
        }
        assertSameLocations();
        // The source still holds the removed files' bytes until it is relabelled, and an empty catalog has no
        // record of their removal: they come back, on the source.
        long back = removed.stream().filter(f -> daemon.catalog().file(f.pnfsid()).isPresent()).count();
        System.out.println("Rebuild from an empty catalog: " + reports + "; " + back + " of " + removed.size()
                + " removed files back on " + source);
        stepMillis.put("wipe the catalog and rebuild", (System.nanoTime() - t0) / 1_000_000);
        t0 = System.nanoTime();
        stageAllAndCompare();
        stepMillis.put("stage " + live.size() + " files after the rebuild", (System.nanoTime() - t0) / 1_000_000);
        passed = true;
    }

    // ---------------------------------------------------------------- helpers

    private void assertSameLocations() {
        for (TestFile f : live) {
            FileRecord expected = moved.get(f.pnfsid());
            FileRecord r = daemon.catalog().file(f.pnfsid()).orElseThrow(() -> new AssertionError(f + " lost"));
            assertEquals(expected.cartridge(), r.cartridge(), f.toString());
            assertEquals(expected.tapeFile(), r.tapeFile(), f.toString());
            assertEquals(expected.block(), r.block(), f.toString());
            assertEquals(expected.offset(), r.offset(), f.toString());
            assertEquals(expected.size(), r.size(), f.toString());
            assertEquals(expected.checksum(), r.checksum(), f.toString());
        }
    }

    private void stageAllAndCompare() throws Exception {
        for (TestFile f : live) {
            pool.dropReplica(f);
        }
        List<TestFile> order = new ArrayList<>(live);
        Collections.shuffle(order, random);
        List<EmulatedStageRequest> stages = pool.stage(order);
        Pool.awaitAll(stages, WAIT_SECONDS);
        for (int i = 0; i < order.size(); i++) {
            TestFile f = order.get(i);
            Outcome o = stages.get(i).outcome();
            assertTrue(o.isCompleted(), f + ": " + o);
            assertArrayEquals(f.content(), Files.readAllBytes(pool.emulator.replicaPath(f.pnfsId())), f.toString());
        }
    }

    /** One command on the daemon's control socket, as {@code tapeq} sends it. */
    private JsonNode control(String command, List<String> args) throws IOException {
        return ControlProtocol.call(site.controlSocket(), command, args);
    }
}
