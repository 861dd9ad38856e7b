package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;

/** Mount choice, ordering, guard, dwell and fair share, on a size-only library in virtual time. */
class SchedulerPolicyTest {

    @TempDir
    Path dir;

    private static final long GB = 1_000_000_000L;

    /** Writes {@code files} files of {@code size} for a group; each file is its own aggregate. */
    private static void preload(EngineFixture f, int first, int files, long size, String group) {
        for (int i = first; i < first + files; i++) {
            f.scheduler.flush(f.sizedFlush(i, size, "ds" + i, group));
        }
        f.loop.runUntilIdle();
        for (int i = first; i < first + files; i++) {
            assertTrue(f.catalog.file(EngineFixture.pnfsid(i)).isPresent(), "preloaded " + i);
        }
    }

    private static EngineFixture sizeOnly(Path dir, SchedulerConfig config, int drives, long capacity,
                                          String... barcodes) throws IOException {
        EngineFixture f = EngineFixture.open(dir, config, false, b -> {
            b.drives(drives);
            for (String barcode : barcodes) {
                b.cartridge(barcode, MediaType.LTO9, capacity);
            }
        });
        return f;
    }

    private static SchedulerConfig.Builder config() {
        return SchedulerConfig.builder().checkLabels(false).aggregateBytes(GB);
    }

    /** Stage phase makespan and tape locate time for one policy on the same written tape and requests. */
    private long[] stageRun(Path d, String policy, int files, int requests) throws IOException {
        try (EngineFixture f = sizeOnly(d, config().policy(policy).build(), 1, 18_000 * GB, "A00001L9")) {
            f.label("atlas:raw@osm", "A00001L9");
            preload(f, 0, files, 10 * GB, "atlas");
            f.await(f.scheduler.driveDown("drive0", "reset"));
            f.await(f.scheduler.driveUp("drive0"));
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < files; i++) {
                ids.add(i);
            }
            Collections.shuffle(ids, new Random(42));
            long locateBefore = f.library.stats().locateMillis();
            long t0 = f.loop.now();
            List<StageRequest> stages = new ArrayList<>();
            for (int i : ids.subList(0, requests)) {
                StageRequest s = f.sizedStage(i, "atlas", 0, 0);
                stages.add(s);
                f.scheduler.stage(s);
            }
            f.loop.runUntilIdle();
            long end = 0;
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
                end = Math.max(end, f.finishedAt.get(s.id()));
            }
            return new long[] {end - t0, f.library.stats().locateMillis() - locateBefore};
        }
    }

    /** Two 1 500-file recalls in virtual time: half a minute of CPU, so left out of the fast loop. */
    @Test
    @Tag("slow")
    void stagePass_wholeQueueSerpentineOrder_muchLessLocateThanFileSequence() throws IOException {
        long[] tapeq = stageRun(dir.resolve("tapeq"), "tapeq", 1500, 400);
        long[] endit = stageRun(dir.resolve("endit"), "endit", 1500, 400);
        System.out.printf("stage 400 of 1500 x 10 GB: tapeq makespan %d s locate %d s; endit makespan %d s locate %d s;"
                        + " locate ratio %.2f%n", tapeq[0] / 1000, tapeq[1] / 1000, endit[0] / 1000, endit[1] / 1000,
                (double) tapeq[1] / endit[1]);
        assertTrue(tapeq[1] < 0.6 * endit[1], "tapeq locate " + tapeq[1] + " vs file sequence " + endit[1]);
        assertTrue(tapeq[0] < endit[0], "tapeq makespan " + tapeq[0] + " vs endit " + endit[0]);
    }

    @Test
    void mountChoice_oneDrive_biggerQueueFirst() throws IOException {
        try (EngineFixture f = sizeOnly(dir, config().build(), 1, 60 * GB, "A00001L9", "A00002L9")) {
            f.label("atlas:raw@osm", "A00001L9", "A00002L9");
            preload(f, 0, 10, 10 * GB, "atlas"); // fills A00001 (5-6 files), then A00002
            Map<String, List<Integer>> byCartridge = new HashMap<>();
            for (int i = 0; i < 10; i++) {
                byCartridge.computeIfAbsent(f.catalog.file(EngineFixture.pnfsid(i)).orElseThrow().cartridge(),
                        k -> new ArrayList<>()).add(i);
            }
            List<Integer> a = byCartridge.get("A00001L9");
            List<Integer> b = byCartridge.get("A00002L9");
            assertTrue(a.size() > 1 && b.size() > 1, byCartridge.toString());
            // Unload whatever is mounted so both need a mount.
            f.await(f.scheduler.driveDown("drive0", "reset"));
            f.await(f.scheduler.driveUp("drive0"));
            f.loop.runFor(3_600_000);
            StageRequest small = f.sizedStage(a.get(0), "atlas", 0, 0);
            f.scheduler.stage(small);
            List<StageRequest> big = new ArrayList<>();
            for (int i : b) {
                StageRequest s = f.sizedStage(i, "atlas", 0, 0);
                big.add(s);
                f.scheduler.stage(s);
            }
            f.loop.runUntilIdle();
            long bigDone = big.stream().mapToLong(s -> f.finishedAt.get(s.id())).max().orElseThrow();
            assertTrue(bigDone < f.finishedAt.get(small.id()), "the bigger queue was mounted first");
        }
    }

    @Test
    void mountChoice_priorityBeatsVolume() throws IOException {
        try (EngineFixture f = sizeOnly(dir, config().build(), 1, 60 * GB, "A00001L9", "A00002L9")) {
            f.label("atlas:raw@osm", "A00001L9", "A00002L9");
            preload(f, 0, 10, 10 * GB, "atlas");
            f.loop.runFor(3_600_000);
            List<StageRequest> normal = new ArrayList<>();
            StageRequest urgent = null;
            for (int i = 0; i < 10; i++) {
                FileRecord r = f.catalog.file(EngineFixture.pnfsid(i)).orElseThrow();
                if (r.cartridge().equals("A00001L9")) {
                    StageRequest s = f.sizedStage(i, "atlas", 0, 0);
                    normal.add(s);
                    f.scheduler.stage(s);
                } else if (urgent == null) {
                    urgent = f.sizedStage(i, "atlas", 5, 0);
                    f.scheduler.stage(urgent);
                }
            }
            f.loop.runUntilIdle();
            long urgentDone = f.finishedAt.get(urgent.id());
            for (StageRequest s : normal) {
                assertTrue(urgentDone < f.finishedAt.get(s.id()), "priority 5 went first");
            }
        }
    }

    /** Time from asking for B (which unmounts A) until a later request for A is served. */
    private long remountDelay(Path d, long guard) throws IOException {
        SchedulerConfig c = config().remountGuardMillis(guard).quietMillis(60_000).dwellMillis(0).build();
        try (EngineFixture f = sizeOnly(d, c, 1, 60 * GB, "A00001L9", "A00002L9")) {
            f.label("atlas:raw@osm", "A00001L9", "A00002L9");
            preload(f, 0, 10, 10 * GB, "atlas");
            f.loop.runFor(3_600_000);
            List<Integer> onA = new ArrayList<>();
            int onB = -1;
            for (int i = 0; i < 10; i++) {
                String cart = f.catalog.file(EngineFixture.pnfsid(i)).orElseThrow().cartridge();
                if (cart.equals("A00001L9")) {
                    onA.add(i);
                } else if (onB < 0) {
                    onB = i;
                }
            }
            f.scheduler.stage(f.sizedStage(onA.get(0), "atlas", 0, 0));
            f.loop.runUntilIdle(); // A mounted and read
            long askedForB = f.loop.now();
            f.scheduler.stage(f.sizedStage(onB, "atlas", 0, 0));
            f.loop.runFor(600_000); // A unmounted for B, B read
            StageRequest again = f.sizedStage(onA.get(1), "atlas", 0, 0);
            f.scheduler.stage(again);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(again));
            assertEquals(0, f.status().queueCount());
            return f.finishedAt.get(again.id()) - askedForB;
        }
    }

    @Test
    void remountGuard_recentlyUnmounted_waitsForGuard() throws IOException {
        long guarded = remountDelay(dir.resolve("guarded"), 1_800_000);
        long unguarded = remountDelay(dir.resolve("unguarded"), 0);
        assertTrue(guarded >= 1_800_000, "with a 30 min guard the remount came after " + guarded + " ms");
        assertTrue(unguarded < 1_000_000, "without a guard the remount came after " + unguarded + " ms");
    }

    @Test
    void passJoin_requestsArrivingDuringMount_servedInSameMount() throws IOException {
        try (EngineFixture f = sizeOnly(dir, config().quietMillis(1000).build(), 1, 18_000 * GB, "A00001L9")) {
            f.label("atlas:raw@osm", "A00001L9");
            preload(f, 0, 200, 10 * GB, "atlas");
            f.loop.runFor(3_600_000);
            f.await(f.scheduler.driveDown("drive0", "reset"));
            f.await(f.scheduler.driveUp("drive0"));
            long mountsBefore = f.status().counters().get("mounts");
            List<StageRequest> all = new ArrayList<>();
            for (int i = 0; i < 100; i += 2) {
                StageRequest s = f.sizedStage(i, "atlas", 0, 0);
                all.add(s);
                f.scheduler.stage(s);
            }
            // Let the pass start, then add more while it runs.
            f.loop.runFor(400_000);
            assertTrue(f.outcomes.size() < all.size() + 200, "pass still running");
            for (int i = 1; i < 100; i += 2) {
                StageRequest s = f.sizedStage(i, "atlas", 0, 0);
                all.add(s);
                f.scheduler.stage(s);
            }
            f.loop.runUntilIdle();
            all.forEach(s -> assertInstanceOf(Outcome.Staged.class, f.outcome(s)));
            long mounts = f.status().counters().get("mounts") - mountsBefore;
            assertTrue(mounts <= 1, "requests joined the running pass; mounts " + mounts);
        }
    }

    @Test
    void fairShare_twoGroupsEqualShares_splitDrives() throws IOException {
        SchedulerConfig c = config().group("atlas", 1, 0).group("cms", 1, 0).build();
        String[] carts = {"A00001L9", "A00002L9", "A00003L9", "A00004L9", "C00001L9", "C00002L9", "C00003L9",
                          "C00004L9"};
        try (EngineFixture f = sizeOnly(dir, c, 4, 60 * GB, carts)) {
            f.label("atlas:raw@osm", "A00001L9", "A00002L9", "A00003L9", "A00004L9");
            f.label("cms:raw@osm", "C00001L9", "C00002L9", "C00003L9", "C00004L9");
            preload(f, 0, 20, 10 * GB, "atlas");
            preload(f, 100, 20, 10 * GB, "cms");
            f.loop.runFor(3_600_000);
            for (int i = 0; i < 20; i++) {
                f.scheduler.stage(f.sizedStage(i, "atlas", 0, 0));
                f.scheduler.stage(f.sizedStage(100 + i, "cms", 0, 0));
            }
            List<int[]> samples = new ArrayList<>();
            sample(f, samples, 30_000);
            f.loop.runUntilIdle();
            int both = 0;
            for (int[] s : samples) {
                if (s[2] > 0 && s[3] > 0) {
                    both++;
                    assertTrue(Math.abs(s[0] - s[1]) <= 1, "drives atlas " + s[0] + " cms " + s[1]);
                }
            }
            assertTrue(both > 5, "both groups had work in " + both + " samples");
        }
    }

    @Test
    void groupCap_maxDrives_neverExceeded() throws IOException {
        SchedulerConfig c = config().group("atlas", 1, 1).build();
        try (EngineFixture f = sizeOnly(dir, c, 3, 60 * GB, "A00001L9", "A00002L9", "A00003L9", "A00004L9")) {
            f.label("atlas:raw@osm", "A00001L9", "A00002L9", "A00003L9", "A00004L9");
            preload(f, 0, 20, 10 * GB, "atlas");
            f.loop.runFor(3_600_000);
            for (int i = 0; i < 20; i++) {
                f.scheduler.stage(f.sizedStage(i, "atlas", 0, 0));
            }
            List<int[]> samples = new ArrayList<>();
            sample(f, samples, 10_000);
            f.loop.runUntilIdle();
            assertTrue(samples.stream().anyMatch(s -> s[0] == 1), "atlas used a drive");
            assertTrue(samples.stream().allMatch(s -> s[0] <= 1), "atlas never had more than one drive");
        }
    }

    /** Mounts of A when a request for A arrives 20 s after its pass ended and one for B is waiting. */
    private long mountsOfA(Path d, long dwell) throws IOException {
        SchedulerConfig c = config().dwellMillis(dwell).quietMillis(0).remountGuardMillis(0).build();
        try (EngineFixture f = sizeOnly(d, c, 1, 60 * GB, "A00001L9", "A00002L9")) {
            f.label("atlas:raw@osm", "A00001L9", "A00002L9");
            preload(f, 0, 10, 10 * GB, "atlas");
            f.await(f.scheduler.driveDown("drive0", "unload"));
            f.await(f.scheduler.driveUp("drive0"));
            f.loop.runFor(3_600_000);
            List<Integer> onA = new ArrayList<>();
            int onB = -1;
            for (int i = 0; i < 10; i++) {
                if (f.catalog.file(EngineFixture.pnfsid(i)).orElseThrow().cartridge().equals("A00001L9")) {
                    onA.add(i);
                } else if (onB < 0) {
                    onB = i;
                }
            }
            long before = f.library.stats().mountsPerCartridge().getOrDefault("A00001L9", 0L);
            StageRequest a1 = f.sizedStage(onA.get(0), "atlas", 0, 0);
            f.scheduler.stage(a1);
            while (f.outcome(a1) == null) {
                f.loop.runFor(1000);
            }
            f.scheduler.stage(f.sizedStage(onB, "atlas", 0, 0));
            f.loop.runFor(20_000);
            f.scheduler.stage(f.sizedStage(onA.get(1), "atlas", 0, 0));
            f.loop.runUntilIdle();
            assertEquals(0, f.status().queueCount());
            return f.library.stats().mountsPerCartridge().getOrDefault("A00001L9", 0L) - before;
        }
    }

    @Test
    void dwell_requestArrivingSoonAfterPass_servedWithoutRemount() throws IOException {
        long withDwell = mountsOfA(dir.resolve("dwell"), 300_000);
        long without = mountsOfA(dir.resolve("nodwell"), 0);
        assertEquals(1, withDwell, "with dwell A stayed mounted for the late request");
        assertEquals(2, without, "without dwell A was remounted");
    }

    @Test
    void directionCap_maxWriteDrives_neverExceeded() throws IOException {
        SchedulerConfig c = config().maxWriteDrives(1).build();
        try (EngineFixture f = sizeOnly(dir, c, 3, 18_000 * GB, "A00001L9", "A00002L9", "C00001L9")) {
            f.label("atlas:raw@osm", "A00001L9", "A00002L9");
            f.label("cms:raw@osm", "C00001L9");
            for (int i = 0; i < 30; i++) {
                f.scheduler.flush(f.sizedFlush(i, 10 * GB, "ds" + i, i % 2 == 0 ? "atlas" : "cms"));
            }
            int[] maxWriting = {0};
            long[] samples = {0};
            Runnable[] probe = new Runnable[1];
            probe[0] = () -> {
                long writing = f.peekStatus().drives().stream().filter(d -> d.activity().startsWith("writing")).count();
                maxWriting[0] = (int) Math.max(maxWriting[0], writing);
                samples[0]++;
                if (f.outcomes.size() < 30) {
                    f.loop.schedule(5_000, probe[0]);
                }
            };
            f.loop.schedule(5_000, probe[0]);
            f.loop.runUntilIdle();
            assertEquals(30, f.outcomes.size());
            assertEquals(1, maxWriting[0], "one write drive at most, over " + samples[0] + " samples");
        }
    }

    /** Records {atlas drives, cms drives, atlas queued, cms queued} every period until idle. */
    private static void sample(EngineFixture f, List<int[]> samples, long period) {
        f.loop.schedule(period, () -> {
            SchedulerStatus st = StatusBuilder.build(engineOf(f), new WorkHold(), 0, 1000);
            int[] s = new int[4];
            for (SchedulerStatus.DriveStatus d : st.drives()) {
                if ("atlas".equals(d.group())) {
                    s[0]++;
                } else if ("cms".equals(d.group())) {
                    s[1]++;
                }
            }
            for (SchedulerStatus.QueueStatus q : st.queues()) {
                if (q.group().equals("atlas")) {
                    s[2] += (int) q.files();
                } else {
                    s[3] += (int) q.files();
                }
            }
            samples.add(s);
            if (s[2] + s[3] > 0) {
                sample(f, samples, period);
            }
        });
    }

    private static Engine engineOf(EngineFixture f) {
        return f.scheduler.engineForTests();
    }
}
