package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.lifecycle.MigrationReport;
import org.tapeq.scheduler.engine.lifecycle.RepackReport;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.tape.sim.SimStats;

/**
 * Prints what a media migration achieves on the simulated library (nominal physics, virtual time), beside the
 * drives' nominal rates. First with real bytes on small cartridges: three LTO-8 cartridges of {@link #FILES} files,
 * migrated onto LTO-9 with one LTO-8 and one LTO-9 drive, once with files of half {@link #FILE_BYTES} and once of
 * {@link #FILE_BYTES}; the difference gives a rate per byte moved and a fixed cost per cartridge, with where the
 * drives' time went. On 20 GB cartridges a wrap holds under 100 MB, so locates and rewinds cost what they would on a
 * nearly full tape: these figures do not extrapolate to full cartridges. Then at full scale on a size-only library
 * (full-length cartridges, 1 TB per source cartridge, default aggregate and spool sizes): the rate per drive pair,
 * with two drives of either kind, larger aggregates and a single drive, and where the time went. Last, on 2 and 4
 * drive pairs, one cartridge at a time ({@code scheduler.migrationRepacks: 1}, as before a migration ran several)
 * beside one repack per pair and one per drive, side by side. Slow (real bytes
 * on disk): {@code mvn -B -o -pl scheduler -am -Dtest=MigrationThroughputTest -Dsurefire.failIfNoSpecifiedTests=false
 * verify}.
 */
@Tag("slow")
class MigrationThroughputTest {

    private static final int FILES = 8;
    private static final long FILE_BYTES = 48_000_000;
    private static final List<String> LTO8 = List.of("A00001L8", "A00002L8", "A00003L8");

    @TempDir
    Path dir;

    /** Bytes moved and loop time taken by one migration. */
    private record Run(long bytes, long millis) {
    }

    @Test
    void migrationOfThreeLto8Cartridges_twoSizes_printsTheMeasuredRateAndTheCostPerCartridge() throws IOException {
        Run small = migrate(dir.resolve("small"), FILE_BYTES / 2);
        Run large = migrate(dir.resolve("large"), FILE_BYTES);
        for (Run r : List.of(small, large)) {
            System.out.printf("migration of %d cartridges, %.1f MB each: %.1f MB in %.1f s of loop time, %.2f MB/s"
                    + " overall%n", LTO8.size(), r.bytes() / 1e6 / LTO8.size(), r.bytes() / 1e6, r.millis() / 1e3,
                    r.bytes() / 1e3 / r.millis());
        }
        // what one more byte costs (streamed three times: read, written, read back, plus the locates and rewinds
        // that grow with it on these small cartridges) and what a cartridge costs whatever its size (mounts,
        // exchanges, positioning; not the migration's look every 10 s for the end of each)
        double marginal = (large.bytes() - small.bytes()) / (double) (large.millis() - small.millis()) / 1e3;
        double perCartridge = (large.millis() - large.bytes() / (marginal * 1e3)) / 1e3 / LTO8.size();
        System.out.printf("marginal rate %.1f MB/s; fixed cost %.1f s per cartridge%n", marginal, perCartridge);
        System.out.printf("nominal: LTO-8 %d MB/s, LTO-9 %d MB/s%n", MediaType.LTO8.rateBytesPerSecond() / 1_000_000,
                MediaType.LTO9.rateBytesPerSecond() / 1_000_000);
        assertTrue(large.millis() > small.millis());
    }

    /**
     * The same migration at the scale of real cartridges (size-only library, nothing kept on disk): two LTO-8
     * cartridges of full capacity holding {@code tb} TB each in 10 GB files, the default spool (100 GB) and the
     * aggregate size given, onto an LTO-9 cartridge, with the drives given ({@code second} null: one drive only);
     * prints the rate and where the time went.
     */
    private static Run migrateAtScale(Path dir, double tb, DriveType first, DriveType second, long aggregateBytes)
            throws IOException {
        long fileBytes = 10_000_000_000L;
        int files = (int) Math.round(tb * 1e12 / fileBytes);
        SchedulerConfig config = EngineFixture.testConfig().aggregateBytes(aggregateBytes)
                .repackSpoolBytes(SchedulerConfig.DEFAULT_REPACK_SPOOL_BYTES).checkLabels(false).build();
        List<String> sources = LTO8.subList(0, 2);
        try (EngineFixture f = EngineFixture.open(dir, config, false, b -> {
            b.drive("d1", first);
            if (second != null) {
                b.drive("d2", second);
            }
            sources.forEach(barcode -> b.cartridge(barcode, MediaType.LTO8));
            b.cartridge("B00001L9", MediaType.LTO9);
        })) {
            int n = 0;
            for (String barcode : sources) {
                f.label("raw", barcode);
                List<FlushRequest> flushes = new ArrayList<>();
                for (int i = 0; i < files; i++, n++) {
                    flushes.add(f.sizedFlush(n, fileBytes, "ds" + n % 2, "atlas"));
                }
                flushes.forEach(f.scheduler::flush);
                f.loop.runUntilIdle();
                flushes.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid()));
                f.await(f.scheduler.disableCartridge(barcode, "filled"));
            }
            for (String barcode : sources) {
                f.await(f.scheduler.enableCartridge(barcode));
            }
            f.label("raw", "B00001L9");
            SimStats before = f.library.stats();
            f.await(f.scheduler.migrate("LTO8", "LTO9", null));
            SimStats after = f.library.stats();
            List<MigrationReport> all = f.peekStatus().migrations();
            MigrationReport done = all.get(all.size() - 1);
            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(sources.size(), done.cartridgesDone());
            long inRepacks = 0;
            for (RepackReport r : f.peekStatus().repacks()) {
                inRepacks += r.ended() - r.started();
            }
            System.out.printf("at scale, drives %s + %s, aggregates of %d GB, %d LTO-8 cartridges of %.1f TB: %.1f TB"
                    + " in %.1f h of repacks, %.1f MB/s%n", first.name(), second == null ? "none" : second.name(), aggregateBytes / 1_000_000_000,
                    sources.size(), tb,
                    done.bytesDone() / 1e12, inRepacks / 3.6e6, done.bytesDone() / 1e3 / inRepacks);
            printBreakdown(before, after);
            return new Run(done.bytesDone(), inRepacks);
        }
    }

    /** Where the drives' time went during the migration: mounts, positioning, streaming, per drive. */
    private static void printBreakdown(SimStats before, SimStats after) {
        System.out.printf("  %d mounts, %d locates (%.1f s), %d reads, %d appends, %d filemarks, rewinds %.1f s%n",
                after.mounts() - before.mounts(), after.locates() - before.locates(),
                (after.locateMillis() - before.locateMillis()) / 1e3, after.reads() - before.reads(),
                after.appends() - before.appends(), after.filemarks() - before.filemarks(),
                (after.rewindMillis() - before.rewindMillis()) / 1e3);
        for (String drive : new TreeSet<>(after.drives().keySet())) {
            SimStats.DriveStats a = after.drives().get(drive);
            SimStats.DriveStats b = before.drives().getOrDefault(drive,
                    new SimStats.DriveStats(0, 0, 0, 0, 0, 0, 0, 0, 0));
            System.out.printf("  drive %s: mount %.1f s, unmount %.1f s, locate %.1f s, read %.1f s (%.0f MB),"
                    + " write %.1f s (%.0f MB)%n", drive, (a.mountMillis() - b.mountMillis()) / 1e3,
                    (a.unmountMillis() - b.unmountMillis()) / 1e3, (a.locateMillis() - b.locateMillis()) / 1e3,
                    (a.readMillis() - b.readMillis()) / 1e3, (a.bytesRead() - b.bytesRead()) / 1e6,
                    (a.writeMillis() - b.writeMillis()) / 1e3, (a.bytesWritten() - b.bytesWritten()) / 1e6);
        }
    }

    @Test
    void migrationAtScale_printsTheRatePerDrivePairAndWhereTheTimeGoes() throws IOException {
        long aggregate = SchedulerConfig.DEFAULT_AGGREGATE_BYTES;
        Run mixed = migrateAtScale(dir.resolve("mixed"), 1, DriveType.LTO8, DriveType.LTO9, aggregate);
        Run lto9 = migrateAtScale(dir.resolve("lto9"), 1, DriveType.LTO9, DriveType.LTO9, aggregate);
        Run large = migrateAtScale(dir.resolve("large"), 1, DriveType.LTO8, DriveType.LTO9, 4 * aggregate);
        Run single = migrateAtScale(dir.resolve("single"), 1, DriveType.LTO9, null, aggregate);
        // each byte read from LTO-8, written to LTO-9 and read back, one after the other, at the nominal rates
        double serial = 1 / (1 / 360e6 + 2 / 400e6) / 1e6;
        System.out.printf("one LTO-8 and one LTO-9 drive: %.1f MB/s; two LTO-9 drives: %.1f MB/s; with %d GB"
                + " aggregates: %.1f MB/s; one LTO-9 drive: %.1f MB/s; streaming only (read, write, read back in"
                + " turn): %.1f MB/s%n", mixed.bytes() / 1e3 / mixed.millis(), lto9.bytes() / 1e3 / lto9.millis(),
                4 * aggregate / 1_000_000_000, large.bytes() / 1e3 / large.millis(),
                single.bytes() / 1e3 / single.millis(), serial);
        System.out.printf("a full LTO-8 cartridge (12 TB) at the first rate: %.1f h%n",
                12e12 / (mixed.bytes() / 1e3 / mixed.millis() * 1e6) / 3600);
        assertTrue(mixed.bytes() > 0 && lto9.bytes() > 0 && large.bytes() > 0 && single.bytes() > 0);
        // what docs/operations.md says of these figures: they are not to drift silently
        double mixedRate = mixed.bytes() / 1e3 / mixed.millis();
        double lto9Rate = lto9.bytes() / 1e3 / lto9.millis();
        double largeRate = large.bytes() / 1e3 / large.millis();
        double singleRate = single.bytes() / 1e3 / single.millis();
        assertTrue(Math.abs(lto9Rate - mixedRate) < mixedRate / 100,
                "two LTO-9 drives within 1 % of one LTO-8 and one LTO-9: " + lto9Rate + " vs " + mixedRate);
        assertTrue(largeRate > mixedRate, "larger aggregates faster: " + largeRate + " vs " + mixedRate);
        assertTrue(singleRate < mixedRate, "one drive slower than a pair: " + singleRate + " vs " + mixedRate);
        assertTrue(mixedRate < serial, "below streaming only: " + mixedRate + " vs " + serial);
        assertEquals(101.5, mixedRate, 101.5 * 0.05, "the rate per drive pair the documentation quotes (MB/s)");
    }

    /**
     * A migration on {@code pairs} drive pairs (one LTO-8 and one LTO-9 drive each, all of them open to background
     * work), size-only and full-size: {@code 2 * pairs} LTO-8 cartridges holding 1 TB each in 10 GB files onto as
     * many LTO-9 cartridges, with {@code scheduler.migrationRepacks} as given (1: one cartridge at a time, as
     * before migrations ran several). Returns the bytes moved and the migration's time from its start to its end.
     */
    private static Run migrateOnPairs(Path dir, int pairs, int migrationRepacks) throws IOException {
        long fileBytes = 10_000_000_000L;
        int files = 100;
        SchedulerConfig config = EngineFixture.testConfig().repackSpoolBytes(SchedulerConfig.DEFAULT_REPACK_SPOOL_BYTES)
                .checkLabels(false).maxBackgroundDrives(2 * pairs).migrationRepacks(migrationRepacks).build();
        List<String> sources = new ArrayList<>();
        List<String> targets = new ArrayList<>();
        for (int i = 1; i <= 2 * pairs; i++) {
            sources.add(String.format("A%05dL8", i));
            targets.add(String.format("B%05dL9", i));
        }
        try (EngineFixture f = EngineFixture.open(dir, config, false, b -> {
            for (int i = 1; i <= pairs; i++) {
                b.drive("lto8-" + i, DriveType.LTO8).drive("lto9-" + i, DriveType.LTO9);
            }
            sources.forEach(barcode -> b.cartridge(barcode, MediaType.LTO8));
            targets.forEach(barcode -> b.cartridge(barcode, MediaType.LTO9));
        })) {
            int n = 0;
            for (String barcode : sources) {
                f.label("raw", barcode);
                List<FlushRequest> flushes = new ArrayList<>();
                for (int i = 0; i < files; i++, n++) {
                    flushes.add(f.sizedFlush(n, fileBytes, "ds" + n % 2, "atlas"));
                }
                flushes.forEach(f.scheduler::flush);
                f.loop.runUntilIdle();
                flushes.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid()));
                f.await(f.scheduler.disableCartridge(barcode, "filled"));
            }
            for (String barcode : sources) {
                f.await(f.scheduler.enableCartridge(barcode));
            }
            f.label("raw", targets.toArray(String[]::new));
            SimStats before = f.library.stats();
            f.await(f.scheduler.migrate("LTO8", "LTO9", null));
            List<MigrationReport> all = f.peekStatus().migrations();
            MigrationReport done = all.get(all.size() - 1);
            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(sources.size(), done.cartridgesDone());
            long millis = done.ended() - done.started();
            System.out.printf("%d drive pairs, %d LTO-8 cartridges of 1 TB, migrationRepacks %d: %.1f TB in %.1f h,"
                    + " %.1f MB/s%n", pairs, sources.size(), migrationRepacks, done.bytesDone() / 1e12,
                    millis / 3.6e6, done.bytesDone() / 1e3 / millis);
            printBreakdown(before, f.library.stats());
            return new Run(done.bytesDone(), millis);
        }
    }

    @Test
    void migrationOnDrivePairs_oneCartridgeAtATimeVersusSeveral_printsBothRates() throws IOException {
        StringBuilder table = new StringBuilder();
        for (int pairs : new int[] {2, 4}) {
            Run old = migrateOnPairs(dir.resolve(pairs + "-one"), pairs, 1);
            Run perPair = migrateOnPairs(dir.resolve(pairs + "-pairs"), pairs, pairs);
            Run perDrive = migrateOnPairs(dir.resolve(pairs + "-drives"), pairs, 0);
            double r1 = old.bytes() / 1e3 / old.millis();
            double r2 = perPair.bytes() / 1e3 / perPair.millis();
            double r3 = perDrive.bytes() / 1e3 / perDrive.millis();
            table.append(String.format("%d pairs: one at a time %.1f MB/s | one repack per pair %.1f MB/s (x%.2f) |"
                    + " one per drive (default) %.1f MB/s (x%.2f); 10 PB in %.0f / %.0f / %.0f days%n", pairs, r1,
                    r2, r2 / r1, r3, r3 / r1, 1e16 / (r1 * 1e6) / 86400, 1e16 / (r2 * 1e6) / 86400,
                    1e16 / (r3 * 1e6) / 86400));
            assertTrue(old.bytes() > 0 && perPair.bytes() > 0 && perDrive.bytes() > 0);
        }
        System.out.print(table);
    }

    private static Run migrate(Path dir, long fileBytes) throws IOException {
        SchedulerConfig config = EngineFixture.testConfig().aggregateBytes(200_000_000)
                .repackSpoolBytes(400_000_000).build();
        try (EngineFixture f = EngineFixture.open(dir, config, b -> {
            b.drive("lto8", DriveType.LTO8).drive("lto9", DriveType.LTO9);
            LTO8.forEach(barcode -> b.cartridge(barcode, MediaType.LTO8, 20_000_000_000L));
            b.cartridge("B00001L9", MediaType.LTO9, 20_000_000_000L);
        })) {
            int n = 0;
            for (String barcode : LTO8) {
                f.label("raw", barcode);
                List<FlushRequest> flushes = new ArrayList<>();
                for (int i = 0; i < FILES; i++, n++) {
                    flushes.add(f.flushRequest(n, fileBytes, "ds" + n % 2, "atlas:raw@osm"));
                }
                flushes.forEach(f.scheduler::flush);
                f.loop.runUntilIdle();
                flushes.forEach(r -> assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid()));
                f.await(f.scheduler.disableCartridge(barcode, "filled"));
            }
            for (String barcode : LTO8) {
                f.await(f.scheduler.enableCartridge(barcode));
            }
            f.label("raw", "B00001L9");
            long start = f.loop.now();
            SimStats before = f.library.stats();
            f.await(f.scheduler.migrate("LTO8", "LTO9", null));
            printBreakdown(before, f.library.stats());

            List<MigrationReport> all = f.peekStatus().migrations();
            MigrationReport done = all.get(all.size() - 1);
            assertEquals(RepackJob.DONE, done.state(), String.valueOf(done));
            assertEquals(3, done.cartridgesDone());
            assertTrue(done.bytesDone() >= 3L * FILES * fileBytes);
            // the repacks' own start and end (the migration notices an end at its next look, every 10 s)
            long inRepacks = 0;
            for (RepackReport r : f.peekStatus().repacks()) {
                inRepacks += r.ended() - r.started();
            }
            System.out.printf("  (%d ms from the start to the migration's end, %d ms in its repacks)%n",
                    done.ended() - start, inRepacks);
            return new Run(done.bytesDone(), inRepacks);
        }
    }
}
