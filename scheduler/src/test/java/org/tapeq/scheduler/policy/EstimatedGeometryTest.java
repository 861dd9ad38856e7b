package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

class EstimatedGeometryTest {

    private static final int BLOCK = 256 * 1024;
    private final EstimatedGeometry lto9 = new EstimatedGeometry(MediaType.LTO9, BLOCK);

    /** The first block whose byte offset lies at {@code fraction} of wrap {@code wrap}. */
    private long blockAt(int wrap, double fraction) {
        return (long) Math.ceil((wrap + fraction) * lto9.blocksPerWrap());
    }

    @Test
    void position_blockZero_isBotOfWrapZeroRunningForward() {
        EstimatedGeometry.Position p = lto9.position(0);
        assertEquals(new EstimatedGeometry.Position(0, 0, 0, 0.0, true), p);
    }

    @Test
    void position_lastBlockOfWrapZero_isNearEot() {
        long last = blockAt(1, 0) - 1;
        assertEquals(0, lto9.wrap(last));
        assertTrue(lto9.lpos(last) > 0.9999, "lpos " + lto9.lpos(last));
    }

    @Test
    void position_firstBlockOfWrapOne_isNearEotRunningBack() {
        EstimatedGeometry.Position p = lto9.position(blockAt(1, 0));
        assertEquals(1, p.wrap());
        assertFalse(p.forward());
        assertTrue(p.lpos() > 0.9999, "lpos " + p.lpos());
    }

    @Test
    void position_blockOnWrapOneNearBot_isAtEndOfThatWrap() {
        EstimatedGeometry.Position p = lto9.position(blockAt(1, 0.99));
        assertEquals(1, p.wrap());
        assertEquals(0.01, p.lpos(), 1e-6);
    }

    @Test
    void lpos_blocksFarApartOnNeighbouringWraps_sitAtTheSameLongitudinalPosition() {
        long onWrap2 = blockAt(2, 0.3);
        long onWrap3 = blockAt(3, 0.7);
        assertTrue(onWrap3 - onWrap2 > lto9.blocksPerWrap() / 2, "far apart in block order");
        assertEquals(lto9.lpos(onWrap2), lto9.lpos(onWrap3), 1e-5, "within a block");
        assertEquals(0.3, lto9.lpos(onWrap2), 1e-5);
    }

    @Test
    void wrap_byteOffsetOverBytesPerWrap_givesWrap() {
        long bytesPerWrap = MediaType.LTO9.bytesPerWrap();
        assertEquals(0, lto9.wrap((bytesPerWrap - 1) / BLOCK));
        assertEquals(17, lto9.wrap(17 * bytesPerWrap / BLOCK + 1));
        assertEquals(279, lto9.wrap(MediaType.LTO9.capacityBytes() / BLOCK - 1));
    }

    @Test
    void wrap_blockBeyondCapacity_isClampedToEndOfLastWrap() {
        long beyond = MediaType.LTO9.capacityBytes() / BLOCK * 2;
        assertEquals(279, lto9.wrap(beyond));
        assertEquals(0.0, lto9.lpos(beyond), 1e-12, "the last wrap runs back, so it ends at BOT");
        assertEquals(279, lto9.wrap(Long.MAX_VALUE));
    }

    @Test
    void band_lto9_splitsWrapsIntoFourBandsOf70() {
        assertEquals(70, lto9.wrapsPerBand());
        assertEquals(0, lto9.band(0));
        assertEquals(0, lto9.band(69));
        assertEquals(1, lto9.band(70));
        assertEquals(2, lto9.band(140));
        assertEquals(3, lto9.band(279));
        assertEquals(3, lto9.position(blockAt(250, 0.5)).band());
    }

    @Test
    void band_uneven_remainderGoesToLastBand() {
        MediaType odd = new MediaType("odd", "OD", 10_000_000_000L, 100_000_000L, 10, 4, 1, 1, 30_000, 1);
        EstimatedGeometry g = new EstimatedGeometry(odd, 4096);
        assertEquals(2, g.wrapsPerBand());
        assertEquals(3, g.band(7));
        assertEquals(3, g.band(9));
    }

    @Test
    void wrapSeconds_lto9_isAbout160Seconds() {
        assertEquals(160.7, lto9.wrapSeconds(), 0.1); // reference: about 64 GB and ~160 s per wrap
        assertEquals(2.5, lto9.readSeconds(1_000_000_000L / BLOCK), 0.01);
    }

    @Test
    void constructor_invalidArguments_areRejected() {
        assertThrows(IllegalArgumentException.class, () -> new EstimatedGeometry(MediaType.LTO9, 0));
        assertThrows(IllegalArgumentException.class, () -> lto9.position(-1));
    }

    @Test
    void withWrapEnds_usesTheDriveReportedWrapsInsteadOfNominalOnes() {
        long[] ends = new long[MediaType.LTO9.wraps()];
        long perWrap = (long) (lto9.blocksPerWrap() * 1.03); // every wrap holds 3 % more than nominal
        for (int w = 0; w < ends.length; w++) {
            ends[w] = (w + 1) * perWrap;
        }
        EstimatedGeometry reported = lto9.withWrapEnds(ends);
        long middle = 140 * perWrap + perWrap / 4; // a quarter into wrap 140 (even: forward)
        assertEquals(140, reported.wrap(middle));
        assertEquals(0.25, reported.lpos(middle), 1e-4);
        assertTrue(lto9.wrap(middle) >= 144, "the nominal estimate is wraps off: " + lto9.wrap(middle));
        assertEquals(141, reported.wrap(141 * perWrap), "a wrap's end block is the first of the next wrap");
        assertEquals(1.0, reported.lpos(141 * perWrap), 1e-9, "wrap 141 runs back from EOT");
        assertThrows(IllegalArgumentException.class, () -> lto9.withWrapEnds(new long[] {1, 2}));
    }
}
