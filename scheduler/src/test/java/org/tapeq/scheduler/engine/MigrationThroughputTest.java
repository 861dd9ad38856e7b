package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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

/**
 * Prints what a media migration achieves on the simulated library (nominal physics, virtual time), beside the
 * drives' nominal rates: three LTO-8 cartridges of {@link #FILES} files, migrated onto LTO-9 with one LTO-8 and one
 * LTO-9 drive, once with files of half {@link #FILE_BYTES} and once of {@link #FILE_BYTES}; the difference gives the
 * rate per byte moved and the fixed cost per cartridge, from which a full cartridge's time follows. Slow (real bytes on disk): {@code mvn -B -o -pl scheduler -am
 * -Dtest=MigrationThroughputTest -Dsurefire.failIfNoSpecifiedTests=false verify}.
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
        // what one more byte costs (streamed twice, read and written, and read back) and what a cartridge costs
        // whatever its size (mounts, exchanges, positioning; not the migration's look every 10 s for the end of each)
        double marginal = (large.bytes() - small.bytes()) / (double) (large.millis() - small.millis()) / 1e3;
        double perCartridge = (large.millis() - large.bytes() / (marginal * 1e3)) / 1e3 / LTO8.size();
        System.out.printf("marginal rate %.1f MB/s; fixed cost %.1f s per cartridge%n", marginal, perCartridge);
        System.out.printf("a full LTO-8 cartridge (12 TB) at these figures: %.1f h, %.1f MB/s%n",
                (12e12 / (marginal * 1e6) + perCartridge) / 3600, 12e12 / 1e6 / (12e12 / (marginal * 1e6) + perCartridge));
        System.out.printf("nominal: LTO-8 %d MB/s, LTO-9 %d MB/s%n", MediaType.LTO8.rateBytesPerSecond() / 1_000_000,
                MediaType.LTO9.rateBytesPerSecond() / 1_000_000);
        assertTrue(large.millis() > small.millis());
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
            f.await(f.scheduler.migrate("LTO8", "LTO9", null));

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
