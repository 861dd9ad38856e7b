package org.tapeq.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.tapeq.daemon.bridge.BridgeStatus;
import org.tapeq.poolemulator.EmulatedFlushRequest;
import org.tapeq.poolemulator.EmulatedStageRequest;
import org.tapeq.poolemulator.Outcome;
import org.tapeq.protocol.AtomicFiles;
import org.tapeq.protocol.ErrorReport;
import org.tapeq.protocol.ProtocolFiles;
import org.tapeq.protocol.Request;
import org.tapeq.protocol.RequestCodec;
import org.tapeq.protocol.RequestDirectory;
import org.tapeq.protocol.ReturnCodes;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.testing.support.Poll;

/**
 * Whatever lands in the request directory, the daemon answers what the protocol lets it answer with an error file
 * that names the file and the reason, ignores names that are not pnfsids, never follows a path it was given, and
 * keeps serving: every test ends with a normal flush and stage through the real provider.
 */
class HostileInputTest extends SiteTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    final Random random = new Random(1234);

    @Test
    void unreadableRequestFiles_areAnsweredWithErrorFilesNamingFileAndReason() throws Exception {
        Map<String, String> expected = new LinkedHashMap<>(); // pnfsid -> part of the reason
        expected.put(write("{file_size: 12, action: recall}"), "not valid JSON");
        expected.put(write("{\"file_size\":100,\"time\":1,\"storage_class\":\"atlas:raw\",\"action\":\"reca"),
                "not valid JSON");
        expected.put(write(""), "empty");
        StringBuilder big = new StringBuilder("{\"file_size\":1,\"time\":1,\"action\":\"recall\",\"path\":\"");
        big.append("a".repeat(70_000)).append("\"}");
        String oversized = write(big.toString());
        expected.put(oversized, "more than the 65536 allowed");
        byte[] garbage = new byte[512];
        random.nextBytes(garbage);
        expected.put(write(garbage), "JSON");
        byte[] invalidUtf8 = "{\"file_size\":1,\"time\":1,\"storage_class\":\"atlas:raw\",\"action\":\"recall\",\"path\":\"/p/XX\"}"
                .getBytes(StandardCharsets.US_ASCII);
        invalidUtf8[invalidUtf8.length - 4] = (byte) 0xFF;
        invalidUtf8[invalidUtf8.length - 3] = (byte) 0xFE;
        expected.put(write(invalidUtf8), "UTF-8");
        expected.put(write("{\"file_size\":1,\"file_size\":2,\"time\":1,\"action\":\"recall\"}"), "file_size");
        expected.put(write("{\"file_size\":99999999999999999999999,\"time\":1,\"action\":\"recall\"}"), "out of range");
        expected.put(write("{\"file_size\":1,\"time\":1,\"action\":\"recall\"} {\"again\":1}"), "after the JSON object");
        expected.put(write("\u0000\u0000\u0000"), "JSON");

        Path elsewhere = Files.writeString(tmp.resolve("elsewhere.json"),
                "{\"file_size\":1,\"time\":1,\"storage_class\":\"atlas:raw\",\"action\":\"recall\"}");
        String symlink = TestFile.newPnfsId(random);
        Files.createSymbolicLink(site.dir.requestFile(symlink), elsewhere);
        expected.put(symlink, "symbolic link");

        String directory = TestFile.newPnfsId(random);
        Files.createDirectory(site.dir.requestFile(directory));
        Files.writeString(site.dir.requestFile(directory).resolve("inside"), "{}");
        expected.put(directory, "not a regular file");

        String fifo = TestFile.newPnfsId(random);
        boolean haveFifo = mkfifo(site.dir.requestFile(fifo));
        if (haveFifo) {
            expected.put(fifo, "not a regular file");
        }

        // Names that are not pnfsids are never requests, whatever they hold.
        List<String> ignored = List.of("hello.txt", "0".repeat(65), "ünïcödé", "ABCDEFG", "00AB CD", "-1");
        for (String n : ignored) {
            Files.writeString(site.dir.requestDir().resolve(n), "{\"file_size\":1,\"time\":1,\"action\":\"recall\"}");
        }

        for (Map.Entry<String, String> e : expected.entrySet()) {
            ErrorReport r = awaitError(e.getKey());
            assertEquals(ReturnCodes.INVALID_REQUEST, r.returnCode(), e.getKey() + ": " + r.message());
            assertTrue(r.message().contains(site.dir.requestFile(e.getKey()).toString()),
                    "names the file: " + r.message());
            assertTrue(r.message().contains(e.getValue()), "says why (" + e.getValue() + "): " + r.message());
        }
        assertTrue(awaitError(oversized).message().contains(Long.toString(Files.size(site.dir.requestFile(oversized)))));
        assertEquals(expected.size(), bridge().rejected(), "every refused file counted once");
        DaemonWaits.rescan(daemon); // a rescan later
        for (String n : ignored) {
            assertFalse(Site.exists(site.dir.requestDir().resolve(n + RequestDirectory.ERROR_SUFFIX)), n);
            assertTrue(Site.exists(site.dir.requestDir().resolve(n)), "left alone: " + n);
        }
        assertEquals(expected.size(), bridge().rejected(), "refused once, not again at every rescan");
        assertTrue(Files.isDirectory(site.dir.requestFile(directory)), "a directory is not removed");
        assertEquals("{\"file_size\":1,\"time\":1,\"storage_class\":\"atlas:raw\",\"action\":\"recall\"}",
                Files.readString(elsewhere), "the symbolic link's target is untouched");
        normalFlushAndStage();
        Assumptions.assumeTrue(haveFifo, "mkfifo is not available: the FIFO case was skipped");
    }

    @Test
    void hostileOutEntries_areRefusedAndWhatTheyPointAtIsUntouched() throws Exception {
        Path decoy = Files.writeString(tmp.resolve("decoy"), "do not read me");
        FileTime decoyTime = Files.getLastModifiedTime(decoy);

        String tapeqLink = TestFile.newPnfsId(random);
        writeRequest(tapeqLink, Request.flush(14, now(), "atlas:raw", "/pnfs/itest/atlas/x/f", null, null, extension()));
        Files.createSymbolicLink(site.dir.outLink(tapeqLink), decoy);

        String enditLink = TestFile.newPnfsId(random);
        writeRequest(enditLink, Request.flush(14, now(), "atlas:raw", "/pnfs/itest/atlas/x/g", null, null, null));
        Files.createSymbolicLink(site.dir.outLink(enditLink), decoy);

        String directory = TestFile.newPnfsId(random);
        writeRequest(directory, Request.flush(0, now(), "atlas:raw", "/pnfs/itest/atlas/x/h", null, null, extension()));
        Files.createDirectory(site.dir.outLink(directory));

        TestFile sized = TestFile.of(random, 0, 5000);
        Path replica = Files.write(site.pool.resolve(sized.pnfsid()), sized.content());
        writeRequest(sized.pnfsid(), Request.flush(4999, now(), sized.storageClass(), sized.path(), "adler32",
                sized.adler32(), extension()));
        Files.createLink(site.dir.outLink(sized.pnfsid()), replica);

        ErrorReport r = awaitError(tapeqLink);
        assertEquals(ReturnCodes.INVALID_REQUEST, r.returnCode(), r.message());
        assertTrue(r.message().contains("symbolic link") && r.message().contains(tapeqLink), r.message());
        r = awaitError(directory);
        assertEquals(ReturnCodes.INVALID_REQUEST, r.returnCode(), r.message());
        assertTrue(r.message().contains("not a regular file") && r.message().contains(directory), r.message());
        r = awaitError(sized.pnfsid());
        assertEquals(ReturnCodes.DATA_MISMATCH, r.returnCode(), r.message());
        assertTrue(r.message().contains("5000") && r.message().contains("4999"), r.message());

        Poll.until("the ENDIT-style flush through a symbolic link is parked", WAIT,
                () -> bridge().parked().stream().anyMatch(p -> p.pnfsid().equals(enditLink)
                        && p.reason().contains("symbolic link")));
        assertFalse(Site.exists(site.dir.errorFile(enditLink)));
        for (String id : List.of(tapeqLink, enditLink, directory, sized.pnfsid())) {
            assertTrue(Site.exists(site.dir.outLink(id)), "the out/ entry stays with an error: " + id);
            assertTrue(daemon.catalog().file(id).isEmpty(), id);
        }
        assertEquals("do not read me", Files.readString(decoy));
        assertEquals(decoyTime, Files.getLastModifiedTime(decoy));
        assertArrayEquals(sized.content(), Files.readAllBytes(replica), "the replica is untouched");
        normalFlushAndStage();
    }

    @Test
    void trashNamesThatAreNotPnfsids_areIgnored_andEntriesAreReadByNameOnly() throws Exception {
        List<TestFile> files = TestFile.generate(random, 3, 1, 100, 10_000);
        Pool.awaitAll(pool.flush(files), 60);
        TestFile byName = files.get(0);
        TestFile bySymlink = files.get(1);
        TestFile untouched = files.get(2);
        Path decoy = Files.writeString(tmp.resolve("victim"), "must survive");

        // Not pnfsids: each contains a character outside [0-9A-Fa-f], or is too long.
        List<String> ignored = new ArrayList<>(List.of(untouched.pnfsid() + ".bak", "." + untouched.pnfsid(),
                untouched.pnfsid() + "..", "queue", "..." + untouched.pnfsid(), "F".repeat(65),
                untouched.pnfsid().substring(0, 10) + "G" + untouched.pnfsid().substring(11)));
        for (String n : ignored) {
            Files.writeString(site.dir.trashDir().resolve(n), Pool.flushUri(untouched).toString());
        }
        Files.createDirectories(site.dir.trashDir().resolve("queue.d"));
        Files.createSymbolicLink(site.dir.trashDir().resolve("link-" + untouched.pnfsid()), decoy);
        ignored.add("link-" + untouched.pnfsid());
        ignored.add("queue.d");
        // Valid names: the content is never read, so a path in it means nothing.
        Files.writeString(site.dir.trashFile(byName.pnfsid()), "../../../../etc/passwd");
        Files.createSymbolicLink(site.dir.trashFile(bySymlink.pnfsid()), decoy);

        Poll.until("the valid trash entries are processed", WAIT,
                () -> !Site.exists(site.dir.trashFile(byName.pnfsid()))
                        && !Site.exists(site.dir.trashFile(bySymlink.pnfsid())));
        assertTrue(daemon.catalog().file(byName.pnfsid()).isEmpty());
        assertTrue(daemon.catalog().file(bySymlink.pnfsid()).isEmpty());
        assertEquals("must survive", Files.readString(decoy), "only the link was removed, not its target");
        DaemonWaits.rescan(daemon); // a rescan later, and whatever it sent to the scheduler removed
        Poll.until("no trash entry being removed", WAIT, () -> bridge().removing() == 0);
        assertEquals(new TreeSet<>(ignored), new TreeSet<>(site.list(RequestDirectory.TRASH)), "ignored names stay");
        assertTrue(daemon.catalog().file(untouched.pnfsid()).isPresent(), "no name that merely contains it counts");
        normalFlushAndStage();
    }

    @Test
    void pathFieldsWithDotDotOrUnicode_areInformationOnly() throws Exception {
        Path decoyDir = Files.createDirectories(tmp.resolve("etc"));
        Path decoy = Files.writeString(decoyDir.resolve("passwd"), "root:x:0:0:decoy\n");
        Path etcPasswd = Path.of("/etc/passwd");
        long passwdSize = Files.size(etcPasswd);
        FileTime passwdTime = Files.getLastModifiedTime(etcPasswd);
        Set<String> before = listTree(tmp, site.root);

        List<TestFile> files = List.of(
                new TestFile(TestFile.newPnfsId(random), "atlas:raw", "../../etc/passwd", 3000, random.nextLong()),
                new TestFile(TestFile.newPnfsId(random), "atlas:raw", "/pnfs/../../../../../etc/passwd", 4000,
                        random.nextLong()),
                new TestFile(TestFile.newPnfsId(random), "cms:reco", "/pnfs/itest/cms/dś☃/ファイル \u0001\t", 5000,
                        random.nextLong()));
        List<EmulatedFlushRequest> flushes = pool.flush(files);
        Pool.awaitAll(flushes, 60);
        for (int i = 0; i < files.size(); i++) {
            Outcome o = flushes.get(i).outcome();
            assertTrue(o.isCompleted(), files.get(i) + ": " + o);
            FileRecord r = onTape(files.get(i));
            assertEquals(files.get(i).path(), r.path(), "recorded as given");
        }
        for (TestFile f : files) {
            pool.dropReplica(f);
        }
        List<EmulatedStageRequest> stages = pool.stage(files);
        Pool.awaitAll(stages, 60);
        for (int i = 0; i < files.size(); i++) {
            TestFile f = files.get(i);
            assertTrue(stages.get(i).outcome().isCompleted(), f + ": " + stages.get(i).outcome());
            assertArrayEquals(f.content(), Files.readAllBytes(pool.emulator.replicaPath(f.pnfsId())), f.toString());
        }

        assertEquals("root:x:0:0:decoy\n", Files.readString(decoy));
        assertEquals(passwdSize, Files.size(etcPasswd));
        assertEquals(passwdTime, Files.getLastModifiedTime(etcPasswd));
        assertEquals(before, listTree(tmp, site.root), "nothing appeared or vanished outside the site");
        try (Stream<Path> all = Files.walk(site.root)) {
            assertEquals(List.of(), all.filter(p -> p.getFileName().toString().equals("passwd")).toList(),
                    "no file named after the path inside the site either");
        }
        normalFlushAndStage();
    }

    // ---------------------------------------------------------------- helpers

    /** A normal flush and stage through the real provider: the daemon still serves. */
    private void normalFlushAndStage() throws Exception {
        TestFile f = TestFile.of(random, 1, 123_456);
        Outcome flushed = Pool.await(pool.flush(List.of(f)).get(0), 60);
        assertTrue(flushed.isCompleted(), "the daemon still flushes: " + flushed);
        pool.dropReplica(f);
        Outcome staged = Pool.await(pool.stage(List.of(f)).get(0), 60);
        assertTrue(staged.isCompleted(), "the daemon still stages: " + staged);
        assertArrayEquals(f.content(), Files.readAllBytes(pool.emulator.replicaPath(f.pnfsId())));
    }

    /**
     * The catalog record of a file whose flush completed: a completed flush without one is a flush acknowledged
     * before it reached tape, unless something outside the test removed the site under it (then say so).
     */
    private FileRecord onTape(TestFile f) {
        return daemon.catalog().file(f.pnfsid()).orElseThrow(() -> new AssertionError("the flush of " + f
                + " completed, but the catalog has no record of it" + (Files.isDirectory(site.dir.outDir())
                && Files.isDirectory(site.dir.requestDir()) ? "" : " (and " + site.endit
                + " was removed by something outside the test)")));
    }

    /** A request file with this content under a new pnfsid, written in place (not atomically). */
    private String write(String content) throws IOException {
        return write(content.getBytes(StandardCharsets.UTF_8));
    }

    private String write(byte[] content) throws IOException {
        String id = TestFile.newPnfsId(random);
        Files.write(site.dir.requestFile(id), content);
        return id;
    }

    private void writeRequest(String pnfsid, Request r) throws IOException {
        AtomicFiles.write(site.dir.requestFile(pnfsid), RequestCodec.toBytes(r));
    }

    private static Request.Extension extension() {
        return new Request.Extension("hostile", 0, null, null, 0);
    }

    private ErrorReport awaitError(String pnfsid) throws Exception {
        Path err = site.dir.errorFile(pnfsid);
        Poll.until("an error file for " + pnfsid, WAIT, () -> Site.exists(err));
        ErrorReport r = ErrorReport.parse(ProtocolFiles.readSmallFile(err, ProtocolFiles.MAX_PROTOCOL_FILE_SIZE));
        assertNotNull(r);
        return r;
    }

    private BridgeStatus bridge() throws InterruptedException {
        return DaemonWaits.bridge(daemon);
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    /** Makes a FIFO with mkfifo(1); false if that is not possible here. */
    private static boolean mkfifo(Path p) {
        try {
            Process mk = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
            return mk.waitFor() == 0 && Files.exists(p, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Every path below {@code root} except those below {@code except}, with sizes and times of files. */
    private static Set<String> listTree(Path root, Path except) throws IOException {
        Set<String> out = new TreeSet<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (p.startsWith(except)) {
                    continue;
                }
                String entry = root.relativize(p).toString();
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    entry += " " + Files.size(p) + " " + Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS);
                }
                out.add(entry);
            }
        }
        return out;
    }
}
