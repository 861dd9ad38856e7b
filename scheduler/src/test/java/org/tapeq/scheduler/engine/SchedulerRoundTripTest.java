package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.jdbc.JdbcCatalog;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;

/** Flush, stage, co-location, aggregation and rebuild through the whole engine, in virtual time. */
class SchedulerRoundTripTest {

    @TempDir
    Path dir;

    private static final long CAPACITY = 2_000_000_000L;

    @Test
    void flushThenStage_randomOrder_bytesIdenticalAndChecksumsMatch() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 2, CAPACITY,
                "A00001L9", "A00002L9")) {
            f.label("raw", "A00001L9", "A00002L9");
            Random rnd = new Random(1);
            List<FlushRequest> flushes = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                long size = i % 10 == 0 ? 0 : 1 + rnd.nextInt(i % 3 == 0 ? 900_000 : 20_000);
                flushes.add(f.flushRequest(i, size, "ds" + (i % 3), "atlas:raw@osm"));
            }
            flushes.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            for (FlushRequest r : flushes) {
                Outcome.Flushed done = assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid());
                assertEquals(r.size(), done.location().size());
                assertEquals(done.location(), f.catalog.file(r.pnfsid()).orElseThrow());
            }
            List<StageRequest> stages = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                stages.add(f.stageRequest(i, dir.resolve("staged-" + i)));
            }
            Collections.shuffle(stages, new Random(2));
            stages.forEach(f.scheduler::stage);
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                Outcome.Staged staged = assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid());
                int i = Integer.parseInt(s.pnfsid(), 16);
                assertArrayEquals(Files.readAllBytes(dir.resolve("src").resolve(s.pnfsid())),
                        Files.readAllBytes(s.target()), s.pnfsid());
                assertEquals(f.catalog.file(s.pnfsid()).orElseThrow().checksum(), staged.checksum(), "file " + i);
            }
            assertEquals(0, f.status().queueCount());
        }
    }

    @Test
    void flushWithMd5Only_verifiedAndStaged_md5CarriedNotCompared() throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().verifyAfterWrite(true).build();
        try (EngineFixture f = EngineFixture.open(dir, config, 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            FlushRequest plain = f.flushRequest(1, 5000, "ds", "atlas:raw@osm");
            FlushRequest md5 = new FlushRequest(plain.id(), plain.pnfsid(), plain.size(), plain.storageClass(),
                    plain.path(), null, plain.group(), 0, 0, "md5:00112233445566778899aabbccddeeff", plain.source());
            f.scheduler.flush(md5);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Flushed.class, f.outcome(md5));
            StageRequest s = f.stageRequest(1, dir.resolve("md5-staged"));
            f.scheduler.stage(s);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            assertArrayEquals(Files.readAllBytes(md5.source()), Files.readAllBytes(s.target()));
        }
    }

    /** With verification after writing, a read-back that delivers nothing or stops halfway fails the write. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 2})
    void flushVerified_readBackShortOrEmpty_notCommittedThere_writtenElsewhere(int divisor) throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().verifyAfterWrite(true).build();
        java.util.concurrent.atomic.AtomicReference<ShortReadBacks> lib =
                new java.util.concurrent.atomic.AtomicReference<>();
        try (EngineFixture f = EngineFixture.openWrapped(dir, config, l -> {
            lib.set(new ShortReadBacks(l, n -> divisor == 0 ? 0 : n / divisor));
            return lib.get();
        }, 1, CAPACITY, "A00001L9", "A00002L9")) {
            f.label("raw", "A00001L9", "A00002L9");
            lib.get().arm(1);
            FlushRequest r = f.flushRequest(1, 50_000, "ds", "atlas:raw@osm");
            f.scheduler.flush(r);
            f.loop.runUntilIdle();
            assertEquals(1, lib.get().shortened());
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r));
            String first = f.catalog.file(r.pnfsid()).orElseThrow().cartridge();
            // the cartridge whose read-back was short took a write fault; the file is on the other one
            assertEquals(CartridgeState.SUSPECT, f.catalog.cartridge(
                    first.equals("A00001L9") ? "A00002L9" : "A00001L9").orElseThrow().state());
            StageRequest s = f.stageRequest(1, dir.resolve("staged"));
            f.scheduler.stage(s);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            assertArrayEquals(Files.readAllBytes(r.source()), Files.readAllBytes(s.target()));
        }
    }

    @Test
    void flush_sameDataset_colocatedOnCartridgeHoldingIt() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY,
                "A00001L9", "A00002L9")) {
            f.label("raw", "A00001L9", "A00002L9");
            // ds-a lands first; then the other cartridge is made the fuller one.
            List<FlushRequest> first = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                first.add(f.flushRequest(i, 100_000, "ds-a", "atlas:raw@osm"));
            }
            first.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            String home = f.catalog.file(EngineFixture.pnfsid(0)).orElseThrow().cartridge();
            String other = home.equals("A00001L9") ? "A00002L9" : "A00001L9";
            List<FlushRequest> filler = new ArrayList<>();
            for (int i = 100; i < 110; i++) {
                filler.add(f.flushRequest(i, 300_000, "ds-b", "atlas:raw@osm"));
            }
            // ds-b has no cartridge yet: it goes to the fullest appendable one, which is 'home'; make ds-b go
            // to 'other' by disabling 'home' meanwhile.
            f.await(f.scheduler.disableCartridge(home, "test"));
            filler.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            f.await(f.scheduler.enableCartridge(home));
            assertEquals(other, f.catalog.file(EngineFixture.pnfsid(100)).orElseThrow().cartridge());
            assertTrue(f.catalog.cartridge(other).orElseThrow().usedBytes()
                    > f.catalog.cartridge(home).orElseThrow().usedBytes(), "other is now the fuller cartridge");
            // More of ds-a: it must join its dataset on 'home', not the fuller 'other'.
            List<FlushRequest> more = new ArrayList<>();
            for (int i = 5; i < 10; i++) {
                more.add(f.flushRequest(i, 100_000, "ds-a", "atlas:raw@osm"));
            }
            more.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            for (int i = 0; i < 10; i++) {
                assertEquals(home, f.catalog.file(EngineFixture.pnfsid(i)).orElseThrow().cartridge(), "file " + i);
            }
            // And a new dataset goes to the fullest appendable cartridge.
            FlushRequest fresh = f.flushRequest(200, 1000, "ds-c", "atlas:raw@osm");
            f.scheduler.flush(fresh);
            f.loop.runUntilIdle();
            assertEquals(other, f.catalog.file(fresh.pnfsid()).orElseThrow().cartridge());
        }
    }

    @Test
    void aggregation_closesAtSizeCountOrWait() throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().aggregateBytes(1_000_000).aggregateFiles(4)
                .aggregateWaitMillis(300_000).build();
        try (EngineFixture f = EngineFixture.open(dir, config, 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            long t0 = f.loop.now();
            // 4 small files of one dataset: closed by count, written at once.
            for (int i = 0; i < 4; i++) {
                f.scheduler.flush(f.flushRequest(i, 1000, "count", "atlas:raw@osm"));
            }
            // 2 of another: closed only by the wait.
            for (int i = 10; i < 12; i++) {
                f.scheduler.flush(f.flushRequest(i, 1000, "wait", "atlas:raw@osm"));
            }
            // One file bigger than the target: an aggregate of its own.
            f.scheduler.flush(f.flushRequest(20, 1_200_000, "big", "atlas:raw@osm"));
            f.loop.runUntilIdle();
            FileRecord a = f.catalog.file(EngineFixture.pnfsid(0)).orElseThrow();
            FileRecord b = f.catalog.file(EngineFixture.pnfsid(3)).orElseThrow();
            assertEquals(a.tapeFile(), b.tapeFile(), "the count-closed aggregate is one tape file");
            FileRecord big = f.catalog.file(EngineFixture.pnfsid(20)).orElseThrow();
            assertEquals(1, f.catalog.aggregates("A00001L9").stream()
                    .filter(x -> x.tapeFile() == big.tapeFile()).findFirst().orElseThrow().memberCount());
            long waited = f.finishedAt.get(idOf(f, EngineFixture.pnfsid(10))) - t0;
            assertTrue(waited >= 300_000, "the small aggregate waited for its maximum wait, waited " + waited);
            long quick = f.finishedAt.get(idOf(f, EngineFixture.pnfsid(0))) - t0;
            assertTrue(quick < 300_000, "the full aggregate did not wait, took " + quick);
            assertEquals(3, f.catalog.aggregates("A00001L9").size());
        }
    }

    @Test
    void stage_sizeOnlyLibraryWithTarget_targetIsSparseFileOfTheRightLength() throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().checkLabels(false).build();
        try (EngineFixture f = EngineFixture.open(dir, config, false,
                b -> b.drives(1).cartridge("A00001L9", MediaType.LTO9, CAPACITY))) {
            f.label("raw", "A00001L9");
            FlushRequest w = f.sizedFlush(1, 3_000_000, "ds", "atlas");
            f.scheduler.flush(w);
            f.loop.runUntilIdle();
            assertInstanceOf(Outcome.Flushed.class, f.outcome(w));
            Path target = Files.createDirectories(dir.resolve("staged")).resolve("f1");
            Files.write(target, new byte[] {7, 7, 7}); // left from an earlier attempt: replaced
            StageRequest s = f.stageRequest(1, target);
            f.scheduler.stage(s);
            f.loop.runUntilIdle();
            Outcome.Staged staged = assertInstanceOf(Outcome.Staged.class, f.outcome(s));
            assertEquals(3_000_000, staged.bytes());
            assertEquals(3_000_000, Files.size(target));
            try (var in = Files.newInputStream(target)) {
                assertArrayEquals(new byte[16], in.readNBytes(16), "a size-only stage delivers zeros");
            }
        }
    }

    /**
     * The drives tell each aggregate written and each read with the interval it took on tape (what the load test
     * plots): no faster than the media's native rate, and ended before the requests it serves are answered.
     */
    @Test
    void transferred_aggregateWrittenThenRead_intervalsAtMostTheNativeRate() throws IOException {
        long size = 100_000_000L;
        SchedulerConfig config = EngineFixture.testConfig().checkLabels(false).aggregateBytes(4 * size)
                .aggregateFiles(4).build();
        try (EngineFixture f = EngineFixture.open(dir, config, false,
                b -> b.drives(1).cartridge("A00001L9", MediaType.LTO9, CAPACITY))) {
            f.label("raw", "A00001L9");
            List<FlushRequest> flushes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                flushes.add(f.sizedFlush(i, size, "ds", "atlas"));
                f.scheduler.flush(flushes.get(i));
            }
            f.loop.runUntilIdle();
            f.transfers.removeIf(t -> !t.write()); // the label check reads, if any
            List<StageRequest> stages = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                stages.add(f.stageRequest(i, null));
                f.scheduler.stage(stages.get(i));
            }
            f.loop.runUntilIdle();
            assertEquals(2, f.transfers.size(), f.transfers.toString());
            EngineFixture.Transfer write = f.transfers.get(0);
            EngineFixture.Transfer read = f.transfers.get(1);
            assertTrue(write.write() && !read.write(), f.transfers.toString());
            for (EngineFixture.Transfer t : f.transfers) {
                assertTrue(t.bytes() >= 4 * size, t.toString());
                long stream = MediaType.LTO9.streamMillis(t.bytes());
                assertTrue(t.ended() - t.started() >= stream, t + " faster than the drive");
            }
            // a read's interval starts after its locate: the stream, not the positioning (the write's also holds
            // the end of the tape file, which the simulated drive takes time for)
            assertTrue(read.ended() - read.started() < 2 * MediaType.LTO9.streamMillis(read.bytes()), read.toString());
            assertTrue(read.started() >= write.ended(), f.transfers.toString());
            for (int i = 0; i < 4; i++) {
                assertTrue(f.finishedAt.get(flushes.get(i).id()) >= write.ended());
                assertTrue(f.finishedAt.get(stages.get(i).id()) >= read.ended());
            }
        }
    }

    private static long idOf(EngineFixture f, String pnfsid) {
        return f.order.stream().filter(r -> r.pnfsid().equals(pnfsid)).findFirst().orElseThrow().id();
    }

    @Test
    void rebuild_ofAFullCartridge_keepsItFull() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 2, CAPACITY,
                "A00001L9", "A00002L9")) {
            f.label("raw", "A00001L9", "A00002L9");
            for (int i = 0; i < 8; i++) {
                f.scheduler.flush(f.flushRequest(i, 10_000 + i * 997, "ds0", "atlas:raw@osm"));
            }
            f.loop.runUntilIdle();
        }
        String written;
        try (JdbcCatalog c = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
            written = c.file(EngineFixture.pnfsid(0)).orElseThrow().cartridge();
            CartridgeRecord r = c.cartridge(written).orElseThrow();
            c.putCartridge(r.withState(CartridgeState.FULL, "closed at the drive's end of tape"));
        }
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 2, CAPACITY,
                "A00001L9", "A00002L9")) {
            f.await(f.scheduler.rebuildCartridge(written));
            assertEquals(CartridgeState.FULL, f.catalog.cartridge(written).orElseThrow().state(),
                    "a rebuild does not reopen a cartridge closed as full");
        }
    }

    @Test
    void rebuild_wipedCatalog_restoresLocationsAndStagesAgain() throws IOException {
        Set<String> written = new HashSet<>();
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 2, CAPACITY,
                "A00001L9", "A00002L9")) {
            f.label("raw", "A00001L9", "A00002L9");
            for (int i = 0; i < 40; i++) {
                FlushRequest r = f.flushRequest(i, 10_000 + i * 997, "ds" + (i % 4), "atlas:raw@osm");
                f.scheduler.flush(r);
                written.add(r.pnfsid());
            }
            f.loop.runUntilIdle();
        }
        List<FileRecord> before = new ArrayList<>();
        try (JdbcCatalog old = JdbcCatalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"))) {
            old.forEachFile(before::add);
        }
        Files.delete(dir.resolve("catalog.db"));
        Files.deleteIfExists(dir.resolve("catalog.db-wal"));
        Files.deleteIfExists(dir.resolve("catalog.db-shm"));
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 2, CAPACITY,
                "A00001L9", "A00002L9")) {
            assertTrue(f.catalog.file(EngineFixture.pnfsid(0)).isEmpty(), "catalog wiped");
            int files = 0;
            for (String b : List.of("A00001L9", "A00002L9")) {
                Scheduler.RebuildReport report = f.await(f.scheduler.rebuildCartridge(b));
                assertEquals("raw", report.family());
                assertTrue(report.skipped().isEmpty(), report.skipped().toString());
                files += report.files();
            }
            assertEquals(40, files);
            for (FileRecord r : before) {
                assertEquals(r, f.catalog.file(r.pnfsid()).orElseThrow());
            }
            assertEquals(CartridgeState.APPENDABLE, f.catalog.cartridge("A00001L9").orElseThrow().state());
            List<StageRequest> stages = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                stages.add(f.stageRequest(i, dir.resolve("again-" + i)));
            }
            stages.forEach(f.scheduler::stage);
            f.loop.runUntilIdle();
            for (StageRequest s : stages) {
                assertInstanceOf(Outcome.Staged.class, f.outcome(s), s.pnfsid());
                assertArrayEquals(Files.readAllBytes(dir.resolve("src").resolve(s.pnfsid())),
                        Files.readAllBytes(s.target()));
            }
        }
    }

    @Test
    void syncInventory_countsTheLibrary_namesCartridgesGoneFromIt() throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY,
                "A00001L9", "A00002L9")) {
            assertEquals(new Scheduler.InventoryReport(2, List.of(), List.of()), f.await(f.scheduler.syncInventory()));
        }
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY,
                "A00001L9")) {
            assertEquals(new Scheduler.InventoryReport(1, List.of(), List.of("A00002L9")),
                    f.await(f.scheduler.syncInventory()));
        }
    }
}
