package org.tapeq.daemon.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.tapeq.protocol.Request;

/** The table's kept counts, its oldest waiting request, parked pages, and outcomes found by pnfsid or by id. */
class RequestTableTest {

    private final RequestTable table = new RequestTable(new StageTargets(Path.of("/pool/in")));

    private Tracked stage(String pnfsid, long seen) {
        Tracked t = new Tracked(table.newId(), pnfsid, Request.stage(10, 0, "atlas:raw", "/pnfs/a/" + pnfsid, 42,
                null, null, null), seen, FileVersion.of("(dev=803,ino=7)", 1000));
        table.put(t);
        return t;
    }

    @Test
    void summary_countsKeptAsRequestsChangeAndGo_equalACountOfThem() {
        Tracked a = stage("a", 1);
        Tracked b = stage("b", 2);
        Tracked c = stage("c", 3);
        a.queued();
        b.queued();
        c.queued();
        b.delivered();
        table.remove("c");
        Tracked a2 = stage("a", 4); // replaces a
        a2.answered("refused");
        assertEquals(Map.of("delivered", 1, "answered", 1), table.summary(0, 10).states());
        table.remove(b);
        table.remove(a); // not current any more: nothing changes
        assertEquals(Map.of("answered", 1), table.summary(0, 10).states());
    }

    @Test
    void summary_oldestWaiting_isTheFirstSeenOfThoseStillWaiting() {
        Tracked a = stage("a", 100);
        Tracked b = stage("b", 200);
        Tracked c = stage("c", 300);
        a.queued();
        b.waitForLink("no link yet");
        c.queued();
        assertEquals(100, table.summary(0, 0).oldestMillis());
        a.delivered();
        assertEquals(200, table.summary(0, 0).oldestMillis());
        table.remove("b");
        assertEquals(300, table.summary(0, 0).oldestMillis());
        c.acknowledged();
        assertEquals(0, table.summary(0, 0).oldestMillis());
    }

    @Test
    void summary_parked_areListedOldestFirstFromTheOffset_withTheirTotal() {
        for (int i = 0; i < 5; i++) {
            stage("p" + i, 50 - i).parked("reason " + i);
        }
        RequestTable.Summary s = table.summary(1, 2);
        assertEquals(5, s.parkedCount());
        assertEquals(List.of("p3", "p2"), s.parked().stream().map(BridgeStatus.Parked::pnfsid).toList());
        assertEquals(List.of(), table.summary(5, 2).parked());
    }

    @Test
    void returned_findsTheCurrentRequestByPnfsid_andAReplacedOneById() {
        Tracked a = stage("a", 1);
        a.queued();
        table.handedOver(a);
        Tracked b = stage("b", 2);
        b.queued();
        table.handedOver(b);
        Tracked b2 = stage("b", 3); // b is replaced while the scheduler holds it
        assertEquals(2, table.summary(0, 0).inScheduler());
        assertNull(table.returned(b2.id, "b"), "b2 was never handed over");
        assertSame(b, table.returned(b.id, "b"));
        assertSame(a, table.returned(a.id, "a"));
        assertNull(table.returned(a.id, "a"), "an outcome is taken once");
        assertEquals(0, table.summary(0, 0).inScheduler());
    }

    @Test
    void temporary_ofAStage_isNamedFromItsIdAndPnfsid_theSameEachTime() {
        Tracked a = stage("0000ABCD", 1);
        assertEquals(Path.of("/pool/in/.0000ABCD." + Long.toHexString(a.id) + ".tapeq.tmp"), a.temporary());
        assertEquals(a.temporary(), a.temporary());
        Tracked f = new Tracked(table.newId(), "f", Request.flush(10, 0, "atlas:raw", "/p", null, null, null), 1,
                null);
        table.put(f);
        assertNull(f.temporary());
    }

    @Test
    void aStage_keepsNoParsedRequest_onlyItsKindSizeAndChecksum_andItsFileVersionComesBackAsItWasRead() {
        Tracked a = stage("a", 1);
        assertNull(a.flushRequest());
        assertTrue(a.isStage());
        assertFalse(a.refused());
        assertEquals(10, a.fileSize());
        assertEquals("(dev=803,ino=7)@1000", a.version().toString());
        assertTrue(a.version().numbers(), "the Linux form is kept as numbers");
        String[][] keys = {{"(dev=fd01,ino=123456789)", "1732562435123"}, {"(dev=803,ino=7)", "-5"},
                {"(dev=803,ino=07)", "1000"}, {"inode 7", "1000"}, {"(dev=zz,ino=1)", "2"}, {"(dev=1,ino=2)x", "3"}};
        for (String[] k : keys) {
            FileVersion v = FileVersion.of(k[0], Long.parseLong(k[1]));
            a.version(v);
            assertEquals(v, a.version());
            assertEquals(k[0] + "@" + k[1], a.version().toString(), "exact both ways");
        }
        assertFalse(FileVersion.of("(dev=803,ino=07)", 1).numbers(), "a key not printed the same stays a string");
        assertNotEquals(FileVersion.of("(dev=803,ino=7)", 1), FileVersion.of("(dev=803,ino=8)", 1));
        assertNotEquals(FileVersion.of("(dev=803,ino=7)", 1), FileVersion.of("(dev=803,ino=7)", 2));
        a.version(null);
        assertNull(a.version());
    }

    @Test
    void theChecksumOfARequest_comesBackInItsCanonicalForm_anAdler32KeptAsANumber_otherTypesAsGiven() {
        Tracked adler = new Tracked(table.newId(), "a", Request.stage(10, 0, "atlas:raw", null, 42, "ADLER32",
                "0A0B0C0D", null), 1, null);
        assertEquals("adler32:0a0b0c0d", adler.checksum());
        Tracked md5 = new Tracked(table.newId(), "b", Request.flush(10, 0, "atlas:raw", "/p", "md5",
                "D41D8CD98F00B204E9800998ECF8427E", new Request.Extension("r", 0, null, null, 0)), 1, null);
        assertEquals("md5:d41d8cd98f00b204e9800998ecf8427e", md5.checksum());
        assertTrue(md5.isFlush());
        assertTrue(md5.hasExtension());
        assertEquals("/p", md5.flushRequest().path());
        Tracked none = new Tracked(table.newId(), "c", Request.stage(10, 0, "atlas:raw", null, 42, null, null, null),
                1, null);
        assertNull(none.checksum());
        assertFalse(none.hasExtension());
        assertTrue(new Tracked(table.newId(), "d", null, 1, null).refused());
    }
}
