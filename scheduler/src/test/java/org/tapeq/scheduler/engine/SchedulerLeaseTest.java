package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.tape.CartridgeCapacity;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.TapeLibrary;

/** The hold of a daemon that stepped down because its site lease may have lapsed. */
class SchedulerLeaseTest {

    private static final long CAPACITY = 2_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void holdWork_noMountWriteOrAnswerUntilResumed_thenAllFlushed() throws Exception {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            f.await(f.scheduler.unloadIdleDrives());
            f.await(f.scheduler.holdWork("site lease not renewed for 25 s"));
            long mounts = f.library.stats().mounts();
            long appends = f.library.stats().appends();
            List<FlushRequest> flushes = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                flushes.add(f.flushRequest(i, 40_000 + i, "ds", "atlas:raw@osm"));
            }
            flushes.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();

            assertEquals(mounts, f.library.stats().mounts(), "mounted while held");
            assertEquals(appends, f.library.stats().appends(), "wrote while held");
            assertTrue(f.outcomes.isEmpty(), "answered while held: " + f.outcomes);
            assertEquals("site lease not renewed for 25 s", f.await(f.scheduler.workHeld()).orElseThrow());

            f.await(f.scheduler.resumeWork());
            f.loop.runUntilIdle();
            flushes.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r)));
            assertTrue(f.await(f.scheduler.workHeld()).isEmpty());
        }
    }

    @Test
    void resumeWork_firstHeldMountThrows_restStillRunsAndBothFlushed() throws Exception {
        int[] mounts = {0};
        UnaryOperator<TapeLibrary> throwOnFirstHeldMount = lib -> new ForwardingLibrary(lib) {
            @Override
            public void mount(String drive, String barcode, Completion<Void> done) {
                if (++mounts[0] == 3) { // the two label mounts pass, the first mount after the hold throws
                    throw new IllegalStateException("no such drive: " + drive);
                }
                super.mount(drive, barcode, done);
            }
        };
        try (EngineFixture f = EngineFixture.openWrapped(dir, EngineFixture.testConfig().build(),
                throwOnFirstHeldMount, 2, CAPACITY, "A00001L9", "A00002L9")) {
            f.label("raw", "A00001L9");
            f.label("aod", "A00002L9");
            f.await(f.scheduler.unloadIdleDrives());
            assertEquals(2, mounts[0], "label mounts");
            f.await(f.scheduler.holdWork("site lease not renewed for 25 s"));
            FlushRequest raw = f.flushRequest(0, 40_000, "ds", "atlas:raw@osm");
            FlushRequest aod = f.flushRequest(1, 40_001, "ds", "atlas:aod@osm");
            f.scheduler.flush(raw);
            f.scheduler.flush(aod);
            f.loop.runUntilIdle();
            assertEquals(2, mounts[0], "mounted while held");

            f.scheduler.resumeWork(); // its future is not looked at, as the daemon's lease keeper does not
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Flushed.class, f.outcome(raw));
            assertInstanceOf(Outcome.Flushed.class, f.outcome(aod));
        }
    }

    @Test
    void holdWork_whileAMountRuns_statusCountsItRunningUntilItEnds_thenTheNextCommandWaits() throws Exception {
        boolean[] stall = {false};
        List<Runnable> stalled = new ArrayList<>();
        UnaryOperator<TapeLibrary> stallMounts = lib -> new ForwardingLibrary(lib) {
            @Override
            public void mount(String drive, String barcode, Completion<Void> done) {
                if (stall[0]) {
                    stalled.add(() -> super.mount(drive, barcode, done)); // given, not yet done
                } else {
                    super.mount(drive, barcode, done);
                }
            }
        };
        try (EngineFixture f = EngineFixture.openWrapped(dir, EngineFixture.testConfig().build(), stallMounts, 1,
                CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            f.await(f.scheduler.unloadIdleDrives());
            stall[0] = true;
            FlushRequest raw = f.flushRequest(0, 40_000, "ds", "atlas:raw@osm");
            f.scheduler.flush(raw);
            f.loop.runUntilIdle();
            assertEquals(1, stalled.size(), "the flush's mount was given to the library");
            assertEquals(null, f.await(f.scheduler.status(0, 10)).hold(), "no hold shown while work is not held");

            f.await(f.scheduler.holdWork("site lease not renewed for 25 s"));
            SchedulerStatus.Hold held = f.await(f.scheduler.status(0, 10)).hold();
            assertEquals(new SchedulerStatus.Hold("site lease not renewed for 25 s", 0, 1), held,
                    "the mount given before the hold still runs");

            stalled.get(0).run(); // the library ends the mount
            f.loop.runUntilIdle();
            held = f.await(f.scheduler.status(0, 10)).hold();
            assertEquals(0, held.running(), "nothing runs in the library once the mount has ended: " + held);
            assertTrue(held.waiting() > 0, "the flush's next command waits for the hold: " + held);
            assertTrue(f.outcomes.isEmpty(), "answered while held: " + f.outcomes);

            f.await(f.scheduler.resumeWork());
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Flushed.class, f.outcome(raw));
            assertEquals(null, f.await(f.scheduler.status(0, 10)).hold());
        }
    }

    @Test
    void capacity_libraryBehindTheHold_cartridgeMemoryReachesTheEngine() throws Exception {
        long measured = 1_500_000_000L;
        UnaryOperator<TapeLibrary> withCartridgeMemory = lib -> new ForwardingLibrary(lib) {
            @Override
            public Optional<CartridgeCapacity> capacity(String drive) {
                return Optional.of(new CartridgeCapacity(measured, measured));
            }
        };
        try (EngineFixture f = EngineFixture.openWrapped(dir, EngineFixture.testConfig().build(),
                withCartridgeMemory, 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            FlushRequest raw = f.flushRequest(0, 40_000, "ds", "atlas:raw@osm");
            f.scheduler.flush(raw);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Flushed.class, f.outcome(raw));

            long capacity = f.await(f.scheduler.status(0, 10)).cartridges().stream()
                    .filter(c -> c.barcode().equals("A00001L9")).findFirst().orElseThrow().capacityBytes();
            assertEquals(measured, capacity, "the capacity the library read at the mount");
        }
    }
}
