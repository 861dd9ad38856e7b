package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.Adler32;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.SourceAccess;
import org.tapeq.scheduler.tape.DescribedSource;
import org.tapeq.scheduler.tape.TapeFileSource;

/**
 * An aggregate's described form ({@link TapeFileSource#described}): rebuilt where the files are (a data mover on
 * the shared pool filesystem), it streams the very bytes the scheduler would have, and a source that changed is
 * caught there as it is by the scheduler.
 */
class DescribedAggregateTest {

    /** Pool files: read by path, but a data mover with the pool filesystem may read them too. */
    private static final SourceAccess POOLED = new SourceAccess() {
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

    @TempDir
    Path dir;

    private AggregatePlan plan(SourceAccess access, int count) throws IOException {
        List<AggregateMember> members = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            byte[] data = new byte[10_000 * i + 7];
            new Random(i).nextBytes(data);
            Path src = Files.write(dir.resolve("f" + i), data);
            Adler32 a = new Adler32();
            a.update(data);
            String pnfsid = String.format("%024X", i);
            members.add(new AggregateMember(pnfsid, data.length, Checksums.format(a.getValue()), "atlas:raw@osm",
                    "/d/f" + i, "ds", src, access));
        }
        AggregatePlan.Prepared p = AggregatePlan.prepare("A00001", "raw", "ds", 1_700_000_000_123L, members, 262_144);
        assertTrue(p.rejected().isEmpty(), "" + p.rejected());
        return p.plan();
    }

    private static byte[] bytes(TapeFileSource s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        s.writeTo(out);
        assertEquals(s.length(), out.size());
        return out.toByteArray();
    }

    @Test
    void theDescribedAggregateStreamsTheSameBytes() throws Exception {
        AggregatePlan plan = plan(POOLED, 5);
        DescribedSource d = plan.source().described();
        assertEquals(5, d.sources().size());
        TapeFileSource rebuilt = AggregatePlan.describedSource(d, POOLED);
        assertEquals(plan.length(), rebuilt.length());
        assertArrayEquals(bytes(plan.source()), bytes(rebuilt));
    }

    @Test
    void sourcesOnlyThisHostHasAreNotDescribed() throws Exception {
        assertNull(plan(SourceAccess.BY_PATH, 2).source().described());
    }

    @Test
    void aSourceChangedSinceThePlanFailsTheRebuiltWriteNamingIt() throws Exception {
        AggregatePlan plan = plan(POOLED, 3);
        TapeFileSource rebuilt = AggregatePlan.describedSource(plan.source().described(), POOLED);
        byte[] changed = Files.readAllBytes(dir.resolve("f2"));
        changed[100] ^= 1;
        Files.write(dir.resolve("f2"), changed);
        SourceChangedException e = assertThrows(SourceChangedException.class, () -> bytes(rebuilt));
        assertTrue(e.getMessage().contains(dir.resolve("f2").toString()) && e.getMessage().contains("checksum"),
                e.getMessage());
    }

    @Test
    void aDescriptionOfAnotherFormatIsRefused() {
        TapeFormatException e = assertThrows(TapeFormatException.class, () -> AggregatePlan.describedSource(
                new DescribedSource("other-format", new byte[0], List.of()), POOLED));
        assertInstanceOf(TapeFormatException.class, e);
        assertTrue(e.getMessage().contains("other-format"), e.getMessage());
    }
}
