package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestOrigin;
import org.tapeq.scheduler.model.SourceAccess;
import org.tapeq.scheduler.model.StageRequest;

/**
 * Movers with {@code pools.shared}: a stage's bytes are written by the mover into the pool's {@code in/} on the
 * shared filesystem and never cross the gRPC stream; the engine's checks decide on the sizes and checksums the
 * mover reports; a target outside the configured request directories, through a symbolic link, or in a directory
 * replaced by a link while the mover runs is refused with an error naming it.
 */
class MoverPoolFilesTest {

    private static final String[] CARTRIDGES = {"A00001", "A00002"};

    @TempDir
    Path dir;

    private RequestDirectory pool() throws Exception {
        return RequestDirectory.create(dir.resolve("pool"));
    }

    /** A stage target as the daemon names it: a temporary name directly in in/. */
    private static Path target(RequestDirectory pool, int i) {
        return pool.inDir().resolve("." + MoverSiteFixture.pnfsid(i) + ".tapeq.tmp");
    }

    private static MoverSiteFixture flushed(MoverSiteFixture site, int count) throws Exception {
        site.label("raw", CARTRIDGES);
        List<FlushRequest> flushes = site.flush(1, count);
        site.awaitOutcomes(flushes);
        for (FlushRequest f : flushes) {
            assertInstanceOf(Outcome.Flushed.class, site.outcomes.get(f.id()), f.pnfsid());
        }
        return site;
    }

    @Test
    void aStageIsWrittenByTheMoverIntoThePoolWithNoBytesOverTheStream() throws Exception {
        RequestDirectory pool = pool();
        try (MoverSiteFixture site = flushed(new MoverSiteFixture(dir, List.of(pool.base()), CARTRIDGES), 8)) {
            long before = site.remote.streamedBytes();
            assertTrue(before > 8 * 900_000L, "the flushes' bytes crossed the stream: " + before);
            List<StageRequest> stages = site.stage(1, 8, i -> target(pool, i));
            site.awaitOutcomes(stages);
            for (int i = 1; i <= 8; i++) {
                Outcome.Staged staged = assertInstanceOf(Outcome.Staged.class,
                        site.outcomes.get(stages.get(i - 1).id()), "file " + i);
                byte[] source = Files.readAllBytes(site.source(i));
                assertArrayEquals(source, Files.readAllBytes(target(pool, i)), "file " + i);
                assertEquals(adler32(source), staged.checksum(), "file " + i);
            }
            assertEquals(before, site.remote.streamedBytes(), "staged bytes crossed the gRPC stream");
        }
    }

    @Test
    void withoutPoolsSharedTheStagedBytesCrossTheStream() throws Exception {
        try (MoverSiteFixture site = flushed(new MoverSiteFixture(dir, CARTRIDGES), 2)) {
            long before = site.remote.streamedBytes();
            List<StageRequest> stages = site.stage(1, 2);
            site.awaitOutcomes(stages);
            long staged = Files.size(site.source(1)) + Files.size(site.source(2));
            assertInstanceOf(Outcome.Staged.class, site.outcomes.get(stages.get(0).id()));
            assertTrue(site.remote.streamedBytes() - before >= staged, (site.remote.streamedBytes() - before)
                    + " bytes streamed for " + staged + " staged");
        }
    }

    @Test
    void aTargetOutsideThePoolDirectoriesIsRefusedNamingIt() throws Exception {
        RequestDirectory pool = pool();
        RequestDirectory other = RequestDirectory.create(dir.resolve("other"));
        try (MoverSiteFixture site = flushed(new MoverSiteFixture(dir, List.of(pool.base()), CARTRIDGES), 2)) {
            Path outside = target(other, 1);
            Path tricked = pool.inDir().resolve("..").resolve("out").resolve(outside.getFileName());
            List<StageRequest> stages = site.stage(1, 2, i -> i == 1 ? outside : tricked);
            site.awaitOutcomes(stages);
            assertRefused(site, stages.get(0), outside.toString(), "not directly in the in/ directory");
            assertRefused(site, stages.get(1), tricked.toString(), "not an absolute path without . or ..");
            assertFalse(Files.exists(outside));
            assertFalse(Files.exists(pool.outDir().resolve(outside.getFileName())));
        }
    }

    @Test
    void aSymbolicLinkAtTheTargetIsRefusedAndWhatItPointsToIsUntouched() throws Exception {
        RequestDirectory pool = pool();
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Files.createSymbolicLink(target(pool, 1), victim);
        try (MoverSiteFixture site = flushed(new MoverSiteFixture(dir, List.of(pool.base()), CARTRIDGES), 1)) {
            List<StageRequest> stages = site.stage(1, 1, i -> target(pool, i));
            site.awaitOutcomes(stages);
            assertRefused(site, stages.get(0), target(pool, 1).toString(), "is a symbolic link");
            assertEquals("precious", Files.readString(victim));
        }
    }

    @Test
    void anInDirectoryReplacedByALinkWhileTheMoverRunsIsRefused() throws Exception {
        RequestDirectory pool = pool();
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        try (MoverSiteFixture site = flushed(new MoverSiteFixture(dir, List.of(pool.base()), CARTRIDGES), 1)) {
            Files.move(pool.inDir(), pool.base().resolve("in-moved"));
            Files.createSymbolicLink(pool.inDir(), elsewhere);
            List<StageRequest> stages = site.stage(1, 1, i -> target(pool, i));
            site.awaitOutcomes(stages);
            assertRefused(site, stages.get(0), target(pool, 1).toString(), "changed since the mover opened it");
            try (var listed = Files.list(elsewhere)) {
                assertEquals(0, listed.count(), "the mover wrote through the link");
            }
        }
    }

    @Test
    void aChecksumMismatchOfBytesTheMoverWroteFailsTheStage() throws Exception {
        RequestDirectory pool = pool();
        try (MoverSiteFixture site = flushed(new MoverSiteFixture(dir, List.of(pool.base()), CARTRIDGES), 2)) {
            FileRecord f = site.catalog.files(List.of(MoverSiteFixture.pnfsid(1))).get(MoverSiteFixture.pnfsid(1));
            site.library.faults().corruptByte(f.cartridge(), f.tapeFile(), f.offset() + 100);
            long before = site.remote.streamedBytes();
            List<StageRequest> stages = site.stage(1, 2, i -> target(pool, i));
            site.awaitOutcomes(stages);
            Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, site.outcomes.get(stages.get(0).id()));
            assertEquals(FaultKind.CHECKSUM, failed.kind(), failed.message());
            assertTrue(failed.message().contains("catalog has " + f.checksum()), failed.message());
            assertInstanceOf(Outcome.Staged.class, site.outcomes.get(stages.get(1).id()));
            // only the label checks after the read faults cross the stream (a few kB), no staged file
            long streamed = site.remote.streamedBytes() - before;
            assertTrue(streamed < f.size(), "staged bytes crossed the gRPC stream: " + streamed);
        }
    }

    private static String adler32(byte[] data) {
        java.util.zip.Adler32 a = new java.util.zip.Adler32();
        a.update(data);
        return Checksums.format(a.getValue());
    }

    /**
     * Requests of a pool whose out/ files a mover on the shared pool filesystem may read (as the daemon's). The
     * scheduler still reads each source once when it plans the aggregate (its announced checksum checked).
     */
    private static final RequestOrigin POOL = new RequestOrigin() {
        @Override
        public String name() {
            return "pool";
        }

        @Override
        public SourceAccess sources() {
            return new SourceAccess() {
                @Override
                public BasicFileAttributes attributes(Path source) throws IOException {
                    return BY_PATH.attributes(source);
                }

                @Override
                public InputStream open(Path source) throws IOException {
                    return BY_PATH.open(source);
                }

                @Override
                public boolean pooled() {
                    return true;
                }
            };
        }
    };

    @Test
    void aFlushIsWrittenByTheMoverFromTheOutDirectoryWithNoBytesOverTheStream() throws Exception {
        RequestDirectory pool = pool();
        try (MoverSiteFixture site = new MoverSiteFixture(dir, List.of(pool.base()), CARTRIDGES)) {
            site.label("raw", CARTRIDGES);
            long before = site.remote.streamedBytes();
            List<FlushRequest> flushes = site.flush(1, 8, i -> pool.outDir().resolve(MoverSiteFixture.pnfsid(i)),
                    POOL);
            site.awaitOutcomes(flushes);
            for (FlushRequest f : flushes) {
                assertInstanceOf(Outcome.Flushed.class, site.outcomes.get(f.id()), f.pnfsid());
            }
            assertTrue(site.remote.streamedBytes() - before < 900_000, "flushed bytes crossed the gRPC stream: "
                    + (site.remote.streamedBytes() - before));
            List<StageRequest> stages = site.stage(1, 8, i -> target(pool, i));
            site.awaitOutcomes(stages);
            for (int i = 1; i <= 8; i++) {
                assertInstanceOf(Outcome.Staged.class, site.outcomes.get(stages.get(i - 1).id()), "file " + i);
                assertArrayEquals(Files.readAllBytes(pool.outDir().resolve(MoverSiteFixture.pnfsid(i))),
                        Files.readAllBytes(target(pool, i)), "file " + i);
            }
        }
    }

    @Test
    void aFlushSourceOutsideThePoolDirectoriesIsRefusedAndNotAcknowledged() throws Exception {
        RequestDirectory pool = pool();
        RequestDirectory other = RequestDirectory.create(dir.resolve("other"));
        try (MoverSiteFixture site = new MoverSiteFixture(dir, List.of(pool.base()), CARTRIDGES)) {
            site.label("raw", CARTRIDGES);
            List<FlushRequest> flushes = site.flush(1, 1, i -> other.outDir().resolve(MoverSiteFixture.pnfsid(i)),
                    POOL);
            Path source = other.outDir().resolve(MoverSiteFixture.pnfsid(1));
            org.tapeq.testing.support.Poll.until("the mover refused the source",
                    () -> site.scheduler.status(1000).join().toString().contains("refuses " + source));
            site.awaitOutcomes(flushes); // the write is tried again until its attempts are spent, then fails
            Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, site.outcomes.get(flushes.get(0).id()));
            assertTrue(failed.message().contains(source.toString()), failed.message());
            assertTrue(site.catalog.files(List.of(flushes.get(0).pnfsid())).isEmpty());
        }
    }

    private static void assertRefused(MoverSiteFixture site, StageRequest stage, String path, String reason) {
        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, site.outcomes.get(stage.id()), stage.pnfsid());
        assertEquals(FaultKind.TARGET, failed.kind(), failed.message());
        assertTrue(failed.message().contains(path) && failed.message().contains(reason), failed.message());
    }
}
