package org.tapeq.scheduler.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Adler32;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.format.Checksums;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.FlushRequest;
import org.tapeq.scheduler.model.Outcome;
import org.tapeq.scheduler.model.RequestOrigin;
import org.tapeq.scheduler.model.SourceAccess;

/**
 * A flushed file with an announced Adler-32 is read once, by the write that compares the checksum as it streams the
 * bytes to tape (on a site with data movers the scheduler's host would otherwise read every flushed byte a second
 * time); a file whose bytes contradict its announced checksum still fails alone, and its aggregate's other members
 * are written.
 */
class FlushChecksumReadsTest {

    private static final long CAPACITY = 2_000_000_000L;

    @TempDir
    Path dir;

    /** Counts the opens of each source; everything else by path. */
    private static final class CountingOrigin implements RequestOrigin, SourceAccess {
        final Map<Path, Integer> opens = new ConcurrentHashMap<>();

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public SourceAccess sources() {
            return this;
        }

        @Override
        public BasicFileAttributes attributes(Path source) throws IOException {
            return SourceAccess.BY_PATH.attributes(source);
        }

        @Override
        public InputStream open(Path source) throws IOException {
            opens.merge(source, 1, Integer::sum);
            return SourceAccess.BY_PATH.open(source);
        }
    }

    private static String adler32(Path file) throws IOException {
        Adler32 a = new Adler32();
        a.update(Files.readAllBytes(file));
        return Checksums.format(a.getValue());
    }

    private static FlushRequest withChecksum(FlushRequest r, String checksum, RequestOrigin origin) {
        return new FlushRequest(r.id(), r.pnfsid(), r.size(), r.storageClass(), r.path(), r.colocationKey(),
                r.group(), r.priority(), r.deadline(), checksum, r.source(), origin);
    }

    /** Flushes 1 to {@code n} of about {@code size} bytes, each announcing its file's Adler-32, from {@code origin}. */
    private static List<FlushRequest> withTheirChecksums(EngineFixture f, int n, long size, RequestOrigin origin)
            throws IOException {
        List<FlushRequest> list = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            FlushRequest r = f.flushRequest(i, size + i, "ds", "atlas:raw@osm");
            list.add(withChecksum(r, adler32(r.source()), origin));
        }
        return list;
    }

    @Test
    void announcedChecksums_eachSourceReadOnce_byTheWrite() throws IOException {
        CountingOrigin origin = new CountingOrigin();
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            List<FlushRequest> flushes = withTheirChecksums(f, 5, 200_000, origin);
            flushes.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();

            for (FlushRequest r : flushes) {
                assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid());
                FileRecord rec = f.catalog.file(r.pnfsid()).orElseThrow();
                assertEquals(r.checksum(), rec.checksum(), r.pnfsid());
                assertEquals(1, origin.opens.getOrDefault(r.source(), 0),
                        "read once, by the write (and checked against its announced checksum there): " + r.source());
            }
        }
    }

    @Test
    void aContradictedAnnouncedChecksum_failsThatFileAlone_theOthersAreWritten() throws IOException {
        CountingOrigin origin = new CountingOrigin();
        try (EngineFixture f = EngineFixture.open(dir, EngineFixture.testConfig().build(), 1, CAPACITY, "A00001L9")) {
            f.label("raw", "A00001L9");
            List<FlushRequest> good = withTheirChecksums(f, 4, 100_000, origin);
            FlushRequest plain = f.flushRequest(9, 100_009, "ds", "atlas:raw@osm");
            String wrong = Checksums.format(0x01020304L);
            FlushRequest bad = withChecksum(plain, wrong, origin);
            List<FlushRequest> all = new ArrayList<>(good);
            all.add(2, bad); // in the middle of the aggregate: members before it have reached the tape
            all.forEach(f.scheduler::flush);
            f.loop.runUntilIdle();

            Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, f.outcome(bad));
            assertEquals(FaultKind.SOURCE, failed.kind());
            assertEquals(ReturnCodes.DATA_MISMATCH, failed.returnCode());
            assertTrue(failed.message().contains(bad.source().toString()), failed.message());
            assertTrue(failed.message().contains(wrong), failed.message());
            assertTrue(f.catalog.file(bad.pnfsid()).isEmpty(), "nothing recorded for the bad file");
            for (FlushRequest r : good) {
                assertInstanceOf(Outcome.Flushed.class, f.outcome(r), r.pnfsid());
                assertEquals(r.checksum(), f.catalog.file(r.pnfsid()).orElseThrow().checksum());
            }
        }
    }
}
