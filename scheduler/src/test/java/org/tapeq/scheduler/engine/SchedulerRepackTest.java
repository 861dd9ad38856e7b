package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.StageRequest;

/** Cartridge repack as background work, on the simulated library (real bytes) in virtual time. */
class SchedulerRepackTest {

    private static final long CAPACITY = 2_000_000_000L;
    private static final String A = "A00001L9";
    private static final String B = "A00002L9";
    private static final String C = "A00003L9";
    private static final String D = "A00004L9";

    @TempDir
    Path dir;

    /** A spool of about three files, so a repack of 20 files runs in several read/write batches. */
    private static SchedulerConfig.Builder config() {
        return EngineFixture.testConfig().repackSpoolBytes(3_000_000);
    }

    /** Flushes {@code count} files of about 900 kB (about four per aggregate), datasets ds0/ds1 alternating. */
    private static List<FlushRequest> flush(EngineFixture f, int first, int count, String storageClass)
            throws IOException {
        List<FlushRequest> flushes = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            flushes.add(f.flushRequest(i, 900_000 + i, "ds" + (i % 2), storageClass));
        }
        flushes.forEach(f.scheduler::flush);
        f.loop.runUntilIdle();
        for (FlushRequest r : flushes) {
            assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid());
        }
        return flushes;
    }

    private static RepackReport repack(EngineFixture f, String barcode) {
        return f.peekStatus().repacks().stream().filter(r -> r.source().equals(barcode)).findFirst().orElseThrow();
    }

    /** Stages every file from wherever the catalog has it now and compares it with the bytes flushed. */
    private void stageAllByteIdentical(EngineFixture f, List<Integer> ids) throws IOException {
        Map<Integer, StageRequest> stages = new HashMap<>();
        for (int i : ids) {
            StageRequest s = f.stageRequest(i, dir.resolve("staged").resolve(EngineFixture.pnfsid(i)));
            Files.createDirectories(s.target().getParent());
            stages.put(i, s);
            f.scheduler.stage(s);
        }
        f.loop.runUntilIdle();
        for (var e : stages.entrySet()) {
            assertInstanceOf(Outcome.Staged.class, f.outcome(e.getValue()), EngineFixture.pnfsid(e.getKey()));
            assertArrayEquals(Files.readAllBytes(dir.resolve("src").resolve(EngineFixture.pnfsid(e.getKey()))),
                    Files.readAllBytes(e.getValue().target()), EngineFixture.pnfsid(e.getKey()));
        }
    }

    private static List<Integer> range(int first, int count) {
        List<Integer> ids = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            ids.add(i);
        }
        return ids;
    }

    /** Every live file in the catalog, by pnfsid (the catalog keeps one live row per file). */
    private static Map<String, FileRecord> live(EngineFixture f) {
        Map<String, FileRecord> all = new HashMap<>();
        f.catalog.forEachFile(r -> assertTrue(all.put(r.pnfsid(), r) == null, "twice: " + r.pnfsid()));
        return all;
    }

    @Test
    void repack_mostlyLive_everyFileMovedOffStagedByteIdentical_sourceEmpty_datasetsKeptTogether()
            throws IOException {
        try (EngineFixture f = EngineFixture.open(dir, config().repackSpoolBytes(8_000_000).build(), 1, CAPACITY, A,
                B, C)) {
            // B holds dataset ds0 (one file), C dataset ds7 (three, the fuller); A gets 20 files of ds0 and ds1
            f.label("raw", B);
            flush(f, 100, 1, "atlas:raw@osm"); // dataset ds0
            f.await(f.scheduler.disableCartridge(B, "test"));
            f.label("raw", A);
            flush(f, 0, 20, "atlas:raw@osm");
            f.await(f.scheduler.disableCartridge(A, "test"));
            f.label("raw", C);
            List<FlushRequest> onC = new ArrayList<>();
            for (int i = 200; i < 203; i++) {
                onC.add(f.flushRequest(i, 900_000, "ds7", "atlas:raw@osm"));
            }
            onC.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();
            assertEquals(C, f.catalog.file(onC.get(0).pnfsid()).orElseThrow().cartridge());
            f.await(f.scheduler.enableCartridge(A));
            f.await(f.scheduler.enableCartridge(B));
            CartridgeRecord aBefore = f.catalog.cartridge(A).orElseThrow();
            Map<String, FileRecord> before = live(f);
            assertEquals(20, f.catalog.files(A).size());
            long aFileBytes = f.catalog.files(A).stream().mapToLong(FileRecord::size).sum();

            RepackReport queued = f.await(f.scheduler.repackCartridge(A, null));

            assertEquals(20, queued.filesTotal());
            RepackReport done = repack(f, A);
            assertEquals("done", done.state(), String.valueOf(done));
            assertEquals(20, done.filesDone());
            assertEquals(done.bytesTotal(), done.bytesDone());
            assertEquals(0, done.filesFailed());
            assertTrue(done.emptied());
            assertEquals(List.of(), f.catalog.files(A));
            CartridgeRecord a = f.catalog.cartridge(A).orElseThrow();
            assertEquals(CartridgeState.EMPTY, a.state());
            assertEquals(aBefore.usedBytes(), a.usedBytes());
            assertEquals(aBefore.reclaimableBytes() + aFileBytes, a.reclaimableBytes(),
                    "every byte of A's files is reclaimable");
            Map<String, FileRecord> after = live(f);
            assertEquals(before.keySet(), after.keySet());
            for (int i = 0; i < 20; i++) {
                FileRecord r = after.get(EngineFixture.pnfsid(i));
                assertNotEquals(A, r.cartridge());
                assertEquals(before.get(r.pnfsid()).checksum(), r.checksum());
                assertEquals(before.get(r.pnfsid()).dataset(), r.dataset());
            }
            // co-location: the files of one dataset went to one cartridge, ds0 to B which held it already (C, the
            // fuller, would be first otherwise)
            Set<String> ds0 = new HashSet<>();
            Set<String> ds1 = new HashSet<>();
            for (int i = 0; i < 20; i++) {
                (i % 2 == 0 ? ds0 : ds1).add(after.get(EngineFixture.pnfsid(i)).cartridge());
            }
            assertEquals(Set.of(B), ds0);
            assertEquals(1, ds1.size(), String.valueOf(ds1));
            for (String t : List.of(B, C)) {
                for (AggregateRecord agg : f.catalog.aggregates(t)) {
                    assertTrue(agg.dataset() != null, "an aggregate without a dataset on " + t);
                }
            }
            assertEquals(RepackJob.DONE, f.catalog.repackJobs().get(0).state());
            assertFalse(Files.exists(dir.resolve("spool").resolve(A)), "spool directory left behind");
            stageAllByteIdentical(f, range(0, 20));
        }
    }
}
