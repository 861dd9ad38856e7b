package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.Adler32;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.tape.TapeFileSource;

/**
 * Members of 8 GiB and more do not fit ustar's 11-digit octal size field and get a pax extended header. The
 * data is generated (zeros with a marker byte at each end), never stored, so the test writes the whole
 * 8 GiB through the tar writer without touching the disk.
 */
class AggregateLargeMemberTest {
    static final long BIG = (8L << 30) + 1; // one byte more than ustar can express
    static final int BLOCK = 1 << 20;
    static final long CREATED = 1_700_000_000_000L;
    static final String BIG_ID = "0000BB0000000000000000000000000000BB";

    /** {@code size} bytes: 0x11, zeros, 0x22 (size >= 2). */
    static final class MarkedZeros extends InputStream {
        private final long size;
        private long position;

        MarkedZeros(long size) {
            this.size = size;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (position >= size) {
                return -1;
            }
            int n = (int) Math.min(len, size - position);
            Arrays.fill(b, off, off + n, (byte) 0);
            if (position == 0) {
                b[off] = 0x11;
            }
            if (position + n == size) {
                b[off + n - 1] = 0x22;
            }
            position += n;
            return n;
        }
    }

    /** Adler-32 of {@link MarkedZeros}, from the definition: A = 1 + sum d, B = sum of the running A. */
    static String markedZerosAdler(long n) {
        long a = 1 + 0x11 + 0x22;
        long b = (n % 65521 + (n % 65521) * 0x11 + 0x22) % 65521;
        return Checksums.format((b << 16) | a);
    }

    private static final AggregateWriter.MemberData GENERATED = new AggregateWriter.MemberData() {
        @Override
        public void check(AggregateMember member) {
        }

        @Override
        public InputStream open(AggregateMember member) {
            return new MarkedZeros(member.size());
        }
    };

    private static AggregatePlan plan() {
        List<AggregateMember> members = List.of(
                new AggregateMember("0000AA", 3, null, null, null, null, null),
                new AggregateMember(BIG_ID, BIG, markedZerosAdler(BIG), "exp:raw", "/pnfs/big", null, null),
                new AggregateMember("0000CC", 5, null, null, null, null, null));
        AggregatePlan.Prepared prepared = AggregatePlan.prepare("A00001", "exp", null, CREATED, members, BLOCK);
        assertEquals(List.of(), prepared.rejected());
        return prepared.plan();
    }

    @Test
    void markedZerosAdler_smallSizes_matchesJavaUtilZip() {
        for (long n : new long[] {2, 3, 1000, 65521, 200_003}) {
            Adler32 adler = new Adler32();
            byte[] data = new byte[(int) n];
            new MarkedZeros(n).read(data, 0, data.length);
            adler.update(data);
            assertEquals(Checksums.format(adler.getValue()), markedZerosAdler(n), "n=" + n);
        }
    }

    @Test
    void prepare_memberOver8GiB_layoutHasAPaxHeaderBeforeIt() {
        AggregatePlan plan = plan();

        long manifestEnd = 512 + TarFormat.padded(plan.manifest().toJson().length);
        long small = manifestEnd + 512;
        assertEquals(small, plan.offsetOf(0));
        // after the 3-byte member: a pax header (header record + one record of "size=..." data), then ustar
        long big = small + 512 + 512 + 512 + 512;
        assertEquals(big, plan.offsetOf(1));
        assertEquals(big + TarFormat.padded(BIG) + 512, plan.offsetOf(2));
        assertEquals(plan.offsetOf(2) + 512 + 1024, plan.length());
        assertEquals(BIG, plan.manifest().members().get(1).size());
        assertEquals(1 + (plan.offsetOf(1) / BLOCK), plan.blockOf(1, 1) );
        assertEquals((plan.length() + BLOCK - 1) / BLOCK, plan.blockCount(BLOCK));
    }

    /**
     * Streams the whole 8 GiB aggregate to GNU tar's standard input (as from a tape: no seeking) and into a
     * stream that keeps only the records around the big member.
     */
    @Test
    @Tag("slow") // streams 8 GiB through tar (about 9 s); -Pfast leaves it out
    void writeTo_memberOver8GiB_headersAreAsPlannedAndGnuTarReadsIt() throws Exception {
        AggregatePlan plan = plan();
        long dataStart = plan.offsetOf(1);
        Capture capture = new Capture(dataStart - 1536, dataStart + 16, plan.length() - 4096);
        TapeFileSource source = plan.source(GENERATED);

        long start = System.nanoTime();
        List<GnuTar.Listed> listed = GnuTar.listStream(tarInput -> source.writeTo(new Tee(capture, tarInput)));
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;

        assertEquals(List.of(new GnuTar.Listed(Manifest.MEMBER_NAME, plan.manifest().toJson().length),
                new GnuTar.Listed("0000AA", 3), new GnuTar.Listed(BIG_ID, BIG), new GnuTar.Listed("0000CC", 5)),
                listed);
        assertEquals(plan.length(), capture.count);
        byte[] head = capture.head.toByteArray();
        // record 0: pax extended header for the member, typeflag 'x'
        assertEquals('x', head[156]);
        String paxName = new String(head, 0, 100, StandardCharsets.US_ASCII);
        assertTrue(paxName.contains(BIG_ID), paxName);
        // record 1: the pax records, which must include the size that ustar cannot hold
        String pax = new String(head, 512, 512, StandardCharsets.US_ASCII);
        assertTrue(pax.contains(" size=" + BIG + "\n"), pax);
        // record 2: the ustar header, typeflag '0', named by the pnfsid, magic "ustar"
        assertEquals('0', head[1024 + 156]);
        assertEquals(BIG_ID, new String(head, 1024, BIG_ID.length(), StandardCharsets.US_ASCII));
        assertEquals("ustar", new String(head, 1024 + 257, 5, StandardCharsets.US_ASCII));
        // then the data, starting where the manifest says
        assertEquals(0x11, head[1536]);
        assertEquals(0, head[1537]);
        // the last data byte is followed by padding, the small member and the end-of-archive marker
        byte[] tail = capture.tail.toByteArray();
        long lastDataByte = dataStart + BIG - 1;
        assertEquals(0x22, tail[(int) (lastDataByte - (plan.length() - 4096))]);
        assertTrue(seconds < 60, "8 GiB through the writer and GNU tar took " + seconds + " s");
    }

    /** Writes to two streams. */
    static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int x) throws IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public void write(byte[] x, int off, int len) throws IOException {
            a.write(x, off, len);
            b.write(x, off, len);
        }

        @Override
        public void flush() throws IOException {
            a.flush();
            b.flush();
        }
    }

    /** Counts everything, keeps two windows of bytes. */
    static final class Capture extends OutputStream {
        final ByteArrayOutputStream head = new ByteArrayOutputStream();
        final ByteArrayOutputStream tail = new ByteArrayOutputStream();
        private final long headFrom;
        private final long headTo;
        private final long tailFrom;
        long count;

        Capture(long headFrom, long headTo, long tailFrom) {
            this.headFrom = headFrom;
            this.headTo = headTo;
            this.tailFrom = tailFrom;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            keep(head, headFrom, headTo, b, off, len);
            keep(tail, tailFrom, Long.MAX_VALUE, b, off, len);
            count += len;
        }

        private void keep(ByteArrayOutputStream into, long from, long to, byte[] b, int off, int len) {
            long s = Math.max(count, from);
            long e = Math.min(count + len, to);
            if (s < e) {
                into.write(b, off + (int) (s - count), (int) (e - s));
            }
        }
    }
}
