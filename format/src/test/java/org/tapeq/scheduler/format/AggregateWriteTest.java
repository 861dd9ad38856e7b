package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.Adler32;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.tape.TapeFileSource;

class AggregateWriteTest {
    static final int BLOCK = 64 * 1024;
    static final long CREATED = 1_738_324_800_123L; // 2025-01-31T12:00:00.123Z
    /** Sizes around record boundaries, an empty file and a few blocks' worth. */
    static final int[] SIZES = {0, 1, 511, 512, 513, 1023, 70_001, 3 * BLOCK + 17};

    @TempDir
    Path dir;

    private final List<AggregateMember> members = new ArrayList<>();
    private final List<byte[]> contents = new ArrayList<>();

    @BeforeEach
    void createMembers() throws IOException {
        Random random = new Random(42);
        for (int i = 0; i < SIZES.length; i++) {
            byte[] data = new byte[SIZES[i]];
            random.nextBytes(data);
            String pnfsid = String.format("0000C0FFEE%026X", i);
            Path file = dir.resolve("pool-" + i);
            Files.write(file, data);
            members.add(new AggregateMember(pnfsid, data.length, null, "atlas:raw",
                    "/pnfs/example.org/data/file-" + i, "run-" + (i % 2), file));
            contents.add(data);
        }
    }

    private AggregatePlan plan() {
        AggregatePlan.Prepared prepared = AggregatePlan.prepare("A00001", "atlas", "run-0", CREATED, members, BLOCK);
        assertEquals(List.of(), prepared.rejected());
        return prepared.plan();
    }

    private static byte[] write(TapeFileSource source) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        source.writeTo(out);
        return out.toByteArray();
    }

    @Test
    void writeTo_variedSizes_lengthIsPredictedAndWholeRecords() throws IOException {
        AggregatePlan plan = plan();
        byte[] tapeFile = write(plan.source());

        assertEquals(plan.length(), tapeFile.length);
        assertEquals(plan.source().length(), tapeFile.length);
        assertEquals(0, tapeFile.length % 512);
        assertEquals((tapeFile.length + BLOCK - 1) / BLOCK, plan.blockCount(BLOCK));
        // the end-of-archive marker is the last 1024 bytes
        assertTrue(allZero(Arrays.copyOfRange(tapeFile, tapeFile.length - 1024, tapeFile.length)));
    }

    @Test
    void writeTo_everyManifestOffset_pointsAtTheMemberData() throws IOException {
        AggregatePlan plan = plan();
        byte[] tapeFile = write(plan.source());

        Manifest manifest = plan.manifest();
        for (int i = 0; i < members.size(); i++) {
            Manifest.Entry entry = manifest.members().get(i);
            assertEquals(members.get(i).pnfsid(), entry.pnfsid());
            assertEquals(plan.offsetOf(i), entry.offset());
            byte[] atOffset = Arrays.copyOfRange(tapeFile, (int) entry.offset(), (int) (entry.offset() + entry.size()));
            assertArrayEquals(contents.get(i), atOffset, "data of member " + i);
            // the tar header of the member is the record just before its data
            String headerName = new String(tapeFile, (int) entry.offset() - 512, entry.name().length(),
                    java.nio.charset.StandardCharsets.US_ASCII);
            assertEquals(entry.name(), headerName);
        }
    }

    @Test
    void prepare_noChecksumGiven_manifestHasComputedAdler32() {
        AggregatePlan plan = plan();
        for (int i = 0; i < members.size(); i++) {
            Adler32 adler = new Adler32();
            adler.update(contents.get(i));
            assertEquals(Checksums.format(adler.getValue()), plan.manifest().members().get(i).checksum());
            assertEquals(plan.manifest().members().get(i).checksum(), plan.members().get(i).checksum());
        }
        assertEquals("adler32:00000001", plan.manifest().members().get(0).checksum()); // the empty member
    }

    @Test
    void blockOf_memberOffsets_addressTheBlockHoldingTheFirstDataByte() throws IOException {
        AggregatePlan plan = plan();
        byte[] tapeFile = write(plan.source());
        long startBlock = 1000;
        for (int i = 0; i < members.size(); i++) {
            long block = plan.blockOf(i, startBlock);
            long skip = plan.skipBytes(i);
            assertTrue(skip >= 0 && skip < BLOCK);
            // what a backend reads: from block (block - startBlock), skip bytes, then size bytes
            int from = (int) ((block - startBlock) * BLOCK + skip);
            assertArrayEquals(contents.get(i), Arrays.copyOfRange(tapeFile, from, from + contents.get(i).length));
        }
        // the largest member spans several blocks and starts in a block after the first
        assertTrue(plan.blockOf(members.size() - 1, startBlock) > startBlock);
    }

    @Test
    void read_writtenTapeFile_givesThePlannedManifest() throws IOException {
        AggregatePlan plan = plan();
        byte[] tapeFile = write(plan.source());

        Manifest read = ManifestReader.read(new ByteArrayInputStream(tapeFile), BLOCK);

        assertEquals(plan.manifest(), read);
        assertEquals(Manifest.FORMAT, read.format());
        assertEquals("A00001", read.barcode());
        assertEquals("atlas", read.family());
        assertEquals("run-0", read.dataset());
        assertEquals(CREATED, read.createdMillis());
        assertEquals(BLOCK, read.blockSize());
        assertEquals(tapeFile.length, read.length());
        assertEquals("/pnfs/example.org/data/file-3", read.members().get(3).path());
        assertEquals("atlas:raw", read.members().get(3).storageClass());
        assertEquals("run-1", read.members().get(3).dataset());
    }

    @Test
    void writeTo_calledTwice_writesIdenticalBytes() throws IOException {
        TapeFileSource source = plan().source();
        assertArrayEquals(write(source), write(source));
    }

    @Test
    void gnuTarList_writtenAggregate_showsManifestFirstThenMembersInOrder() throws Exception {
        AggregatePlan plan = plan();
        Path archive = dir.resolve("tapefile.tar");
        Files.write(archive, write(plan.source()));

        List<GnuTar.Listed> listed = GnuTar.list(archive);

        assertEquals(members.size() + 1, listed.size());
        assertEquals(Manifest.MEMBER_NAME, listed.get(0).name());
        assertEquals(plan.offsetOf(0) - 512 - 512, TarFormat.padded(listed.get(0).size()));
        for (int i = 0; i < members.size(); i++) {
            assertEquals(members.get(i).pnfsid(), listed.get(i + 1).name());
            assertEquals(SIZES[i], listed.get(i + 1).size());
        }
    }

    @Test
    void gnuTarExtract_writtenAggregate_membersAreByteIdentical() throws Exception {
        AggregatePlan plan = plan();
        Path archive = dir.resolve("tapefile.tar");
        Files.write(archive, write(plan.source()));
        Path out = Files.createDirectory(dir.resolve("extracted"));

        GnuTar.extract(archive, out);

        for (int i = 0; i < members.size(); i++) {
            assertArrayEquals(contents.get(i), Files.readAllBytes(out.resolve(members.get(i).pnfsid())));
        }
        Manifest extracted = Manifest.fromJson(Files.readAllBytes(out.resolve(Manifest.MEMBER_NAME)));
        assertEquals(plan.manifest(), extracted);
    }

    @Test
    void toFileRecords_atAPlace_givesAbsoluteBlocksAndHintOrderMinusOne() {
        AggregatePlan plan = plan();
        List<FileRecord> records = plan.manifest().toFileRecords("A00001", 7, 5000, BLOCK);

        assertEquals(members.size(), records.size());
        for (int i = 0; i < records.size(); i++) {
            FileRecord r = records.get(i);
            assertEquals(members.get(i).pnfsid(), r.pnfsid());
            assertEquals("A00001", r.cartridge());
            assertEquals(7, r.tapeFile());
            assertEquals(plan.blockOf(i, 5000), r.block());
            assertEquals(plan.offsetOf(i), r.offset());
            assertEquals(SIZES[i], r.size());
            assertEquals(plan.members().get(i).checksum(), r.checksum());
            assertEquals("atlas:raw", r.storageClass());
            assertEquals(members.get(i).path(), r.path());
            assertEquals(members.get(i).dataset(), r.dataset());
            assertEquals(-1, r.hintOrder());
            assertTrue(!r.isHint());
        }
    }

    @Test
    void toAggregateRecord_atAPlace_describesTheTapeFile() {
        AggregatePlan plan = plan();
        AggregateRecord r = plan.manifest().toAggregateRecord("A00001", 7, 5000, BLOCK, 99L);

        assertEquals(new AggregateRecord("A00001", 7, 5000, plan.blockCount(BLOCK), BLOCK, plan.length(),
                members.size(), "atlas", "run-0", 99L), r);
    }

    @Test
    void writeTo_sizeOnlyMember_failsBeforeWritingAnything() {
        List<AggregateMember> sizeOnly = List.of(new AggregateMember("00AA", 10, null, null, null, null, null));
        AggregatePlan plan = AggregatePlan.prepare("A00001", "atlas", null, CREATED, sizeOnly, BLOCK).plan();
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        IOException e = assertThrows(IOException.class, () -> plan.source().writeTo(out));

        assertTrue(e.getMessage().contains("00AA"), e.getMessage());
        assertEquals(0, out.size());
        assertNull(plan.manifest().members().get(0).checksum());
    }

    @Test
    void writeTo_outputFails_propagatesTheOutputErrorUnwrapped() {
        AggregatePlan plan = plan();
        IOException broken = new IOException("drive went away");
        OutputStream failing = new OutputStream() {
            long written;

            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                written += len;
                if (written > 100_000) {
                    throw broken;
                }
            }
        };

        IOException e = assertThrows(IOException.class, () -> plan.source().writeTo(failing));

        assertTrue(e == broken && !(e instanceof SourceChangedException), e.toString());
    }

    private static boolean allZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
