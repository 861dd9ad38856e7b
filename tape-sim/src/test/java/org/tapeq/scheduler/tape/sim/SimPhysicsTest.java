package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

class SimPhysicsTest {

    private static final MediaType LTO9 = MediaType.LTO9;
    private final TapePhysics physics = TapePhysics.of(LTO9);
    private final double rate = LTO9.rateBytesPerSecond();

    @Test
    void geometry_serpentine_evenWrapsRunForwardOddWrapsBack() {
        TrueWrapMap g = physics.geometry("A00001L9", LTO9.capacityBytes(), 1);
        double length = physics.tapeMetres();
        Head start0 = physics.headAt(g, 0);
        Head end0 = physics.headAt(g, g.wrapStart(1) - 1);
        Head start1 = physics.headAt(g, g.wrapStart(1));
        Head end1 = physics.headAt(g, g.wrapStart(2) - 1);
        assertEquals(0, start0.wrap());
        assertEquals(0, end0.wrap());
        assertEquals(1, start1.wrap());
        assertTrue(start0.lpos() < 0.02 * length, "wrap 0 starts near BOT: " + start0);
        assertTrue(end0.lpos() > 0.98 * length, "wrap 0 ends near EOT: " + end0);
        assertTrue(start1.lpos() > 0.98 * length, "wrap 1 starts near EOT: " + start1);
        assertTrue(end1.lpos() < 0.02 * length, "wrap 1 ends near BOT: " + end1);
        assertEquals(1, start0.direction());
        assertEquals(-1, start1.direction());
        Head last = physics.headAt(g, g.capacity());
        assertEquals(LTO9.wraps() - 1, last.wrap());
    }

    @Test
    void geometry_perBarcode_irregularWithinTwoPercentAndExactTotal() {
        TrueWrapMap a = physics.geometry("A00001L9", LTO9.capacityBytes(), 1);
        TrueWrapMap again = physics.geometry("A00001L9", LTO9.capacityBytes(), 1);
        TrueWrapMap b = physics.geometry("A00002L9", LTO9.capacityBytes(), 1);
        long nominal = LTO9.bytesPerWrap();
        long[] capsA = new long[LTO9.wraps()];
        long[] capsAgain = new long[LTO9.wraps()];
        long sum = 0;
        boolean differs = false;
        for (int w = 0; w < LTO9.wraps(); w++) {
            capsA[w] = a.wrapCapacity(w);
            capsAgain[w] = again.wrapCapacity(w);
            sum += capsA[w];
            double deviation = Math.abs(capsA[w] - nominal) / (double) nominal;
            assertTrue(deviation <= 0.025, "wrap " + w + " deviates " + deviation);
            differs |= a.wrapCapacity(w) != b.wrapCapacity(w);
        }
        assertEquals(LTO9.capacityBytes(), sum);
        assertArrayEquals(capsA, capsAgain, "same barcode and seed give the same cartridge");
        assertTrue(differs, "different barcodes give different cartridges");
    }

    @Test
    void geometry_nominalEstimate_closeButNotExact() {
        TrueWrapMap g = physics.geometry("A00001L9", LTO9.capacityBytes(), 7);
        SplittableRandom random = new SplittableRandom(3);
        int wrong = 0;
        int samples = 10_000;
        for (int i = 0; i < samples; i++) {
            long offset = random.nextLong(LTO9.capacityBytes());
            int nominalWrap = (int) (offset / LTO9.bytesPerWrap());
            int trueWrap = g.wrapOf(offset);
            assertTrue(Math.abs(nominalWrap - trueWrap) <= 1, "nominal wrap " + nominalWrap + " vs " + trueWrap);
            if (nominalWrap != trueWrap) {
                wrong++;
            }
        }
        System.out.printf("nominal geometry puts %.1f %% of offsets on the wrong wrap%n", 100.0 * wrong / samples);
        assertTrue(wrong > 0, "a cartridge must not match the nominal geometry exactly");
        assertTrue(wrong < samples / 2, "the nominal geometry must be close: " + wrong);
    }

    @Test
    void stream_oneNominalWrap_takesAbout160sEndToEnd() {
        TrueWrapMap g = physics.geometry("A00001L9", LTO9.capacityBytes(), 1);
        long wrapBytes = g.wrapCapacity(10);
        long millis = TapePhysics.streamMillis(wrapBytes, rate);
        assertEquals(160_000, millis, 160_000 * 0.025);
        Head start = physics.headAt(g, g.wrapStart(10));
        Head end = physics.headAt(g, g.wrapStart(11) - 1);
        assertTrue(Math.abs(end.lpos() - start.lpos()) > 0.95 * physics.tapeMetres(), start + " to " + end);
    }

    @Test
    void locate_sameWrapShortForwardHop_isCheap() {
        TrueWrapMap g = physics.geometry("A00001L9", LTO9.capacityBytes(), 1);
        long base = g.wrapStart(20) + 1_000_000_000L;
        Head from = physics.headAt(g, base);
        long hop100MB = physics.locateMillis(from, physics.headAt(g, base + 100_000_000L), rate);
        long hop1GB = physics.locateMillis(from, physics.headAt(g, base + 1_000_000_000L), rate);
        assertEquals(250, hop100MB, 1, "100 MB ahead is read through at 400 MB/s");
        assertTrue(hop1GB <= 2_500, "1 GB ahead: " + hop1GB);
        assertEquals(0, physics.locateMillis(from, from, rate));
    }

    @Test
    void locate_shortHopAcrossAWrapTurn_readsThrough() {
        TrueWrapMap g = physics.geometry("A00001L9", LTO9.capacityBytes(), 1);
        long turn = g.wrapStart(11);
        Head before = physics.headAt(g, turn - 100_000_000);
        Head after = physics.headAt(g, turn + 100_000_000);
        long through = physics.locateMillis(before, after, rate);
        assertEquals(TapePhysics.streamMillis(200_000_000, rate), through, 1,
                "200 MB ahead across the turn of wrap 10 to 11 is streamed");
        long located = physics.locateMillis(before, after, 1); // no read-through at 1 B/s: a real locate
        assertTrue(located > 5 * through, "locate " + located + " ms vs read-through " + through + " ms");
        assertTrue(physics.locateMillis(after, before, rate) > located - 1, "backwards is never read through");
    }

    @Test
    void locate_wrapAndDirectionChanges_costMoreThanSameWrapMoveOfSameDistance() {
        double lpos = 300;
        double distance = 200;
        Head from = new Head(1_000, 4, lpos);               // wrap 4 runs BOT to EOT
        Head sameWrap = new Head(2_000, 4, lpos + distance);
        Head otherWrapSameWay = new Head(900_000, 6, lpos + distance);
        Head otherWrapOtherWay = new Head(500_000, 5, lpos + distance);
        Head otherBand = new Head(9_000_000, 4 + LTO9.wraps() / LTO9.bands(), lpos + distance);
        double slowRate = 1;                                // no read-through shortcut: pure locate costs
        long same = physics.locateMillis(from, sameWrap, slowRate);
        long wrap = physics.locateMillis(from, otherWrapSameWay, slowRate);
        long reverse = physics.locateMillis(from, otherWrapOtherWay, slowRate);
        long band = physics.locateMillis(from, otherBand, slowRate);
        System.out.printf("200 m ahead: same wrap %d ms, other wrap %d ms, reversed wrap %d ms, other band %d ms%n",
                same, wrap, reverse, band);
        assertTrue(wrap > same, "wrap change " + wrap + " vs " + same);
        assertTrue(reverse > wrap, "direction change " + reverse + " vs " + wrap);
        assertTrue(band > wrap, "band change " + band + " vs " + wrap);
    }

    @Test
    void locate_targetJustBehindHead_costsBackHitch() {
        Head from = new Head(5_000_000, 8, 500);
        Head justBehind = new Head(4_000_000, 8, 499);
        Head justAhead = new Head(6_000_000, 8, 501);
        Head behindOnOtherSameWayWrap = new Head(650_000_000_000L, 10, 499);
        long behind = physics.locateMillis(from, justBehind, rate);
        long ahead = physics.locateMillis(from, justAhead, rate);
        long otherWrapBehind = physics.locateMillis(from, behindOnOtherSameWayWrap, rate);
        long otherWrapAhead = physics.locateMillis(from, new Head(650_000_000_000L, 10, 501), rate);
        assertTrue(behind >= ahead + TapePhysics.BACK_HITCH_MILLIS, behind + " vs " + ahead);
        assertTrue(otherWrapBehind >= otherWrapAhead + TapePhysics.BACK_HITCH_MILLIS - 1,
                otherWrapBehind + " vs " + otherWrapAhead);
    }

    @Test
    void rewind_fromFartherOut_takesLonger() {
        long nearBot = physics.rewindMillis(new Head(0, 0, 10));
        long nearEot = physics.rewindMillis(new Head(0, 1, 1_000));
        assertTrue(nearBot < 5_000, "rewind near BOT " + nearBot);
        assertTrue(nearEot > 100_000, "full rewind " + nearEot);
    }

    @Test
    void calibration_otherMediaTypes_useTheirOwnFigures() {
        TapePhysics lto8 = TapePhysics.of(MediaType.LTO8);
        assertNotEquals(lto8.fullLocatePassMillis(), physics.fullLocatePassMillis());
        System.out.printf("full pass at locate speed: LTO-9 %.1f s, LTO-8 %.1f s; full rewind LTO-9 %.1f s%n",
                physics.fullLocatePassMillis() / 1e3, lto8.fullLocatePassMillis() / 1e3,
                physics.fullRewindPassMillis() / 1e3);
    }
}
