package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tapeq.scheduler.model.MediaType;

class LocateCostModelTest {

    private static final int BLOCK = 256 * 1024;
    private static final double EPS = 0.01;

    /** CTA's LTO-8 model: published coefficients, distance per LPOS unit times CTA's LPOS span. */
    private final EstimatedGeometry lto8 = new EstimatedGeometry(MediaType.LTO8, BLOCK);
    private final LocateCostModel cta = new LocateCostModel(lto8,
            LocateCostModel.CTA_SECONDS_PER_LPOS * LocateCostModel.CTA_LTO8_LPOS_SPAN);

    private long at(int wrap, double lpos) {
        double along = EstimatedGeometry.isForward(wrap) ? lpos : 1 - lpos;
        return (long) Math.ceil((wrap + along) * lto8.blocksPerWrap());
    }

    @Test
    void locate_toTheHeadPosition_isFree() {
        assertEquals(0.0, cta.locateSeconds(12345, 12345));
    }

    @Test
    void locate_wrapChangeOnly_costsConstantPlusWrapChange() {
        assertEquals(4.29 + 6.69, cta.locateSeconds(at(0, 0.2), at(2, 0.2)), EPS);
    }

    @Test
    void locate_toNeighbourWrapBack_addsDirectionChange() {
        assertEquals(4.29 + 6.69 + 5.22, cta.locateSeconds(at(0, 0.2), at(1, 0.2)), EPS);
    }

    @Test
    void locate_toAnotherBand_addsBandChange() {
        assertEquals(52, lto8.wrapsPerBand());
        assertEquals(4.29 + 6.69 + 3.2, cta.locateSeconds(at(50, 0.2), at(52, 0.2)), EPS);
    }

    @Test
    void locate_behindOnTheSameWrap_addsStepBackAndDistance() {
        double expected = 4.29 + 11.32 + 0.0006192 * 168_401 * 0.2;
        assertEquals(expected, cta.locateSeconds(at(4, 0.4), at(4, 0.2)), EPS);
        assertEquals(expected, cta.locateSeconds(at(5, 0.2), at(5, 0.4)), EPS, "odd wraps run back");
    }

    @Test
    void locate_intoTheOtherTapeHalf_subtractsLandingZoneChange() {
        double expected = 4.29 + 6.69 - 6.04 + 0.0006192 * 168_401 * 0.4;
        assertEquals(expected, cta.locateSeconds(at(0, 0.3), at(2, 0.7)), EPS);
    }

    @Test
    void locate_shortHopAcrossMidTape_isNeverCheaperThanTheConstant() {
        // a slow drive, so that reading through the gap is no alternative
        MediaType slow = new MediaType("slow", "SL", MediaType.LTO8.capacityBytes(), 1_000_000L, 208, 4, 1, 1,
                50_000, 1);
        EstimatedGeometry g = new EstimatedGeometry(slow, BLOCK);
        LocateCostModel model = new LocateCostModel(g, cta.secondsPerLength());
        long from = (long) (0.495 * g.blocksPerWrap());
        long to = (long) (0.505 * g.blocksPerWrap());
        assertEquals(4.29, model.locateSeconds(from, to), EPS, "4.29 - 6.04 + 1.04 would be negative");
    }

    @Test
    void locate_smallGapAhead_readsThroughAtNativeRate() {
        long from = at(0, 0.3);
        assertEquals(lto8.readSeconds(100), cta.locateSeconds(from, from + 100), 1e-9);
        long far = at(0, 0.5);
        assertTrue(cta.locateSeconds(from, far) < lto8.readSeconds(far - from), "a locate beats reading 0.2 wraps");
    }

    @Test
    void locate_positionsAndBlocks_agree() {
        long a = at(7, 0.8);
        long b = at(130, 0.1);
        assertEquals(cta.locateSeconds(a, b), cta.locateSeconds(lto8.position(a), lto8.position(b)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"LTO-8", "LTO-9", "TS1160"})
    void of_meanLocateFromLoadPoint_matchesTheMediaAverage(String name) {
        MediaType media = MediaType.byName(name).orElseThrow();
        EstimatedGeometry g = new EstimatedGeometry(media, BLOCK);
        LocateCostModel model = LocateCostModel.of(g);
        SplittableRandom random = new SplittableRandom(7);
        long blocks = media.capacityBytes() / BLOCK;
        double sum = 0;
        int samples = 200_000;
        for (int i = 0; i < samples; i++) {
            sum += model.locateSeconds(0, random.nextLong(blocks));
        }
        double mean = sum / samples;
        System.out.printf("%s: %.1f s per tape length, mean locate from BOT %.2f s (media %.1f s)%n", name,
                model.secondsPerLength(), mean, media.averageLocateMillis() / 1000.0);
        assertEquals(media.averageLocateMillis() / 1000.0, mean, 0.5);
    }

    @Test
    void of_lto9_travelsATapeLengthInAbout64Seconds() {
        assertEquals(64.1, LocateCostModel.of(new EstimatedGeometry(MediaType.LTO9, BLOCK)).secondsPerLength(), 0.1);
        assertEquals(104.3, cta.secondsPerLength(), 0.1);
    }

    @Test
    void readSeconds_oneGigabyteOnLto9_isTwoAndAHalfSeconds() {
        EstimatedGeometry g = new EstimatedGeometry(MediaType.LTO9, 1_000_000);
        assertEquals(2.5, LocateCostModel.of(g).readSeconds(1000, 2000), 1e-9);
    }

    @Test
    void constructor_nonPositiveDistanceCoefficient_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> new LocateCostModel(lto8, 0));
    }
}
