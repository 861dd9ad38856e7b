package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.engine.queue.Ticket;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;
import org.tapeq.scheduler.model.StageSpace;

/** Stage buffer space reserved through the {@link StageSpace} hook before each read, in virtual time. */
class SchedulerStageSpaceTest {

    @TempDir
    Path dir;

    private static final long CAPACITY = 2_000_000_000L;
    private static final long CONSUMER_MILLIS = 20_000;

    /**
     * At most {@code limit} bytes reserved and not yet released (a single read is granted when nothing is
     * held); idempotent per request; records what it was asked. {@code closed} refuses everything.
     */
    static final class BoundedSpace implements StageSpace {
        final long limit;
        final Map<Long, Long> held = new HashMap<>();
        final List<List<Long>> calls = new ArrayList<>();
        final Map<Long, Integer> counted = new HashMap<>();
        long outstanding;
        long maxOutstanding;
        int refusals;
        boolean closed;

        BoundedSpace(long limit) {
            this.limit = limit;
        }

        @Override
        public boolean tryReserve(List<Claim> claims) {
            List<Long> ids = new ArrayList<>();
            long need = 0;
            for (Claim c : claims) {
                ids.add(c.request().id());
                if (!held.containsKey(c.request().id())) {
                    need += c.bytes();
                }
            }
            calls.add(ids);
            if (closed || (outstanding > 0 && outstanding + need > limit)) {
                refusals++;
                return false;
            }
            for (Claim c : claims) {
                if (held.putIfAbsent(c.request().id(), c.bytes()) == null) {
                    counted.merge(c.request().id(), 1, Integer::sum);
                }
            }
            outstanding += need;
            maxOutstanding = Math.max(maxOutstanding, outstanding);
            return true;
        }

        void release(long id) {
            Long bytes = held.remove(id);
            if (bytes != null) {
                outstanding -= bytes;
            }
        }

        long asked(long id) {
            return calls.stream().filter(c -> c.contains(id)).count();
        }
    }

    private static List<FlushRequest> flushAll(EngineFixture f, int n, int datasets) throws IOException {
        List<FlushRequest> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(f.flushRequest(i, 50_000 + i * 1000, "ds" + (i % datasets), "atlas:raw@osm"));
        }
        list.forEach(f.scheduler::flush);
        f.loop.runUntilIdle();
        list.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid()));
        return list;
    }

    /** Releases a staged file's room after a consumer delay, any other outcome's at once. */
    private static void releaseOnOutcome(EngineFixture f, BoundedSpace space, List<String> unreserved) {
        f.alsoTell = (request, outcome) -> {
            if (!(request instanceof StageRequest s)) {
                return;
            }
            if (outcome instanceof Outcome.Staged) {
                if (s.target() != null && !space.held.containsKey(s.id())) {
                    unreserved.add(s.pnfsid());
                }
                f.loop.schedule(CONSUMER_MILLIS, () -> {
                    space.release(s.id());
                    f.scheduler.spaceFreed();
                });
            } else {
                space.release(s.id());
                f.scheduler.spaceFreed();
            }
        };
    }

    private static SchedulerStatus.DriveStatus drive(EngineFixture f, String id) {
        return f.peekStatus().drives().stream().filter(d -> d.id().equals(id)).findFirst().orElseThrow();
    }

    /** Runs until some drive waits for space; returns it. */
    private static SchedulerStatus.DriveStatus runUntilWaiting(EngineFixture f) {
        for (int i = 0; i < 3600; i++) {
            for (SchedulerStatus.DriveStatus d : f.peekStatus().drives()) {
                if (d.state().equals("waiting_space")) {
                    return d;
                }
            }
            f.loop.runFor(1000);
        }
        throw new AssertionError("no drive waited for space: " + f.peekStatus().drives());
    }

    @Test
    void stage_boundedSpace_neverMoreThanLimitReservedAndAllStaged() throws IOException {
        long limit = 200_000; // room for three or four of the files
        BoundedSpace space = new BoundedSpace(limit);
        SchedulerConfig config = EngineFixture.testConfig().mergeGapBytes(0).build(); // a unit is one file
        try (EngineFixture f = EngineFixture.open(dir, config, space, 2, CAPACITY, "A00001L9", "A00002L9")) {
            f.label("raw", "A00001L9", "A00002L9");
            flushAll(f, 30, 3);
            List<String> unreserved = new ArrayList<>();
            releaseOnOutcome(f, space, unreserved);
            List<StageRequest> stages = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                StageRequest s = f.stageRequest(i, dir.resolve("in-" + i));
                stages.add(s);
                f.scheduler.stage(s);
            }
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid());
                assertArrayEquals(Files.readAllBytes(dir.resolve("src").resolve(s.pnfsid())),
                        Files.readAllBytes(s.target()), s.pnfsid());
            }
            assertEquals(List.of(), unreserved, "staged without reserved space");
            assertTrue(space.maxOutstanding <= limit, "reserved at most " + space.maxOutstanding);
            assertTrue(space.refusals > 0, "the limit made drives wait");
            assertEquals(0, space.outstanding);
            assertTrue(f.status().drives().stream().noneMatch(d -> d.state().equals("waiting_space")));
        }
    }

    @Test
    void stage_spaceRefused_driveWaitsWithReasonInStatusKeepingItsCartridge() throws IOException {
        BoundedSpace space = new BoundedSpace(Long.MAX_VALUE);
        space.closed = true;
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), space, 1, CAPACITY,
                "A00001L9")) {
            f.label("raw", "A00001L9");
            List<FlushRequest> flushes = flushAll(f, 2, 1);
            long size = flushes.get(0).size() + flushes.get(1).size();
            StageRequest s0 = f.stageRequest(0, dir.resolve("in-0"));
            StageRequest s1 = f.stageRequest(1, dir.resolve("in-1"));
            f.scheduler.stage(s0);
            f.scheduler.stage(s1);
            SchedulerStatus.DriveStatus d = runUntilWaiting(f);
            assertEquals("A00001L9", d.cartridge());
            assertTrue(d.activity().startsWith("waiting for stage buffer space: " + size + " bytes for 2 file(s)"),
                    d.activity());
            SchedulerStatus.QueueStatus q = f.peekStatus().queues().stream()
                    .filter(x -> x.name().equals("A00001L9")).findFirst().orElseThrow();
            assertTrue(q.reason().contains("waiting for stage buffer space"), q.reason());
            long mounts = f.library.stats().mounts();
            long waitingSince = d.since();
            // Longer than the idle-unmount time and the dwell: nothing unloads it, nothing is lost.
            f.loop.runFor(2 * SchedulerConfig.defaults().idleUnmountMillis());
            f.scheduler.spaceFreed(); // still refused: the wait goes on from where it started
            f.loop.runFor(1000);
            d = drive(f, "drive0");
            assertEquals("waiting_space", d.state());
            assertEquals("A00001L9", d.cartridge());
            assertEquals(waitingSince, d.since());
            assertNull(f.outcome(s0));
            assertNull(f.outcome(s1));
            space.closed = false;
            f.scheduler.spaceFreed();
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(s0));
            assertInstanceOf(Outcome.Staged.class, f.outcome(s1));
            assertEquals(mounts, f.library.stats().mounts(), "read without a remount");
        }
    }

    @Test
    void cancel_whileDriveWaitsForSpace_cancelledAtOnceAndTheRestAskedAgain() throws IOException {
        BoundedSpace space = new BoundedSpace(Long.MAX_VALUE);
        space.closed = true;
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), space, 1, CAPACITY,
                "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 2, 1);
            StageRequest s0 = f.stageRequest(0, dir.resolve("in-0"));
            StageRequest s1 = f.stageRequest(1, dir.resolve("in-1"));
            Ticket t0 = f.scheduler.stage(s0);
            Ticket t1 = f.scheduler.stage(s1);
            runUntilWaiting(f);
            assertEquals(Set.of(s0.id(), s1.id()), Set.copyOf(space.calls.get(space.calls.size() - 1)), "one unit");
            long t = f.loop.now();
            f.scheduler.cancel(t0);
            f.loop.runFor(0);
            assertInstanceOf(Outcome.Cancelled.class, f.outcome(s0));
            assertEquals(t, f.finishedAt.get(s0.id()), "cancelled without waiting for space");
            assertEquals(List.of(s1.id()), space.calls.get(space.calls.size() - 1), "asked again without it");
            assertEquals("waiting_space", drive(f, "drive0").state());
            f.scheduler.cancel(t1);
            f.loop.runFor(0);
            assertInstanceOf(Outcome.Cancelled.class, f.outcome(s1));
            f.loop.runUntilIdle();
            assertTrue(!drive(f, "drive0").state().equals("waiting_space"), "nothing left to wait for");
            assertEquals(0, f.status().queueCount());
            assertTrue(Files.notExists(s0.target()) && Files.notExists(s1.target()));
        }
    }

    @Test
    void readRetried_afterMediaError_askedAgainButCountedOnce() throws IOException {
        BoundedSpace space = new BoundedSpace(Long.MAX_VALUE);
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), space, 1, CAPACITY,
                "A00001L9")) {
            f.label("raw", "A00001L9");
            FlushRequest r = flushAll(f, 1, 1).get(0);
            int tapeFile = f.catalog.file(r.pnfsid()).orElseThrow().tapeFile();
            List<String> unreserved = new ArrayList<>();
            releaseOnOutcome(f, space, unreserved);
            f.library.faults().mediaError("A00001L9", tapeFile);
            StageRequest s = f.stageRequest(0, dir.resolve("in-0"));
            f.scheduler.stage(s);
            for (int i = 0; i < 3600 && f.peekStatus().counters().getOrDefault("faults_media", 0L) == 0L; i++) {
                f.loop.runFor(1000);
            }
            assertNull(f.outcome(s), "the read failed once and waits for its retry");
            assertEquals(r.size(), space.held.get(s.id()), "its room stays reserved for the retry");
            f.library.faults().clearMediaError("A00001L9", tapeFile);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            assertEquals(2, space.asked(s.id()), "asked before each attempt");
            assertEquals(1, space.counted.get(s.id()), "counted once");
            assertEquals(r.size(), space.maxOutstanding);
            assertEquals(0, space.outstanding);
            assertEquals(List.of(), unreserved);
        }
    }

    @Test
    void driveDown_whileWaitingForSpace_unloadsAndAnotherDriveServesTheReads() throws IOException {
        BoundedSpace space = new BoundedSpace(Long.MAX_VALUE);
        space.closed = true;
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), space, 2, CAPACITY,
                "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 2, 1);
            StageRequest s0 = f.stageRequest(0, dir.resolve("in-0"));
            f.scheduler.stage(s0);
            String first = runUntilWaiting(f).id();
            String other = first.equals("drive0") ? "drive1" : "drive0";
            f.await(f.scheduler.driveDown(first, "maintenance"));
            SchedulerStatus.DriveStatus down = drive(f, first);
            assertEquals("down", down.state());
            assertNull(down.cartridge(), "a drive taken down gives its cartridge back");
            assertNull(f.outcome(s0));
            assertEquals(other, runUntilWaiting(f).id());
            space.closed = false;
            f.scheduler.spaceFreed();
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(s0));
        }
    }

    @Test
    void write_forCartridgeOfWaitingDrive_writtenWhileTheReadWaits() throws IOException {
        BoundedSpace space = new BoundedSpace(Long.MAX_VALUE);
        space.closed = true;
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), space, 1, CAPACITY,
                "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 1, 1);
            StageRequest s0 = f.stageRequest(0, dir.resolve("in-0"));
            f.scheduler.stage(s0);
            runUntilWaiting(f);
            FlushRequest more = f.flushRequest(1, 20_000, "ds0", "atlas:raw@osm");
            f.scheduler.flush(more);
            f.loop.runFor(600_000);
            assertInstanceOf(Outcome.Flushed.class, f.outcome(more), "written while the read waits");
            assertNull(f.outcome(s0));
            assertEquals("waiting_space", drive(f, "drive0").state());
            space.closed = false;
            f.scheduler.spaceFreed();
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(s0));
        }
    }

    @Test
    void rebuild_ofCartridgeInWaitingDrive_runsThereThenTheReadWaitsAgain() throws IOException {
        BoundedSpace space = new BoundedSpace(Long.MAX_VALUE);
        space.closed = true;
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), space, 1, CAPACITY,
                "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 2, 1);
            StageRequest s0 = f.stageRequest(0, dir.resolve("in-0"));
            f.scheduler.stage(s0);
            runUntilWaiting(f);
            long mounts = f.library.stats().mounts();
            Scheduler.RebuildReport report = f.await(f.scheduler.rebuildCartridge("A00001L9"));
            assertEquals(2, report.files());
            assertEquals("waiting_space", drive(f, "drive0").state());
            space.closed = false;
            f.scheduler.spaceFreed();
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(s0));
            assertEquals(mounts, f.library.stats().mounts());
        }
    }

    @Test
    void stage_withoutTarget_needsNoSpace() throws IOException {
        BoundedSpace space = new BoundedSpace(Long.MAX_VALUE);
        space.closed = true;
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), space, 1, CAPACITY,
                "A00001L9")) {
            f.label("raw", "A00001L9");
            flushAll(f, 1, 1);
            StageRequest s = f.stageRequest(0, null);
            f.scheduler.stage(s);
            f.loop.runUntilIdle();
            assertNotNull(f.outcome(s));
            assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            assertTrue(space.calls.isEmpty(), "never asked: " + space.calls);
        }
    }
}
