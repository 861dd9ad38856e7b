package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.Catalog;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * Buffered tape marks: a written aggregate is committed and its flushes acknowledged only after the drive's next
 * flush, which comes at the configured limit or when the drive has nothing more to write; a crash before the flush
 * acknowledges nothing, and the tape files it left are passed over like any unrecorded tape file.
 */
class BufferedMarksTest {

    @TempDir
    Path dir;

    /** Files of this size close an aggregate each ({@code aggregateBytes} 4 MB in the test configuration). */
    private static final long SIZE = 4_100_000;

    /** Records buffered appends and flushes; a flush waits while the gate is shut. */
    private static final class GatedFlushes extends ForwardingLibrary {
        final TapeLibrary to;
        final List<String> calls = new ArrayList<>();
        final List<Runnable> waiting = new ArrayList<>();
        boolean shut = true;

        GatedFlushes(TapeLibrary to) {
            super(to);
            this.to = to;
        }

        @Override
        public void appendBuffered(String drive, TapeFileSource source, Completion<WrittenFile> done) {
            to.appendBuffered(drive, source, new Completion<>() {
                @Override
                public void succeeded(WrittenFile w) {
                    calls.add("append " + w.fileNumber());
                    done.succeeded(w);
                }

                @Override
                public void failed(TapeFault fault) {
                    done.failed(fault);
                }
            });
        }

        @Override
        public void flush(String drive, FlushCheck expected, Completion<Void> done) {
            calls.add("flush");
            Runnable go = () -> to.flush(drive, expected, done);
            if (shut) {
                waiting.add(go);
            } else {
                go.run();
            }
        }

        void open() {
            shut = false;
            List<Runnable> now = new ArrayList<>(waiting);
            waiting.clear();
            now.forEach(Runnable::run);
        }
    }

    /**
     * Counts each request's outcomes and checks, as each flush is acknowledged, that its tape file is on the
     * simulated tape (not only in a drive's buffer) and its record in the catalog.
     */
    private static final class Acks {
        final Map<Long, Integer> outcomes = new HashMap<>();
        final List<String> notDurable = new ArrayList<>();

        Acks(EngineFixture f) {
            f.alsoTell = (request, outcome) -> {
                outcomes.merge(request.id(), 1, Integer::sum);
                if (outcome instanceof Outcome.Flushed flushed) {
                    FileRecord where = flushed.location();
                    if (!f.library.onTape(where.cartridge(), where.tapeFile())) {
                        notDurable.add(where.pnfsid() + ": " + where.cartridge() + " tape file " + where.tapeFile()
                                + " is not on the tape");
                    }
                    if (f.catalog.file(where.pnfsid()).isEmpty()) {
                        notDurable.add(where.pnfsid() + ": not in the catalog");
                    }
                }
            };
        }

        /** Each request flushed, acknowledged once, only when durable; the bytes staged back are the ones sent. */
        void assertAllFlushedOnceAndOnTape(EngineFixture f, List<FlushRequest> rs, List<Integer> ids)
                throws Exception {
            for (FlushRequest r : rs) {
                assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid());
                assertEquals(1, outcomes.get(r.id()), r.pnfsid() + " acknowledged more than once");
            }
            assertEquals(List.of(), notDurable, "acknowledged before its bytes were on the tape");
            f.stageAllByteIdentical(ids);
        }
    }

    private static List<Integer> ids(int first, int count) {
        List<Integer> ids = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            ids.add(i);
        }
        return ids;
    }

    private static SchedulerConfig config() {
        return EngineFixture.testConfig().flushFiles(3).build();
    }

    private List<FlushRequest> submit(EngineFixture f, int first, int count) throws Exception {
        List<FlushRequest> rs = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            rs.add(f.flushRequest(i, SIZE, "ds", "atlas:raw@osm"));
        }
        rs.forEach(f.scheduler::flush);
        return rs;
    }

    /** Runs the loop in steps until the library saw {@code flushes} flush calls (at most a simulated day). */
    private static void runUntilFlushes(EngineFixture f, GatedFlushes lib, long flushes) {
        for (int i = 0; i < 1_440 && lib.calls.stream().filter("flush"::equals).count() < flushes; i++) {
            f.loop.runFor(60_000);
        }
    }

    @Test
    void acknowledgementsWaitForTheDriveFlush_atTheLimit_andWhenTheQueueRunsDry() throws Exception {
        GatedFlushes[] lib = new GatedFlushes[1];
        try (EngineFixture f = EngineFixture.openWrapped(dir, config(), l -> lib[0] = new GatedFlushes(l), 1,
                2_000_000_000L, "A00001L9")) {
            f.label("raw", "A00001L9");
            List<FlushRequest> rs = submit(f, 0, 5);
            runUntilFlushes(f, lib[0], 1);
            f.loop.runFor(600_000); // the drive waits for its flush meanwhile
            assertEquals(List.of("append 1", "append 2", "append 3", "flush"), lib[0].calls,
                    "three tape files (the limit), then the flush");
            for (FlushRequest r : rs) {
                assertNull(f.outcome(r), r.pnfsid() + " acknowledged before the drive flushed");
                assertTrue(f.catalog.file(r.pnfsid()).isEmpty(), r.pnfsid() + " committed before the drive flushed");
            }
            lib[0].open();
            f.loop.runUntilIdle();
            assertEquals(List.of("append 1", "append 2", "append 3", "flush", "append 4", "append 5", "flush"),
                    lib[0].calls, "the last two flushed when the queue ran dry");
            for (FlushRequest r : rs) {
                assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid());
            }
        }
    }

    @Test
    void moverLostAndBackWhileFilesAreHeld_theyAreWrittenAgain_notFlushedOnTheMoversNextSession() throws Exception {
        GatedFlushes[] lib = new GatedFlushes[1];
        try (EngineFixture f = EngineFixture.openWrapped(dir, config(), l -> lib[0] = new GatedFlushes(l), 1,
                2_000_000_000L, "A00001L9")) {
            f.label("raw", "A00001L9");
            lib[0].open();
            List<FlushRequest> rs = submit(f, 0, 5);
            for (int i = 0; i < 100_000 && !lib[0].calls.contains("append 1"); i++) {
                f.loop.runFor(10);
            }
            assertEquals(List.of("append 1"), lib[0].calls, "tape file 1 held, the second being written");
            // the mover is lost and back (a restarted tape server) while tape file 1 waits in the drive's buffer
            f.scheduler.driveUnavailable("drive0", "mover m1 unreachable: test");
            f.scheduler.driveReturned("drive0", "A00001L9");
            f.loop.runUntilIdle();
            int firstFlush = lib[0].calls.indexOf("flush");
            assertTrue(firstFlush > lib[0].calls.indexOf("append 3") && lib[0].calls.contains("append 4"),
                    "the files held across the loss were flushed on the mover's next session: " + lib[0].calls);
            for (FlushRequest r : rs) {
                assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid());
            }
        }
    }

    @Test
    void crashBeforeTheFlush_acknowledgesNothing_andTheRewriteGoesAfterTheUnrecordedTapeFiles() throws Exception {
        GatedFlushes[] lib = new GatedFlushes[1];
        List<Integer> ids = List.of(0, 1, 2);
        try (EngineFixture f = EngineFixture.openWrapped(dir, config(), l -> lib[0] = new GatedFlushes(l), 1,
                2_000_000_000L, "A00001L9")) {
            f.label("raw", "A00001L9");
            List<FlushRequest> rs = submit(f, 0, ids.size());
            runUntilFlushes(f, lib[0], 1);
            assertEquals(List.of("append 1", "append 2", "append 3", "flush"), lib[0].calls);
            for (FlushRequest r : rs) {
                assertNull(f.outcome(r), r.pnfsid());
            }
        } // the daemon dies with its flush in flight: nothing acknowledged, nothing committed
        try (Catalog catalog = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
            for (int i : ids) {
                assertTrue(catalog.file(EngineFixture.pnfsid(i)).isEmpty(), "committed without a flush: " + i);
            }
        }
        // dCache asks again after the restart; the files are written after the three unrecorded tape files
        try (EngineFixture f = EngineFixture.open(dir, config(), 1, 2_000_000_000L, "A00001L9")) {
            List<FlushRequest> again = submit(f, 0, ids.size());
            f.loop.runUntilIdle();
            for (FlushRequest r : again) {
                assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid());
                FileRecord where = f.catalog.file(r.pnfsid()).orElseThrow();
                assertTrue(where.tapeFile() > 3, r.pnfsid() + " recorded in tape file " + where.tapeFile()
                        + ", one the crashed run had written");
            }
            f.stageAllByteIdentical(ids);
        }
    }

    /**
     * The drive is reset (power cycle) after three buffered appends, before their flush: the synchronous mark still
     * succeeds on a real drive, so only the flush's check finds the tape files gone. Before the check the flush
     * succeeded and the three were acknowledged though lost (the acknowledgement check and the staging failed).
     */
    @Test
    void driveResetBeforeTheFlush_theFlushFails_andTheHeldFilesAreWrittenAgain() throws Exception {
        GatedFlushes[] lib = new GatedFlushes[1];
        try (EngineFixture f = EngineFixture.openWrapped(dir, config(), l -> lib[0] = new GatedFlushes(l), 1,
                2_000_000_000L, "A00001L9")) {
            f.label("raw", "A00001L9");
            Acks acks = new Acks(f);
            List<FlushRequest> rs = submit(f, 0, 5);
            runUntilFlushes(f, lib[0], 1);
            assertEquals(List.of("append 1", "append 2", "append 3", "flush"), lib[0].calls);
            f.library.faults().resetDriveBeforeNextOp("drive0");
            lib[0].open();
            f.loop.runUntilIdle();
            assertEquals(3, f.library.lostTapeFiles(), "the reset lost the three buffered tape files");
            assertTrue(lib[0].calls.stream().filter("flush"::equals).count() >= 2, "flushed again: " + lib[0].calls);
            acks.assertAllFlushedOnceAndOnTape(f, rs, ids(0, 5));
        }
    }

    /**
     * The drive is reset between buffered appends: the next one lands where the first held one was, with the same
     * size (so a flush check of the last file's end alone would pass). The engine sees the append start at the wrong
     * block and writes all of them again, without flushing first.
     */
    @Test
    void driveResetBetweenBufferedAppends_theNextAppendStartsElsewhere_heldOnesWrittenAgain() throws Exception {
        GatedFlushes[] lib = new GatedFlushes[1];
        try (EngineFixture f = EngineFixture.openWrapped(dir, config(), l -> lib[0] = new GatedFlushes(l), 1,
                2_000_000_000L, "A00001L9")) {
            f.label("raw", "A00001L9");
            lib[0].open();
            Acks acks = new Acks(f);
            List<FlushRequest> rs = submit(f, 0, 3);
            for (int i = 0; i < 100_000 && !lib[0].calls.contains("append 1"); i++) {
                f.loop.runFor(10);
            }
            assertEquals(List.of("append 1"), lib[0].calls, "tape file 1 held, the second being written");
            // append 2 is already with the drive: the reset comes before the operation after it, append 3, which
            // then starts where tape file 1 did, with the same size
            f.library.faults().resetDriveBeforeNextOp("drive0");
            f.loop.runUntilIdle();
            assertTrue(f.library.lostTapeFiles() >= 1, "the reset lost a buffered tape file");
            acks.assertAllFlushedOnceAndOnTape(f, rs, ids(0, 3));
        }
    }

    /** The flush itself fails on the drive: the held files are written again and acknowledged once, on tape. */
    @Test
    void failedFlush_theHeldFilesAreWrittenAgain() throws Exception {
        GatedFlushes[] lib = new GatedFlushes[1];
        try (EngineFixture f = EngineFixture.openWrapped(dir, config(), l -> lib[0] = new GatedFlushes(l), 1,
                2_000_000_000L, "A00001L9")) {
            f.label("raw", "A00001L9");
            Acks acks = new Acks(f);
            List<FlushRequest> rs = submit(f, 0, 4);
            runUntilFlushes(f, lib[0], 1);
            f.library.faults().failNextDriveOps("drive0", 1);
            lib[0].open();
            f.loop.runUntilIdle();
            assertEquals(3, f.library.lostTapeFiles(), "the failed drive lost the three buffered tape files");
            acks.assertAllFlushedOnceAndOnTape(f, rs, ids(0, 4));
        }
    }

    /**
     * The cartridge fills up while two tape files are held: the append that does not fit leaves a short tape file
     * after them (as the simulated drive does), the two are flushed and committed on it, and the third is written to
     * the next cartridge.
     */
    @Test
    void tapeFullWhileFilesAreHeld_theHeldOnesAreCommitted_andTheFailedOneGoesElsewhere() throws Exception {
        try (EngineFixture f = EngineFixture.open(dir, config(), b -> {
            b.drives(1);
            b.cartridge("A00001L9", MediaType.LTO9, 3 * SIZE);
            b.cartridge("A00002L9", MediaType.LTO9, 2_000_000_000L);
        })) {
            f.label("raw", "A00001L9");
            f.label("raw", "A00002L9");
            Acks acks = new Acks(f);
            List<FlushRequest> rs = submit(f, 0, 3);
            f.loop.runUntilIdle();
            acks.assertAllFlushedOnceAndOnTape(f, rs, ids(0, 3));
            List<String> where = new ArrayList<>();
            for (FlushRequest r : rs) {
                FileRecord w = ((Outcome.Flushed) f.outcome(r)).location();
                where.add(w.cartridge() + "/" + w.tapeFile());
            }
            assertEquals(List.of("A00001L9/1", "A00001L9/2", "A00002L9/1"), where);
            assertEquals(CartridgeState.FULL, f.catalog.cartridge("A00001L9").orElseThrow().state());
        }
    }

    /**
     * The scheduler is deposed (another one took the site lease: its catalog writes are refused, and its lease
     * keeper holds its work) while its drive flushes three held tape files: nothing is acknowledged, nothing is
     * recorded, and the next holder writes the files again after the unrecorded tape files.
     */
    @Test
    void deposedWithFilesHeld_acknowledgesNothing_andTheNextHolderWritesThemAgain() throws Exception {
        FailingCallCatalog fenced = new FailingCallCatalog();
        List<Integer> ids = ids(0, 3);
        try (EngineFixture f = EngineFixture.openCatalogWrapped(dir, config(), fenced::wrap, b -> {
            b.drives(1);
            b.cartridge("A00001L9", MediaType.LTO9, 2_000_000_000L);
        })) {
            f.label("raw", "A00001L9");
            submit(f, 0, ids.size());
            for (int i = 0; i < 100_000 && f.library.unflushedFiles("drive0") < 3; i++) {
                f.loop.runFor(10);
            }
            assertEquals(3, f.library.unflushedFiles("drive0"), "three tape files held, their flush under way");
            fenced.fail("checkWritable");
            fenced.fail("commitAggregate");
            f.await(f.scheduler.holdWork("site lease lost: taken over by another host"));
            f.loop.runFor(3_600_000);
            assertTrue(f.outcomes.isEmpty(), "the deposed scheduler answered: " + f.outcomes);
            for (int i : ids) {
                assertTrue(f.catalog.file(EngineFixture.pnfsid(i)).isEmpty(), "recorded by the deposed one: " + i);
            }
        } // the deposed daemon stops without resuming
        try (EngineFixture f = EngineFixture.open(dir, config(), 1, 2_000_000_000L, "A00001L9")) {
            Acks acks = new Acks(f);
            List<FlushRequest> again = submit(f, 0, ids.size());
            f.loop.runUntilIdle();
            acks.assertAllFlushedOnceAndOnTape(f, again, ids);
            for (FlushRequest r : again) {
                assertTrue(f.catalog.file(r.pnfsid()).orElseThrow().tapeFile() > 3, r.pnfsid());
            }
        }
    }

    /** Records whether the drive reads or positions while tape files appended with buffered marks are unflushed. */
    private static final class ReadsWhileHeld extends ForwardingLibrary {
        final List<String> violations = new ArrayList<>();
        int held;

        ReadsWhileHeld(TapeLibrary to) {
            super(to);
        }

        @Override
        public void appendBuffered(String drive, TapeFileSource source, Completion<WrittenFile> done) {
            held++;
            super.appendBuffered(drive, source, done);
        }

        @Override
        public void append(String drive, TapeFileSource source, Completion<WrittenFile> done) {
            held = 0; // its synchronous mark writes the buffer
            super.append(drive, source, done);
        }

        @Override
        public void flush(String drive, FlushCheck expected, Completion<Void> done) {
            held = 0;
            super.flush(drive, expected, done);
        }

        @Override
        public void locate(String drive, long block, Completion<Void> done) {
            if (held > 0) {
                violations.add("locate to block " + block + " with " + held + " tape files held");
            }
            super.locate(drive, block, done);
        }

        @Override
        public void read(String drive, long skipBytes, long length, ByteSink sink, Completion<Long> done) {
            if (held > 0) {
                violations.add("read with " + held + " tape files held");
            }
            super.read(drive, skipBytes, length, sink, done);
        }
    }

    /**
     * Verify-after-write reads each tape file back before its commit; a drive never reads with writes held, so with
     * it the marks are synchronous. Before, the read-back of a tape file appended with a buffered mark ran while it
     * (and the files before it) still waited for the flush.
     */
    @Test
    void verifyAfterWrite_neverReadsBackWithWritesHeld() throws Exception {
        ReadsWhileHeld[] lib = new ReadsWhileHeld[1];
        SchedulerConfig config = EngineFixture.testConfig().flushFiles(3).verifyAfterWrite(true).build();
        try (EngineFixture f = EngineFixture.openWrapped(dir, config, l -> lib[0] = new ReadsWhileHeld(l), 1,
                2_000_000_000L, "A00001L9")) {
            f.label("raw", "A00001L9");
            Acks acks = new Acks(f);
            List<FlushRequest> rs = submit(f, 0, 4);
            f.loop.runUntilIdle();
            assertEquals(List.of(), lib[0].violations);
            acks.assertAllFlushedOnceAndOnTape(f, rs, ids(0, 4));
        }
    }
}
