package org.tapeq.scheduler.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.Adler32;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.tape.TapeFileSource;

class AggregatePrepareTest {
    static final int BLOCK = 256 * 1024;
    static final long CREATED = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private Path file(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content, StandardCharsets.US_ASCII);
    }

    private static String adler(String content) {
        Adler32 a = new Adler32();
        a.update(content.getBytes(StandardCharsets.US_ASCII));
        return Checksums.format(a.getValue());
    }

    private static AggregateMember member(String pnfsid, long size, String checksum, Path source) {
        return new AggregateMember(pnfsid, size, checksum, "sc:x", "/pnfs/" + pnfsid, "ds", source);
    }

    private static AggregatePlan.Prepared prepare(AggregateMember... members) {
        return AggregatePlan.prepare("A00001", "fam", "ds", CREATED, List.of(members), BLOCK);
    }

    private static String rejection(AggregatePlan.Prepared prepared, String pnfsid) {
        for (AggregatePlan.Rejected r : prepared.rejected()) {
            if (r.member().pnfsid().equals(pnfsid)) {
                assertEquals(FaultKind.SOURCE, r.fault().kind());
                return r.fault().getMessage();
            }
        }
        throw new AssertionError(pnfsid + " was not rejected: " + prepared.rejected());
    }

    private static List<String> planned(AggregatePlan.Prepared prepared) {
        return prepared.plan().members().stream().map(AggregateMember::pnfsid).toList();
    }

    @Test
    void prepare_badMembersAmongGoodOnes_rejectsEachWithReasonAndKeepsTheGood() throws IOException {
        Path good1 = file("good1", "hello");
        Path good2 = file("good2", "world!");
        Path wrongSize = file("wrongsize", "12345");
        Path wrongSum = file("wrongsum", "abc");
        Path target = file("target", "linked");
        Path link = Files.createSymbolicLink(dir.resolve("link"), target);
        Path directory = Files.createDirectory(dir.resolve("adir"));

        AggregatePlan.Prepared prepared = prepare(
                member("01", 5, null, good1),
                member("02", 3, null, dir.resolve("missing")),
                member("03", 6, null, link),
                member("04", 4, null, wrongSize),
                member("05", 3, "adler32:00000001", wrongSum),
                member("06", 0, null, directory),
                member("07", 6, adler("world!"), good2));

        assertEquals(List.of("01", "07"), planned(prepared));
        assertEquals(5, prepared.rejected().size());
        String missing = rejection(prepared, "02");
        assertTrue(missing.contains(dir.resolve("missing").toString()) && missing.contains("does not exist"), missing);
        String symlink = rejection(prepared, "03");
        assertTrue(symlink.contains(link.toString()) && symlink.contains("symbolic link"), symlink);
        String size = rejection(prepared, "04");
        assertTrue(size.contains(wrongSize.toString()) && size.contains("has 5 bytes, but 4 were announced"), size);
        String sum = rejection(prepared, "05");
        assertTrue(sum.contains(wrongSum.toString()) && sum.contains(adler("abc"))
                && sum.contains("adler32:00000001"), sum);
        String notRegular = rejection(prepared, "06");
        assertTrue(notRegular.contains("not a regular file"), notRegular);

        // the plan of the good members is complete and writable
        assertEquals(List.of(adler("hello"), adler("world!")),
                prepared.plan().manifest().members().stream().map(Manifest.Entry::checksum).toList());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        prepared.plan().source().writeTo(out);
        assertEquals(prepared.plan().length(), out.size());
    }

    @Test
    void prepare_invalidOrDuplicatePnfsid_rejectsWithoutFailingOthers() throws IOException {
        Path a = file("a", "aaaa");
        AggregatePlan.Prepared prepared = prepare(
                member("0A", 4, null, a),
                member("../etc/passwd", 4, null, a),
                member("0A", 4, null, a),
                member("0B", 4, null, a));

        assertEquals(List.of("0A", "0B"), planned(prepared));
        assertTrue(prepared.rejected().get(0).fault().getMessage().contains("no valid pnfsid"));
        assertTrue(prepared.rejected().get(1).fault().getMessage().contains("appears twice"));
        assertEquals("0A", prepared.rejected().get(1).member().pnfsid());
    }

    @Test
    void prepare_upperCaseAdler32_isVerifiedAndNormalised() throws IOException {
        Path f = file("f", "data");
        String upper = adler("data").toUpperCase(java.util.Locale.ROOT);

        AggregatePlan.Prepared prepared = prepare(member("0C", 4, upper, f));

        assertEquals(List.of(), prepared.rejected());
        assertEquals(adler("data"), prepared.plan().manifest().members().get(0).checksum());
    }

    @Test
    void prepare_malformedAdler32_isRejected() throws IOException {
        Path f = file("f", "data");
        AggregatePlan.Prepared prepared = prepare(member("0C", 4, "adler32:xyz", f));
        assertTrue(rejection(prepared, "0C").contains("malformed"), rejection(prepared, "0C"));
    }

    @Test
    void prepare_otherChecksumType_isKeptUnverified() throws IOException {
        Path f = file("f", "data");
        String md5 = "md5:00000000000000000000000000000000"; // wrong on purpose: not verified

        AggregatePlan.Prepared prepared = prepare(member("0D", 4, md5, f));

        assertEquals(List.of(), prepared.rejected());
        assertEquals(md5, prepared.plan().manifest().members().get(0).checksum());
    }

    @Test
    void prepare_sizeOnlyMembers_doNoIoAndKeepNullChecksum() {
        AggregatePlan.Prepared prepared = prepare(
                member("0E", 1_000_000, null, null),
                member("0F", 5, "adler32:ABCDEF01", null));

        assertEquals(List.of(), prepared.rejected());
        assertEquals(null, prepared.plan().manifest().members().get(0).checksum());
        assertEquals("adler32:abcdef01", prepared.plan().manifest().members().get(1).checksum());
        assertTrue(prepared.plan().length() > 1_000_000);
    }

    @Test
    void prepare_allRejected_givesAnEmptyButValidPlan() throws Exception {
        AggregatePlan.Prepared prepared = prepare(member("10", 1, null, dir.resolve("nope")));

        assertEquals(List.of(), prepared.plan().members());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        prepared.plan().source().writeTo(out);
        Path archive = Files.write(dir.resolve("empty.tar"), out.toByteArray());
        assertEquals(List.of(Manifest.MEMBER_NAME), GnuTar.list(archive).stream().map(GnuTar.Listed::name).toList());
    }

    @Test
    void writeTo_fileContentChangedAfterPrepare_throwsNamingTheFile() throws IOException {
        Path f = file("changing", "original");
        Path other = file("other", "stable");
        AggregatePlan plan = prepare(member("20", 6, null, other), member("21", 8, null, f)).plan();
        file("changing", "modified"); // same size, other content

        SourceChangedException e = assertThrows(SourceChangedException.class, () -> write(plan.source()));

        assertEquals("21", e.pnfsid());
        assertEquals(f, e.source());
        assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains("checksum"), e.getMessage());
    }

    @Test
    void writeTo_fileTruncatedAfterPrepare_throwsNamingTheFile() throws IOException {
        Path f = file("shrinking", "original");
        AggregatePlan plan = prepare(member("22", 8, null, f)).plan();
        file("shrinking", "orig");

        SourceChangedException e = assertThrows(SourceChangedException.class, () -> write(plan.source()));

        assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains("has 4 bytes"), e.getMessage());
    }

    @Test
    void writeTo_fileReplacedBySymlinkAfterPrepare_throwsNamingTheFile() throws IOException {
        Path f = file("replaced", "original");
        Path elsewhere = file("elsewhere", "original");
        AggregatePlan plan = prepare(member("23", 8, null, f)).plan();
        Files.delete(f);
        Files.createSymbolicLink(f, elsewhere);

        SourceChangedException e = assertThrows(SourceChangedException.class, () -> write(plan.source()));

        assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains("symbolic link"), e.getMessage());
    }

    @Test
    void writeTo_fileDeletedAfterPrepare_throwsNamingTheFile() throws IOException {
        Path f = file("deleted", "original");
        AggregatePlan plan = prepare(member("24", 8, null, f)).plan();
        Files.delete(f);

        SourceChangedException e = assertThrows(SourceChangedException.class, () -> write(plan.source()));

        assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void writeTo_unchangedFiles_writesThemAfterPrepare() throws IOException {
        Path f = file("stable", "stable content");
        AggregatePlan plan = prepare(member("25", 14, adler("stable content"), f)).plan();

        byte[] bytes = write(plan.source());

        int offset = (int) plan.offsetOf(0);
        assertArrayEquals("stable content".getBytes(StandardCharsets.US_ASCII),
                java.util.Arrays.copyOfRange(bytes, offset, offset + 14));
    }

    private static byte[] write(TapeFileSource source) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        source.writeTo(out);
        return out.toByteArray();
    }
}
