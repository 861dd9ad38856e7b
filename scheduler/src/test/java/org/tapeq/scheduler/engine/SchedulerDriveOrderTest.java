package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.policy.EstimatedGeometry;
import org.tapeq.scheduler.policy.MountPolicies;
import org.tapeq.scheduler.policy.MountPolicy;
import org.tapeq.scheduler.policy.QueueView;
import org.tapeq.scheduler.policy.ReadOrder;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.sim.PhysicsProfile;

/**
 * What the drive offers for read ordering, used where it offers it and done without where it does not: its
 * recommended access order (GENERATE / RECEIVE RECOMMENDED ACCESS ORDER) and its end-of-wrap positions (READ END OF
 * WRAP POSITION). Size-only library, virtual time.
 */
class SchedulerDriveOrderTest {

    private static final long GB = 1_000_000_000L;
    private static final int FILES = 40;
    /** Every wrap holds 3 % more than nominal: by wrap 100 the nominal estimate is 3 wraps off. */
    private static final PhysicsProfile OFFSET_3 = new PhysicsProfile("offset+3", 2_500, 3_500, 3_000, 2_500, 5_000,
            0, 2_500, 1, 0, 0, 0.02, 0.03);

    @TempDir
    Path dir;

    /** The library as the scheduler sees it: records each locate and each access-order request and answer. */
    private static class Recording extends ForwardingLibrary {
        final List<Long> locates = new ArrayList<>();
        final List<long[]> asked = new ArrayList<>();
        final int limit;

        Recording(TapeLibrary to, int limit) {
            super(to);
            this.limit = limit;
        }

        @Override
        public void locate(String drive, long block, Completion<Void> done) {
            locates.add(block);
            super.locate(drive, block, done);
        }

        @Override
        public int accessOrderLimit(String drive) {
            return limit;
        }

        @Override
        public void recommendAccessOrder(String drive, long[] starts, long[] ends, Completion<int[]> done) {
            asked.add(starts.clone());
            answer(drive, starts, ends, done);
        }

        /** The test drive's answer: the ranges from the last block to the first (no policy reads that way). */
        void answer(String drive, long[] starts, long[] ends, Completion<int[]> done) {
            Integer[] idx = new Integer[starts.length];
            for (int i = 0; i < idx.length; i++) {
                idx[i] = i;
            }
            Arrays.sort(idx, (a, b) -> Long.compare(starts[b], starts[a]));
            done.succeeded(Arrays.stream(idx).mapToInt(Integer::intValue).toArray());
        }
    }

    private static SchedulerConfig config(String policy) {
        return SchedulerConfig.builder().checkLabels(false).aggregateBytes(GB).policy(policy).build();
    }

    /** Writes {@code FILES} 10 GB files (one tape file each), remounts nothing, and stages every other one. */
    private static List<StageRequest> writeAndStage(EngineFixture f) {
        f.label("atlas:raw@osm", "A00001L9");
        for (int i = 0; i < FILES; i++) {
            f.scheduler.flush(f.sizedFlush(i, 10 * GB, "ds" + i, "atlas"));
        }
        f.loop.runUntilIdle();
        f.await(f.scheduler.driveDown("drive0", "reset"));
        f.await(f.scheduler.driveUp("drive0"));
        List<StageRequest> stages = new ArrayList<>();
        for (int i = 0; i < FILES; i += 2) {
            stages.add(f.sizedStage(i, "atlas", 0, 0));
        }
        f.scheduler.stage(stages);
        return stages;
    }

    private EngineFixture open(String policy, UnaryOperator<TapeLibrary> wrap, MountPolicy instance)
            throws IOException {
        return EngineFixture.openSizeOnly(dir, config(policy), b -> b.drives(1)
                .cartridge("A00001L9", MediaType.LTO9, 18_000 * GB), wrap, instance);
    }

    private static long[] sortedDescending(List<Long> blocks) {
        long[] out = blocks.stream().mapToLong(Long::longValue).sorted().toArray();
        for (int i = 0; i < out.length / 2; i++) {
            long t = out[i];
            out[i] = out[out.length - 1 - i];
            out[out.length - 1 - i] = t;
        }
        return out;
    }

    @Test
    void driveOffersAccessOrder_tapeqReadsInTheDrivesOrder() throws IOException {
        Recording[] seen = new Recording[1];
        try (EngineFixture f = open("tapeq", lib -> seen[0] = new Recording(lib, 2048), null)) {
            List<StageRequest> stages = writeAndStage(f);
            seen[0].locates.clear();
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertEquals(1, seen[0].asked.size(), "one request for the one pass");
            assertEquals(FILES / 2, seen[0].asked.get(0).length);
            // the reads went where the drive said: from the last block to the first
            long[] located = seen[0].locates.stream().mapToLong(Long::longValue).toArray();
            assertEquals(FILES / 2, located.length);
            assertArrayEquals(sortedDescending(seen[0].locates), located);
        }
    }

    @Test
    void driveOffersAccessOrder_aFewWholeRuns_tapeqOrdersThemItself() throws IOException {
        Recording[] seen = new Recording[1];
        try (EngineFixture f = open("tapeq", lib -> seen[0] = new Recording(lib, 2048), null)) {
            writeAndStage(f); // every other file: 20 runs of one file, asked of the drive
            f.loop.runUntilIdle();
            assertEquals(1, seen[0].asked.size());
            List<StageRequest> dataset = new ArrayList<>();
            for (int i = 0; i < FILES; i++) { // every file, back to back: one run
                dataset.add(f.sizedStage(i, "atlas", 0, 0));
            }
            seen[0].locates.clear();
            f.scheduler.stage(dataset);
            f.loop.runUntilIdle();
            for (StageRequest s : dataset) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertEquals(1, seen[0].asked.size(), "one run: tapeq's exact order of whole runs, not the drive's");
            long[] located = seen[0].locates.stream().mapToLong(Long::longValue).toArray();
            long[] ascending = located.clone();
            Arrays.sort(ascending);
            assertArrayEquals(ascending, located, "the run read from its start to its end");
        }
    }

    @Test
    void driveOffersAccessOrder_policyThatDoesNotAskIgnoresIt() throws IOException {
        Recording[] seen = new Recording[1];
        try (EngineFixture f = open("endit", lib -> seen[0] = new Recording(lib, 2048), null)) {
            List<StageRequest> stages = writeAndStage(f);
            seen[0].locates.clear();
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertEquals(0, seen[0].asked.size());
            long[] located = seen[0].locates.stream().mapToLong(Long::longValue).toArray();
            long[] ascending = located.clone();
            Arrays.sort(ascending);
            assertArrayEquals(ascending, located, "endit reads in file-sequence order");
        }
    }

    @Test
    void driveRefusesAccessOrder_readsInTheEstimatesOrder_askedOncePerCartridge() throws IOException {
        Recording[] seen = new Recording[1];
        try (EngineFixture f = open("tapeq", lib -> seen[0] = new Recording(lib, 2048) {
            @Override
            void answer(String drive, long[] starts, long[] ends, Completion<int[]> done) {
                done.failed(TapeFault.refusal("ILLEGAL REQUEST (test)"));
            }
        }, null)) {
            List<StageRequest> stages = writeAndStage(f);
            seen[0].locates.clear();
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertEquals(1, seen[0].asked.size(), "refused once, not asked again on this cartridge in the mount");
            SchedulerStatus st = f.status();
            assertEquals(0L, st.counters().getOrDefault("faults_drive", 0L), "a refusal is no drive fault");
            assertTrue(st.recentFaults().isEmpty(), st.recentFaults().toString());
            assertEquals(FILES / 2, seen[0].locates.size());
            assertTrue(!Arrays.equals(sortedDescending(seen[0].locates),
                    seen[0].locates.stream().mapToLong(Long::longValue).toArray()), "not the refused order");
            // the next mount asks again (a refusal may have been the drive's passing state)
            f.await(f.scheduler.driveDown("drive0", "reset"));
            f.await(f.scheduler.driveUp("drive0"));
            List<StageRequest> again = new ArrayList<>();
            for (int i = 1; i < FILES; i += 2) {
                again.add(f.sizedStage(i, "atlas", 0, 0));
            }
            f.scheduler.stage(again);
            f.loop.runUntilIdle();
            for (StageRequest s : again) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertEquals(2, seen[0].asked.size(), "asked again after the remount");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"zeros", "short", "long", "out-of-range"})
    void driveAnswersNoPermutation_readsInTheEstimatesOrder(String wrong) throws IOException {
        Recording[] seen = new Recording[1];
        try (EngineFixture f = open("tapeq", lib -> seen[0] = new Recording(lib, 2048) {
            @Override
            void answer(String drive, long[] starts, long[] ends, Completion<int[]> done) {
                int n = starts.length;
                int[] identity = java.util.stream.IntStream.range(0, n).toArray();
                done.succeeded(switch (wrong) {
                    case "zeros" -> new int[n];
                    case "short" -> Arrays.copyOf(identity, n - 1);
                    case "long" -> java.util.stream.IntStream.range(0, n + 1).toArray();
                    default -> { // one index past the end in place of the last
                        identity[n - 1] = n;
                        yield identity;
                    }
                });
            }
        }, null)) {
            List<StageRequest> stages = writeAndStage(f);
            seen[0].locates.clear();
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertEquals(1, seen[0].asked.size());
            assertEquals(FILES / 2, seen[0].locates.size(), "each read once: " + seen[0].locates);
            assertEquals(FILES / 2, new java.util.HashSet<>(seen[0].locates).size(), "no read twice");
            assertEquals(0L, f.status().counters().getOrDefault("faults_drive", 0L));
        }
    }

    @Test
    void driveFaultsWhileAsked_countedAgainstTheDrive_andShownInRecentFaults() throws IOException {
        Recording[] seen = new Recording[1];
        try (EngineFixture f = open("tapeq", lib -> seen[0] = new Recording(lib, 2048) {
            @Override
            void answer(String drive, long[] starts, long[] ends, Completion<int[]> done) {
                if (asked.size() == 1) {
                    done.failed(new TapeFault(FaultKind.DRIVE, "HARDWARE ERROR (test)"));
                } else {
                    super.answer(drive, starts, ends, done);
                }
            }
        }, null)) {
            List<StageRequest> stages = writeAndStage(f);
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            SchedulerStatus st = f.status();
            assertEquals(1L, st.counters().get("faults_drive"), st.counters().toString());
            assertEquals(1, st.recentFaults().size(), st.recentFaults().toString());
            SchedulerStatus.Fault fault = st.recentFaults().get(0);
            assertEquals("drive0", fault.drive());
            assertEquals("A00001L9", fault.cartridge());
            assertTrue(fault.reason().contains("recommended access order failed: HARDWARE ERROR (test)"),
                    fault.reason());
            assertTrue(seen[0].asked.size() >= 2, "asked again at the next mount");
        }
    }

    @Test
    void driveOrdersAtMostItsLimit_theGroupIsAskedInPieces() throws IOException {
        Recording[] seen = new Recording[1];
        try (EngineFixture f = open("tapeq", lib -> seen[0] = new Recording(lib, 6), null)) {
            List<StageRequest> stages = writeAndStage(f);
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            // 20 spans in block order, at most 6 per request, each asked when the one before has been read: 6, 6;
            // the last 8 are at most 12 runs, which tapeq orders itself (driveOrderGroups)
            assertEquals(List.of(6, 6), seen[0].asked.stream().map(a -> a.length).toList());
            for (int i = 1; i < seen[0].asked.size(); i++) {
                long[] before = seen[0].asked.get(i - 1);
                assertTrue(Arrays.stream(before).max().getAsLong() < Arrays.stream(seen[0].asked.get(i)).min()
                        .getAsLong(), "pieces follow the block order");
            }
        }
    }

    /** A named policy with its drive-order groups or pass limit replaced. */
    private static class Altered implements MountPolicy {
        final MountPolicy to;

        Altered(String name) {
            to = MountPolicies.create(name, SchedulerConfig.builder().build().mountCriteria());
        }

        @Override public long eligibleAt(QueueView queue) { return to.eligibleAt(queue); }
        @Override public double rank(QueueView queue) { return to.rank(queue); }
        @Override public boolean keepMounted(QueueView m, QueueView best) { return to.keepMounted(m, best); }
        @Override public ReadOrder readOrder() { return to.readOrder(); }
        @Override public boolean joinsRunningPass() { return to.joinsRunningPass(); }
        @Override public boolean learnsLayout() { return to.learnsLayout(); }
        @Override public int passLimit() { return to.passLimit(); }

        @Override
        public List<int[]> driveOrderGroups(long[] starts, long[] ends, EstimatedGeometry g) {
            return to.driveOrderGroups(starts, ends, g);
        }
    }

    @Test
    void policyGivesNoGroups_theDriveIsNotWedged_thePolicyOrdersTheReads() throws IOException {
        Recording[] seen = new Recording[1];
        MountPolicy empty = new Altered("tapeq") {
            @Override
            public List<int[]> driveOrderGroups(long[] starts, long[] ends, EstimatedGeometry g) {
                return List.of();
            }
        };
        try (EngineFixture f = open("tapeq", lib -> seen[0] = new Recording(lib, 2048), empty)) {
            f.label("atlas:raw@osm", "A00001L9");
            for (int i = 0; i < 2; i++) {
                f.scheduler.flush(f.sizedFlush(i, 10 * GB, "ds" + i, "atlas"));
            }
            f.loop.runUntilIdle();
            List<StageRequest> stages = List.of(f.sizedStage(0, "atlas", 0, 0), f.sizedStage(1, "atlas", 0, 0));
            f.scheduler.stage(stages);
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertEquals(0, seen[0].asked.size(), "the groups were rejected before the drive was asked");
        }
    }

    @Test
    void libraryThrowsWhileAsked_theDriveIsNotWedged() throws IOException {
        Recording[] seen = new Recording[1];
        try (EngineFixture f = open("tapeq", lib -> seen[0] = new Recording(lib, 2048) {
            @Override
            void answer(String drive, long[] starts, long[] ends, Completion<int[]> done) {
                throw new IllegalStateException("test: the library throws");
            }
        }, null)) {
            List<StageRequest> stages = writeAndStage(f);
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertEquals(1, seen[0].asked.size(), "not asked again on this cartridge in the mount");
        }
    }

    @Test
    void ctaDriveOrderedPass_takesNoNewcomers() throws IOException {
        Recording[] seen = new Recording[1];
        EngineFixture[] fixture = new EngineFixture[1];
        List<StageRequest> late = new ArrayList<>();
        try (EngineFixture f = open("cta", lib -> seen[0] = new Recording(lib, 6) {
            @Override
            void answer(String drive, long[] starts, long[] ends, Completion<int[]> done) {
                if (asked.size() == 1) { // the first piece is asked: more reads arrive for the mounted cartridge
                    for (int i = 1; i < 10; i += 2) {
                        late.add(fixture[0].sizedStage(i, "atlas", 0, 0));
                    }
                    fixture[0].scheduler.stage(late);
                }
                super.answer(drive, starts, ends, done);
            }
        }, null)) {
            fixture[0] = f;
            List<StageRequest> stages = writeAndStage(f);
            seen[0].locates.clear();
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertEquals(5, late.size());
            for (StageRequest s : late) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            // the pass of the 20 first reads in pieces of at most 6 (CTA's batches of 80 GB are 8 files: 6, then
            // the next pieces among the pass's 14 left), then a pass of the 5 that came during it
            assertEquals(List.of(6, 6, 6, 2, 5), seen[0].asked.stream().map(a -> a.length).toList());
            java.util.Set<Long> pass = new java.util.HashSet<>();
            for (long[] a : seen[0].asked.subList(0, 4)) {
                Arrays.stream(a).forEach(pass::add);
            }
            assertEquals(FILES / 2, pass.size());
            for (long b : seen[0].asked.get(4)) {
                assertTrue(!pass.contains(b), "a newcomer was not in the running pass");
            }
            assertEquals(pass, new java.util.HashSet<>(seen[0].locates.subList(0, FILES / 2)),
                    "the pass was read before the newcomers");
        }
    }

    @Test
    void driveOrderedPass_endsAtThePolicysPassLimit() throws IOException {
        Recording[] seen = new Recording[1];
        MountPolicy eight = new Altered("cta") {
            @Override
            public int passLimit() {
                return 8;
            }
        };
        try (EngineFixture f = open("cta", lib -> seen[0] = new Recording(lib, 6), eight)) {
            List<StageRequest> stages = writeAndStage(f);
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            // passes of 8, 8 and 4 reads (as the policy's own passes would be), each in pieces of at most 6
            assertEquals(List.of(6, 2, 6, 2, 4), seen[0].asked.stream().map(a -> a.length).toList());
        }
    }

    /** A tapeq policy whose read order remembers the estimate it was given. */
    private static final class Spying implements MountPolicy {
        final MountPolicy tapeq = MountPolicies.create("tapeq", SchedulerConfig.builder().build().mountCriteria());
        EstimatedGeometry given;

        @Override public long eligibleAt(QueueView queue) { return tapeq.eligibleAt(queue); }
        @Override public double rank(QueueView queue) { return tapeq.rank(queue); }
        @Override public boolean learnsLayout() { return false; }

        @Override
        public ReadOrder readOrder() {
            return (head, starts, ends, g) -> {
                given = g;
                return tapeq.readOrder().order(head, starts, ends, g);
            };
        }
    }

    @Test
    void driveReportsWrapEnds_theReadOrderIsGivenThem_evenWithoutLearning() throws IOException {
        Spying policy = new Spying();
        long[][] reported = new long[1][];
        try (EngineFixture f = EngineFixture.openSizeOnly(dir, config("tapeq"), b -> b.drives(1)
                .cartridge("A00001L9", MediaType.LTO9, 18_000 * GB).reportsWrapEnds(true)
                .physics(OFFSET_3), lib -> new ForwardingLibrary(lib) {
                    @Override
                    public Optional<long[]> wrapEnds(String drive) {
                        Optional<long[]> ends = super.wrapEnds(drive);
                        ends.ifPresent(e -> reported[0] = e);
                        return ends;
                    }
                }, policy)) {
            List<StageRequest> stages = writeAndStage(f);
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertNotNull(reported[0], "the engine asked the drive for its wrap ends after the mount");
            assertArrayEquals(f.library.wrapEndBlocks("A00001L9"), reported[0]);
            EstimatedGeometry nominal = new EstimatedGeometry(MediaType.LTO9, f.library.blockSize());
            long block = reported[0][100]; // the first block of wrap 101 in truth
            assertEquals(101, policy.given.wrap(block), "the order was given the drive's map");
            assertTrue(nominal.wrap(block) > 102, "the nominal estimate is wraps off here: " + nominal.wrap(block));
        }
    }

    @Test
    void noWrapEnds_theReadOrderKeepsTheNominalEstimate() throws IOException {
        Spying policy = new Spying();
        try (EngineFixture f = EngineFixture.openSizeOnly(dir, config("tapeq"), b -> b.drives(1)
                .cartridge("A00001L9", MediaType.LTO9, 18_000 * GB).physics(OFFSET_3), lib -> lib, policy)) {
            List<StageRequest> stages = writeAndStage(f);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(stages.get(0)));
            long block = f.library.wrapEndBlocks("A00001L9")[100];
            EstimatedGeometry nominal = new EstimatedGeometry(MediaType.LTO9, f.library.blockSize());
            assertEquals(nominal.wrap(block), policy.given.wrap(block));
        }
    }

    @Test
    void labelWrittenInTheMount_theOldWrapEndsAreDropped() throws IOException {
        Spying policy = new Spying();
        long day = 24 * 3600 * 1000L;
        // idle cartridges stay loaded for 30 days; each step below runs a day of virtual time, not until idle
        SchedulerConfig keepsMounted = SchedulerConfig.builder().checkLabels(false).aggregateBytes(GB).policy("tapeq")
                .idleUnmountMillis(30 * day).build();
        try (EngineFixture f = EngineFixture.openSizeOnly(dir, keepsMounted, b -> b.drives(1)
                .cartridge("A00001L9", MediaType.LTO9, 18_000 * GB).reportsWrapEnds(true)
                .physics(OFFSET_3), lib -> lib, policy)) {
            f.label("atlas:raw@osm", "A00001L9");
            for (int i = 0; i < 4; i++) {
                f.scheduler.flush(f.sizedFlush(i, 10 * GB, "ds" + i, "atlas"));
            }
            f.loop.runFor(day);
            f.await(f.scheduler.driveDown("drive0", "reset")); // the next mount is asked for the wrap ends
            f.await(f.scheduler.driveUp("drive0"));
            List<StageRequest> first = List.of(f.sizedStage(0, "atlas", 0, 0), f.sizedStage(2, "atlas", 0, 0));
            f.scheduler.stage(first);
            f.loop.runFor(day);
            for (StageRequest s : first) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            long block = f.library.wrapEndBlocks("A00001L9")[100];
            EstimatedGeometry nominal = new EstimatedGeometry(MediaType.LTO9, f.library.blockSize());
            assertEquals(101, policy.given.wrap(block), "the drive's map of the old data, reported at the mount");
            long mounts = f.peekStatus().counters().get("mounts");
            // relabelled while loaded (its files are forgotten), written and read again in the same mount
            CompletableFuture<CartridgeRecord> relabelled = f.scheduler.labelCartridge("A00001L9", "atlas:raw@osm",
                    true);
            f.loop.runFor(day);
            assertTrue(relabelled.isDone() && !relabelled.isCompletedExceptionally(), relabelled.toString());
            for (int i = 10; i < 14; i++) {
                f.scheduler.flush(f.sizedFlush(i, 10 * GB, "ds" + i, "atlas"));
            }
            f.loop.runFor(day);
            policy.given = null;
            List<StageRequest> again = List.of(f.sizedStage(10, "atlas", 0, 0), f.sizedStage(12, "atlas", 0, 0));
            f.scheduler.stage(again);
            f.loop.runFor(day);
            for (StageRequest s : again) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            }
            assertEquals(mounts, f.peekStatus().counters().get("mounts"), "all in the one mount");
            assertNotNull(policy.given);
            assertEquals(nominal.wrap(block), policy.given.wrap(block),
                    "the old data's wrap ends no longer describe the cartridge");
        }
    }
}
