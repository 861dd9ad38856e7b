package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

class CartridgeLayoutsTest {

    private final EstimatedGeometry nominal = new EstimatedGeometry(MediaType.LTO9, 256 * 1024);
    private final CartridgeLayouts layouts = new CartridgeLayouts();

    private void locates(String barcode, LayoutFitTest.SyntheticTape tape, int n, long seed) {
        Random random = new Random(seed);
        long head = 0;
        for (int i = 0; i < n; i++) {
            long to = (long) (random.nextDouble() * tape.lastBlock() * 0.97);
            layouts.located(barcode, nominal, head, to, Math.round(tape.seconds(head, to) * 1000));
            head = to + 1_000;
        }
    }

    @Test
    void located_offsetTape_learnsItsScaleAndLeavesOthersNominal() {
        locates("A00001L9", new LayoutFitTest.SyntheticTape(nominal, 1.03, 0.5, 1), 40, 2);
        assertEquals(1.03, layouts.lastFit("A00001L9").scale(), 2 * LayoutFit.STEP);
        assertNotSame(nominal, layouts.geometry("A00001L9", nominal));
        assertSame(nominal, layouts.geometry("A00002L9", nominal));
    }

    @Test
    void located_unknownStartOrNoMove_isIgnored() {
        layouts.located("A00001L9", nominal, -1, 5, 1000);
        layouts.located("A00001L9", nominal, 5, 5, 1000);
        assertEquals(0, layouts.size());
    }

    @Test
    void wrapEnds_reportedByTheDrive_replaceTheLearntEstimate() {
        long[] ends = new long[nominal.wraps()];
        for (int w = 0; w < ends.length; w++) {
            ends[w] = (long) ((w + 1) * nominal.blocksPerWrap() * 1.01);
        }
        layouts.wrapEnds("A00001L9", nominal, ends);
        locates("A00001L9", new LayoutFitTest.SyntheticTape(nominal, 1.03, 0.5, 1), 40, 2);
        EstimatedGeometry g = layouts.geometry("A00001L9", nominal);
        assertEquals(nominal.withWrapEnds(ends).wrap(ends[100]), g.wrap(ends[100]));
        assertEquals(101, g.wrap(ends[100]));
    }

    @Test
    void located_moreCartridgesThanTheBound_dropsTheLeastRecentlyUsed() {
        for (int i = 0; i <= CartridgeLayouts.MAX_CARTRIDGES; i++) {
            layouts.located("C" + i, nominal, 0, 100, 5000);
        }
        assertEquals(CartridgeLayouts.MAX_CARTRIDGES, layouts.size());
    }
}
