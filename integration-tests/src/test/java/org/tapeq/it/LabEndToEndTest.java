package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.tapeq.daemon.Daemon;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.Scheduler;
import org.tapeq.scheduler.engine.SchedulerStatus;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.testing.support.Poll;

/**
 * The whole chain on a real kernel tape stack: pool emulator -> tapeq provider -> daemon -> SCSI backend ->
 * {@code mtx}/{@code mt}/{@code dd} through the lab's {@code vtl-ssh} -> st/ch drivers in the lab's guest -> the
 * emulated library, once per lab ({@link Lab}): the tgt lab of ../shared/vtl ({@link VtlEndToEndTest}) and the
 * mhVTL lab of ../shared/mhvtl ({@link MhvtlEndToEndTest}). .ci/run starts both.
 *
 * <p>One campaign in steps that build on each other: flush a few hundred files of mixed sizes in several
 * datasets and stage them back in random order; wipe the catalog, rebuild it from the cartridges and stage
 * again; fill a cartridge so writing goes on on the next; take a drive offline in the lab's emulator in the
 * middle of a stage campaign; on mhVTL, take the library offline while stages wait for mounts, which must
 * end without an operator; report the mounts per cartridge. Cartridges 1-3 are labelled for atlas, 4-5 for
 * cms (with force: the lab's cartridges keep earlier runs' data); 6 and 7 are {@link LabRepackTest}'s, the others
 * are left to the tape-scsi module's library test.
 */
@Tag("slow")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LabEndToEndTest {

    private static final long WAIT_SECONDS = 900;
    private final Lab spec;
    private final List<String> atlas;
    private final List<String> cms;

    private static Path lab;
    private static Path root;
    private static Site site;
    private static Daemon daemon;
    private static Pool pool;
    private static final Random RANDOM = new Random(20261121);
    private static final List<TestFile> FILES = new ArrayList<>();
    private static final Map<String, FileRecord> WRITTEN = new LinkedHashMap<>();
    private static final Map<String, Long> STEP_MILLIS = new LinkedHashMap<>();
    private static boolean mountsReported;
    private static final Set<String> ADOPTED = new HashSet<>();

    LabEndToEndTest(Lab spec) {
        this.spec = spec;
        this.atlas = spec.barcodes(1, 3);
        this.cms = spec.barcodes(4, 5);
    }

    @BeforeAll
    void start() throws Exception {
        FILES.clear();
        WRITTEN.clear();
        STEP_MILLIS.clear();
        ADOPTED.clear();
        mountsReported = false;
        lab = spec.dir();
        root = Files.createTempDirectory("tapeq-it-vtl-");
        // One drive writes at a time: with two, a family's writes may go to two cartridges at once, and whether
        // the fill step below fills one depends on how the first step's data happened to split between them
        // (once neither filled: 9 and 12 of its 21 files on two part-filled cartridges).
        site = Lab.site(root, lab).scheduler("maxWriteDrives", "1");
        long t0 = System.nanoTime();
        daemon = site.startDaemon();
        for (String barcode : atlas) {
            daemon.scheduler().labelCartridge(barcode, "atlas", true).get(5, TimeUnit.MINUTES);
        }
        for (String barcode : cms) {
            daemon.scheduler().labelCartridge(barcode, "cms", true).get(5, TimeUnit.MINUTES);
        }
        pool = Pool.start(site);
        STEP_MILLIS.put("start and label 5 cartridges", (System.nanoTime() - t0) / 1_000_000);
    }

    @AfterAll
    void stop() throws Exception {
        if (lab == null) {
            return;
        }
        Lab.command(lab, spec.driveOff().get(1));
        if (spec.libraryOff() != null) {
            Lab.command(lab, spec.libraryOff().get(1));
        }
        System.out.println("VTL end-to-end step durations (ms): " + STEP_MILLIS);
        Pool.closeAndCheck(pool, daemon);
        if (mountsReported) {
            try (var paths = Files.walk(root)) { // every step passed: nothing to look at
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    @Order(1)
    void flushThenStageInRandomOrder_byteIdentical() throws Exception {
        long t0 = System.nanoTime();
        FILES.addAll(TestFile.generate(RANDOM, 290, 6, 500, 64_000));
        FILES.addAll(TestFile.generate(RANDOM, 10, 6, 256_000, 1_000_000));
        List<EmulatedFlushRequest> flushes = pool.flush(FILES);
        Pool.awaitAll(flushes, WAIT_SECONDS);
        for (int i = 0; i < FILES.size(); i++) {
            TestFile f = FILES.get(i);
            Outcome o = flushes.get(i).outcome();
            assertTrue(o.isCompleted(), f + ": " + o);
            FileRecord r = daemon.catalog().file(f.pnfsid()).orElseThrow(() -> new AssertionError(f + " not in catalog"));
            String family = f.storageClass().substring(0, f.storageClass().indexOf(':'));
            assertTrue((family.equals("atlas") ? atlas : cms).contains(r.cartridge()), f + " on " + r.cartridge());
            WRITTEN.put(f.pnfsid(), r);
        }
        STEP_MILLIS.put("flush 300 files", (System.nanoTime() - t0) / 1_000_000);
        t0 = System.nanoTime();
        stageAllAndCompare();
        STEP_MILLIS.put("stage 300 files", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    @Order(2)
    void wipeCatalog_rebuildFromCartridges_stageAgain() throws Exception {
        long t0 = System.nanoTime();
        daemon.close(); // cartridges stay in the drives: the next daemon finds them there
        try (var s = Files.list(site.state)) {
            for (Path p : s.filter(p -> p.getFileName().toString().startsWith("catalog.db")).toList()) {
                Files.delete(p);
            }
        }
        daemon = site.startDaemon();
        daemon.scheduler().status(0).get().drives().forEach(d -> {
            if (d.cartridge() != null) {
                ADOPTED.add(d.cartridge()); // found in a drive at start: used without a mount
            }
        });
        // Every labelled cartridge, also those with no data yet: the new catalog learns their family from the label.
        int files = 0;
        for (String barcode : concat(atlas, cms)) {
            Scheduler.RebuildReport report = daemon.scheduler().rebuildCartridge(barcode).get(10, TimeUnit.MINUTES);
            assertEquals(List.of(), report.skipped(), barcode + ": " + report);
            files += report.files();
        }
        assertEquals(FILES.size(), files, "files found on the cartridges");
        for (TestFile f : FILES) {
            FileRecord before = WRITTEN.get(f.pnfsid());
            FileRecord after = daemon.catalog().file(f.pnfsid()).orElseThrow(() -> new AssertionError(f + " lost"));
            assertEquals(before.cartridge(), after.cartridge(), f.toString());
            assertEquals(before.block(), after.block(), f.toString());
            assertEquals(before.offset(), after.offset(), f.toString());
            assertEquals(before.checksum(), after.checksum(), f.toString());
        }
        STEP_MILLIS.put("restart, wipe and rebuild the catalog", (System.nanoTime() - t0) / 1_000_000);
        t0 = System.nanoTime();
        stageAllAndCompare();
        STEP_MILLIS.put("stage 300 files after the rebuild", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    @Order(3)
    void fillACartridge_writingGoesOnOnTheNext() throws Exception {
        long t0 = System.nanoTime();
        long capacity = spec.capacityBytes();
        int n = (int) (capacity * 5 / 4 / 1_000_000) + 1;
        List<TestFile> fill = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fill.add(TestFile.of(RANDOM, 99, 1_000_000)); // dataset 99: storage class atlas:raw
        }
        List<EmulatedFlushRequest> flushes = pool.flush(fill);
        Pool.awaitAll(flushes, WAIT_SECONDS);
        Map<String, Integer> perCartridge = new TreeMap<>();
        for (int i = 0; i < fill.size(); i++) {
            Outcome o = flushes.get(i).outcome();
            assertTrue(o.isCompleted(), fill.get(i) + ": " + o);
            FileRecord r = daemon.catalog().file(fill.get(i).pnfsid()).orElseThrow();
            perCartridge.merge(r.cartridge(), 1, Integer::sum);
            WRITTEN.put(fill.get(i).pnfsid(), r);
        }
        List<String> full = new ArrayList<>();
        for (String barcode : atlas) {
            CartridgeRecord c = daemon.catalog().cartridge(barcode).orElseThrow();
            if (c.state() == CartridgeState.FULL) {
                full.add(barcode);
            }
        }
        System.out.println("Fill: " + n + " files of 1 MB on " + perCartridge + "; full: " + full);
        assertTrue(perCartridge.size() >= 2, "the files went to more than one cartridge: " + perCartridge);
        assertTrue(!full.isEmpty(), "a cartridge was closed as full");
        long tapeFull = daemon.scheduler().status(0).get().counters().getOrDefault("faults_tape_full", 0L);
        System.out.println("Fill: " + tapeFull + " tape-full faults");
        if (!spec.cartridgeMemory()) { // without it only the drive's end of tape closes a cartridge
            assertTrue(tapeFull >= 1, "a tape-full fault");
        }
        FILES.addAll(fill);
        STEP_MILLIS.put("fill a cartridge (" + n + " MB)", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    @Order(4)
    void driveTakenOfflineMidCampaign_noRequestLost() throws Exception {
        long t0 = System.nanoTime();
        for (TestFile f : FILES) {
            pool.dropReplica(f);
        }
        List<TestFile> order = new ArrayList<>(FILES);
        Collections.shuffle(order, RANDOM);
        long doneBefore = counter("stages_done");
        List<EmulatedStageRequest> stages = pool.stage(order);
        // Take drive0 away while it works: mid-read if possible, else once a fifth of the stages are done.
        Poll.until("drive0 reads, or a fifth of the stages are done", Duration.ofSeconds(WAIT_SECONDS), () -> {
            SchedulerStatus s = daemon.scheduler().status(0).get();
            boolean reading = s.drives().stream().anyMatch(d -> d.id().equals("drive0")
                    && d.activity() != null && d.activity().startsWith("reading"));
            return reading || s.counters().get("stages_done") - doneBefore >= order.size() / 5;
        });
        Lab.command(lab, spec.driveOff().get(0));
        long faultsBefore = counter("faults_drive");
        Poll.until("drive0's failure is noticed", Duration.ofSeconds(WAIT_SECONDS),
                () -> counter("faults_drive") > faultsBefore
                        || counter("stages_done") - doneBefore == order.size());
        Pool.awaitAll(stages, WAIT_SECONDS);
        compare(order, stages);
        long driveFaults = counter("faults_drive") - faultsBefore;
        System.out.println("Drive offline: " + driveFaults + " drive faults; drive0 "
                + daemon.scheduler().status(0).get().drives().get(0));
        Lab.command(lab, spec.driveOff().get(1));
        daemon.scheduler().driveUp("drive0").get(); // restores the drive for the next steps; the stages needed no one
        STEP_MILLIS.put("stage " + order.size() + " files with drive0 taken offline", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    @Order(5)
    void libraryOfflineWhileStagesWaitForMounts_endsWithoutAnOperator() throws Exception {
        Assumptions.assumeTrue(spec.libraryOff() != null, "this lab cannot take its library offline");
        long t0 = System.nanoTime();
        // set-up, not recovery: both drives empty, so that every stage needs the robot
        Poll.until("both drives empty", Duration.ofSeconds(WAIT_SECONDS), () -> {
            daemon.scheduler().unloadIdleDrives().get();
            return daemon.scheduler().status(0).get().drives().stream().allMatch(d -> d.cartridge() == null);
        });
        List<TestFile> some = new ArrayList<>(FILES.subList(0, Math.min(60, FILES.size())));
        for (TestFile f : some) {
            pool.dropReplica(f);
        }
        long robotFaults = counter("faults_robot");
        Lab.command(lab, spec.libraryOff().get(0));
        List<EmulatedStageRequest> stages;
        try {
            stages = pool.stage(some);
            // offline long enough that mounts pause (robotErrorLimit consecutive robot faults)
            Poll.until("mounts fail on the offline library", Duration.ofSeconds(WAIT_SECONDS),
                    () -> counter("faults_robot") - robotFaults >= 3);
        } finally {
            Lab.command(lab, spec.libraryOff().get(1));
        }
        Pool.awaitAll(stages, WAIT_SECONDS);
        compare(some, stages);
        System.out.println("Library offline: " + (counter("faults_robot") - robotFaults) + " robot faults; "
                + daemon.scheduler().status(0).get().drives());
        STEP_MILLIS.put("stage " + some.size() + " files with the library offline for a while",
                (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    @Order(6)
    void mountsPerCartridge_reported() throws Exception {
        SchedulerStatus s = daemon.scheduler().status(0).get();
        Map<String, Long> mounts = new TreeMap<>();
        for (String barcode : concat(atlas, cms)) {
            daemon.catalog().cartridge(barcode).ifPresent(c -> mounts.put(barcode, c.mountCount()));
        }
        System.out.println("Mounts per cartridge (this daemon's catalog, since the rebuild): " + mounts
                + "; found in drives at the restart: " + ADOPTED + "; this run: " + s.mountsPerCartridge());
        for (String barcode : new HashSet<>(WRITTEN.values().stream().map(FileRecord::cartridge).toList())) {
            assertTrue(mounts.getOrDefault(barcode, 0L) >= 1 || ADOPTED.contains(barcode), barcode + " was read"
                    + " since the restart, so mounted or found in a drive at the restart (" + ADOPTED + "): " + mounts);
        }
        mountsReported = true;
    }

    // ---------------------------------------------------------------- helpers

    private static void stageAllAndCompare() throws Exception {
        for (TestFile f : FILES) {
            pool.dropReplica(f);
        }
        List<TestFile> order = new ArrayList<>(FILES);
        Collections.shuffle(order, RANDOM);
        List<EmulatedStageRequest> stages = pool.stage(order);
        Pool.awaitAll(stages, WAIT_SECONDS);
        compare(order, stages);
    }

    private static void compare(List<TestFile> order, List<EmulatedStageRequest> stages) throws IOException {
        for (int i = 0; i < order.size(); i++) {
            TestFile f = order.get(i);
            Outcome o = stages.get(i).outcome();
            assertTrue(o.isCompleted(), f + ": " + o);
            assertArrayEquals(f.content(), Files.readAllBytes(pool.emulator.replicaPath(f.pnfsId())), f.toString());
        }
    }

    private static long counter(String name) throws Exception {
        return daemon.scheduler().status(0).get().counters().getOrDefault(name, 0L);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
