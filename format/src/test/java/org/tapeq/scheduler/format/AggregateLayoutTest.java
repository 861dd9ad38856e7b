package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AggregateLayoutTest {
    static final int BLOCK = 1 << 20;
    static final long CREATED = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private static List<AggregateMember> sizeOnly(int count, long seed) {
        Random random = new Random(seed);
        List<AggregateMember> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long size = random.nextInt(4) == 0 ? 0 : (long) random.nextInt(5_000_000);
            members.add(new AggregateMember(String.format("0000%032X", i), size, null, "exp:raw",
                    "/pnfs/site/exp/raw/run" + (i / 100) + "/file" + i + ".root", "run" + (i / 100), null));
        }
        return members;
    }

    /** The layout re-derived from the manifest alone: tar headers of one record each, data padded to 512. */
    private static void assertConsistent(AggregatePlan plan) {
        Manifest m = plan.manifest();
        long position = 512 + TarFormat.padded(m.toJson().length);
        for (int i = 0; i < m.members().size(); i++) {
            position += 512;
            assertEquals(position, plan.offsetOf(i), "offset of member " + i);
            position += TarFormat.padded(m.members().get(i).size());
        }
        assertEquals(position + 1024, plan.length());
    }

    @Test
    void prepare_thousandsOfMembers_layoutConvergesAndIsSelfConsistent() {
        long start = System.nanoTime();
        AggregatePlan plan = AggregatePlan.prepare("A00001", "exp", "run0", CREATED, sizeOnly(5000, 7), BLOCK)
                .plan();
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertEquals(5000, plan.members().size());
        assertConsistent(plan);
        assertTrue(plan.layout().rounds <= 4, plan.layout().rounds + " rounds");
        assertTrue(plan.manifest().toJson().length > 1_000_000, "the manifest spans many records");
        assertTrue(millis < 10_000, "layout of 5000 members took " + millis + " ms");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144})
    void prepare_anyMemberCount_layoutIsSelfConsistent(int count) {
        AggregatePlan plan = AggregatePlan.prepare("A00001", "exp", null, CREATED, sizeOnly(count, count), BLOCK)
                .plan();
        assertConsistent(plan);
    }

    @Test
    void writeTo_layoutThatDisagreesWithTheTarStream_throwsInsteadOfWritingAWrongManifest() throws IOException {
        Path file = Files.write(dir.resolve("data"), new byte[1000]);
        List<AggregateMember> members = List.of(
                new AggregateMember("01", 1000, null, null, null, null, file),
                new AggregateMember("02", 1000, null, null, null, null, file));
        AggregatePlan plan = AggregatePlan.prepare("A1", "f", null, CREATED, members, BLOCK).plan();
        AggregateLayout good = plan.layout();
        List<Manifest.Entry> shifted = new ArrayList<>(good.manifest.members());
        Manifest.Entry second = shifted.get(1);
        shifted.set(1, new Manifest.Entry(second.name(), second.pnfsid(), second.size(), second.offset() + 512,
                second.checksum(), null, null, null));
        Manifest m = good.manifest;
        AggregateLayout bad = new AggregateLayout(new Manifest(m.format(), m.barcode(), m.family(), m.dataset(),
                m.createdMillis(), m.blockSize(), m.length(), shifted), good.manifestJson, good.manifestDataOffset, 1);

        IOException e = assertThrows(IOException.class, () -> new AggregateWriter(plan.members(), bad,
                AggregateWriter.SOURCE_FILES).writeTo(OutputStream.nullOutputStream()));

        assertTrue(e.getMessage().contains("member 1 (02)") && e.getMessage().contains(
                "the manifest says " + (second.offset() + 512)), e.getMessage());
    }

    /**
     * Thousands of real members whose manifest crosses many record boundaries: every write checks the
     * predicted offsets itself, and GNU tar must see all members.
     */
    @Test
    void writeTo_thousandsOfRealMembers_matchesPredictionAndGnuTarListsAll() throws Exception {
        int count = 3000;
        Random random = new Random(3);
        List<Path> files = new ArrayList<>();
        for (int size = 0; size < 40; size++) {
            byte[] data = new byte[size * 37];
            random.nextBytes(data);
            files.add(Files.write(dir.resolve("f" + size), data));
        }
        List<AggregateMember> members = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int f = random.nextInt(files.size());
            members.add(new AggregateMember(String.format("%036X", i), f * 37L, null, null,
                    "/pnfs/x/" + i, null, files.get(f)));
        }
        AggregatePlan plan = AggregatePlan.prepare("A00002", "exp", null, CREATED, members, BLOCK).plan();
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        plan.source().writeTo(out);

        byte[] bytes = out.toByteArray();
        assertEquals(plan.length(), bytes.length);
        for (int i = 0; i < count; i += 97) {
            byte[] expected = Files.readAllBytes(members.get(i).source());
            int offset = (int) plan.offsetOf(i);
            assertArrayEquals(expected, java.util.Arrays.copyOfRange(bytes, offset, offset + expected.length));
        }
        Manifest read = ManifestReader.read(new ByteArrayInputStream(bytes), plan.offsetOf(0));
        assertEquals(plan.manifest(), read);
        Path archive = Files.write(dir.resolve("big.tar"), bytes);
        List<GnuTar.Listed> listed = GnuTar.list(archive);
        assertEquals(count + 1, listed.size());
        assertEquals(Manifest.MEMBER_NAME, listed.get(0).name());
        assertEquals(members.get(count - 1).pnfsid(), listed.get(count).name());
    }

    /**
     * Member counts chosen so that the manifest ends just before, at and after a record boundary: the
     * iteration must still settle on offsets that match the manifest it writes.
     */
    @Test
    void writeTo_manifestNearRecordBoundaries_offsetsStillMatch() throws IOException {
        Path file = Files.write(dir.resolve("one"), new byte[] {42});
        int checked = 0;
        for (int count = 1; count <= 120; count++) {
            List<AggregateMember> members = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                members.add(new AggregateMember(Integer.toHexString(i + 1), 1, null, null, null, null, file));
            }
            AggregatePlan plan = AggregatePlan.prepare("A1", "f", null, CREATED, members, BLOCK).plan();
            int json = plan.manifest().toJson().length;
            if (json % 512 > 448 || json % 512 < 64) {
                checked++;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            plan.source().writeTo(out); // throws if any offset is off
            byte[] bytes = out.toByteArray();
            assertEquals(plan.length(), bytes.length);
            assertEquals(42, bytes[(int) plan.offsetOf(count - 1)]);
        }
        assertTrue(checked >= 10, "only " + checked + " manifests close to a record boundary");
    }
}
