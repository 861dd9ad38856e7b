package org.tapeq.scheduler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.ToDoubleBiFunction;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;

class CartridgeLayoutsTest {

    private final EstimatedGeometry nominal = new EstimatedGeometry(MediaType.LTO9, 256 * 1024);
    private final CartridgeLayouts layouts = new CartridgeLayouts();

    private void locates(String barcode, LayoutFitTest.SyntheticTape tape, int n, long seed) {
        locate(barcode, tape.lastBlock(), tape::seconds, 0.97, 1_000, n, seed);
    }

    /**
     * {@code n} random locates from block 0 to at most {@code reach} of {@code lastBlock}, each read moving the head
     * {@code step} blocks on, timed by {@code seconds}.
     */
    private void locate(String barcode, long lastBlock, ToDoubleBiFunction<Long, Long> seconds, double reach,
                        long step, int n, long seed) {
        Random random = new Random(seed);
        long head = 0;
        for (int i = 0; i < n; i++) {
            long to = (long) (random.nextDouble() * lastBlock * reach);
            layouts.located(barcode, nominal, head, to, Math.round(seconds.applyAsDouble(head, to) * 1000), true);
            head = to + step;
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
    void located_shortHopsAfterTheScaleWasLearnt_keepTheScale() {
        LayoutFitTest.SyntheticTape tape = new LayoutFitTest.SyntheticTape(nominal, 1.03, 0.5, 1);
        locates("A00001L9", tape, 40, 2);
        assertEquals(1.03, layouts.lastFit("A00001L9").scale(), 2 * LayoutFit.STEP);
        // then a read pass's hops between neighbours late on the tape: on one wrap every scale predicts the same
        // distance, so the latest 64 locates alone tell no scale from nominal (which is 6 wraps off there)
        Random random = new Random(3);
        long perWrap = Math.round(nominal.blocksPerWrap() * 1.03);
        long head = 200 * perWrap + perWrap / 10;
        for (int i = 0; i < 80; i++) {
            long to = head + perWrap / 200 + (long) (random.nextDouble() * perWrap / 100);
            layouts.located("A00001L9", nominal, head, to, Math.round(tape.seconds(head, to) * 1000), false);
            head = to + 1_000;
            if (head > 200 * perWrap + perWrap * 9 / 10) {
                head = 200 * perWrap + perWrap / 10;
            }
        }
        assertEquals(1.03, layouts.lastFit("A00001L9").scale(), 2 * LayoutFit.STEP,
                "the scale all the locates support is kept");
        assertEquals(tape.wrap(205 * perWrap), layouts.geometry("A00001L9", nominal).wrap(205 * perWrap));
    }

    @Test
    void located_irregularWraps_learnsTheirBoundariesOnlyWhenAsked() {
        WrapFitTest.IrregularTape tape = new WrapFitTest.IrregularTape(nominal, 0, 0.10, 0.3, 1);
        Random random = new Random(2);
        long head = 0;
        for (int i = 0; i < 500; i++) {
            long to = (long) (random.nextDouble() * tape.lastBlock() * 0.995);
            long millis = Math.round(tape.seconds(head, to) * 1000);
            layouts.located("A00001L9", nominal, head, to, millis, true);
            layouts.located("A00002L9", nominal, head, to, millis, false);
            head = to + 4_000;
        }
        double perWrap = nominal.blocksPerWrap();
        EstimatedGeometry learnt = layouts.geometry("A00001L9", nominal);
        EstimatedGeometry scaled = layouts.geometry("A00002L9", nominal);
        // measured: mean 0.03 wrap learnt (0.49 at the worst wrap end, where few locates ended), 0.23 on one scale
        assertTrue(tape.meanEndError(learnt, perWrap) < 0.06,
                "wrap ends within 0.06 wrap on average: " + tape.meanEndError(learnt, perWrap));
        assertTrue(tape.meanEndError(scaled, perWrap) > 0.15,
                "one scale leaves them more than 0.15 wrap off: " + tape.meanEndError(scaled, perWrap));
        assertTrue(learnt.hasWrapEnds(), "the fitted boundaries are the estimate");
        assertEquals(null, layouts.lastWrapFit("A00002L9"), "no boundary fit where only the scale is learnt");
    }

    /**
     * Twelve +-10 % cartridges, each learnt over one mount of 500 random locates: the mean error of the learnt wrap
     * ends over all twelve. Measured: 0.038 wrap (one cartridge at 0.18, the others 0.020-0.030); with a fit from
     * scratch only when the locates had doubled (at 256, then not again before 512) and no comparison with the
     * refined last fit, 0.094 (two cartridges left at 0.40 and 0.46 in the wrong mode of an earlier fit).
     */
    @Test
    void located_tenPerCentJitter_learnsTheWrapEndsOfMostCartridges() {
        double perWrap = nominal.blocksPerWrap();
        double sum = 0;
        StringBuilder errors = new StringBuilder();
        for (long seed = 1; seed <= 12; seed++) {
            WrapFitTest.IrregularTape tape = new WrapFitTest.IrregularTape(nominal, 0, 0.10, 0.3, seed);
            Random random = new Random(seed + 50);
            String barcode = String.format("B%05dL9", seed);
            long head = 0;
            for (int i = 0; i < 500; i++) {
                long to = (long) (random.nextDouble() * tape.lastBlock() * 0.995);
                layouts.located(barcode, nominal, head, to, Math.round(tape.seconds(head, to) * 1000), true);
                head = to + 4_000;
            }
            double e = tape.meanEndError(layouts.geometry(barcode, nominal), perWrap);
            errors.append(String.format(" %.3f", e));
            sum += e;
        }
        assertTrue(sum / 12 < 0.06, "wrap ends within 0.06 wrap on average over 12 cartridges, per cartridge:"
                + errors);
    }

    /** {@code n} random locates on {@code tape} from block 0, the wrap boundaries learnt. */
    private void learn(String barcode, WrapFitTest.IrregularTape tape, int n, long seed) {
        locate(barcode, tape.lastBlock(), tape::seconds, 0.995, 4_000, n, seed);
    }

    /** The middle block of wrap {@code w} of {@code tape}. */
    private static long middle(WrapFitTest.IrregularTape tape, int w) {
        return (tape.ends[w - 1] + tape.ends[w]) / 2;
    }

    @Test
    void geometry_secondCartridgeOfTheMedia_startsFromTheCoefficientsAndScaleTheFirstLearnt() {
        // a library whose cartridges all hold 3 % more per wrap (+-2 % per wrap), its drives slower to settle and
        // faster to travel than CTA's LTO-8 fit
        learn("A00001L9", new WrapFitTest.IrregularTape(nominal, 0.03, 0.02, 0.3, 1), 300, 2);
        assertTrue(layouts.lastWrapFit("A00001L9").accepted(), "the first cartridge's boundaries were learnt");

        WrapFitTest.IrregularTape second = new WrapFitTest.IrregularTape(nominal, 0.03, 0.02, 0.3, 3);
        EstimatedGeometry first = layouts.geometry("A00002L9", nominal);
        LocateCosts costs = first.locateCosts();
        assertTrue(costs != null, "the second cartridge's first order is priced with the learnt coefficients");
        assertEquals(costs, LocateCostModel.of(first).costs());
        // the IrregularTape's drive: 2.5 s settle, 71 s per tape length (CTA's fit: 4.29 s, 64 s calibrated)
        assertEquals(71, costs.perLength(), 7, costs.toString());
        assertEquals(200, first.wrap(middle(second, 200)), "and placed on the learnt scale");
        assertEquals(206, nominal.wrap(middle(second, 200)), "(the nominal estimate is 6 wraps off there)");

        // its own first locates agree with the prior: kept, the same estimate (no replan)
        learn("A00002L9", second, 16, 4);
        assertSame(first, layouts.geometry("A00002L9", nominal));
        assertSame(nominal, layouts.geometry("A00003L9", nominal, false), "only for the policies that learn");
    }

    @Test
    void located_aPriorThatDoesNotFitTheCartridge_isDropped() {
        learn("A00001L9", new WrapFitTest.IrregularTape(nominal, 0.03, 0.02, 0.3, 1), 300, 2);
        assertTrue(layouts.geometry("A00002L9", nominal).locateCosts() != null, "a prior was learnt");

        // a cartridge that is exactly nominal, read by a drive that moves as CTA's defaults say
        LocateCostModel defaults = LocateCostModel.of(nominal);
        locate("A00002L9", (long) (nominal.blocksPerWrap() * nominal.wraps()), defaults::locateSeconds, 0.99, 4_000,
                16, 5);
        EstimatedGeometry g = layouts.geometry("A00002L9", nominal);
        assertNull(g.locateCosts(), "the prior's coefficients explain its locates worse than the defaults");
        long late = (long) (250.5 * nominal.blocksPerWrap());
        assertEquals(250, g.wrap(late), "and the prior's scale, worse than nominal, is dropped too");
    }

    @Test
    void located_unknownStartOrNoMove_isIgnored() {
        layouts.located("A00001L9", nominal, -1, 5, 1000, true);
        layouts.located("A00001L9", nominal, 5, 5, 1000, true);
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

    /**
     * A partly written cartridge as the drive is inferred to report it (from CTA's RAOHelpers, not checked against
     * GA32-0928 5.2.20): the 100 wraps holding data, the last one ending at end of data, on a tape whose wraps hold
     * 3 % more than nominal.
     */
    @Test
    void wrapEnds_onlyTheWrittenWraps_areCompletedFromTheMeasuredWraps() {
        double perWrap = nominal.blocksPerWrap() * 1.03;
        long[] reported = new long[100];
        for (int w = 0; w < reported.length; w++) {
            reported[w] = (long) ((w + 1) * perWrap);
        }
        long eod = (long) (99.25 * perWrap); // a quarter into wrap 99
        reported[99] = eod;
        layouts.wrapEnds("A00001L9", nominal, reported);
        EstimatedGeometry g = layouts.geometry("A00001L9", nominal);
        assertTrue(g.hasWrapEnds(), "the report was used, not ignored");
        assertEquals(50, g.wrap(reported[49]), "a completed wrap's end as reported");
        assertEquals(99, g.wrap(eod - 1), "the last block written lies on the wrap holding end of data");
        long laterAppend = (long) (150.5 * perWrap); // written after the load: on wrap 150 of the real tape
        assertEquals(150, g.wrap(laterAppend), "unwritten wraps follow the measured length, not the nominal one");
        assertEquals(155, nominal.wrap(laterAppend), "(the nominal estimate is 5 wraps off there)");
    }

    @Test
    void wrapEnds_onlyTheWrapHoldingEndOfData_isRefusedAndTheEstimateStays() {
        assertThrows(IllegalArgumentException.class,
                () -> layouts.wrapEnds("A00001L9", nominal, new long[] {1_000}));
        assertSame(nominal, layouts.geometry("A00001L9", nominal));
    }

    @Test
    void located_moreCartridgesThanTheBound_dropsTheLeastRecentlyUsed() {
        for (int i = 0; i <= CartridgeLayouts.MAX_CARTRIDGES; i++) {
            layouts.located("C" + i, nominal, 0, 100, 5000, true);
        }
        assertEquals(CartridgeLayouts.MAX_CARTRIDGES, layouts.size());
    }
}
