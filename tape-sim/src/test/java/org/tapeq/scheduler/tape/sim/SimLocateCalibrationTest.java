package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.time.VirtualEventLoop;

/** Monte Carlo through the library: averages against the vendor figures the model is calibrated to. */
class SimLocateCalibrationTest {

    private static final int SAMPLES = 2_000;

    /** A full cartridge (100 files) in drive0. */
    private static SimHarness fullTape(MediaType media, long seed) throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        SimHarness h = new SimHarness(loop, SimulatedLibrary.builder(loop).sizeOnly().drives(1).seed(seed)
                .cartridges("C", 1, media).build());
        String barcode = h.library.barcodes().get(0);
        h.mount("drive0", barcode);
        for (int i = 0; i < 100; i++) {
            h.append("drive0", SimHarness.size(media.capacityBytes() / 100));
        }
        return h;
    }

    @Test
    void locate_fromLoadPointToRandomBlock_averagesAbout45sOnLto9() throws IOException {
        double average = averageLocateFromBot(MediaType.LTO9, 11);
        assertEquals(45.0, average, 45.0 * 0.15);
    }

    @Test
    void locate_fromLoadPoint_otherSeedAndLto8_matchTheirFigures() throws IOException {
        assertEquals(45.0, averageLocateFromBot(MediaType.LTO9, 12), 45.0 * 0.15);
        double lto8 = MediaType.LTO8.averageLocateMillis() / 1e3;
        assertEquals(lto8, averageLocateFromBot(MediaType.LTO8, 13), lto8 * 0.15);
    }

    private static double averageLocateFromBot(MediaType media, long seed) throws IOException {
        SimHarness h = fullTape(media, seed);
        long eod = h.library.cartridge(h.library.barcodes().get(0)).files.eodBlock();
        SplittableRandom random = new SplittableRandom(seed);
        long total = 0;
        long max = 0;
        for (int i = 0; i < SAMPLES; i++) {
            h.locate("drive0", 0);                 // the load point: offset 0 on wrap 0
            long block = random.nextLong(eod);
            long millis = h.timed((Completion<Void> c) -> h.library.locate("drive0", block, c));
            total += millis;
            max = Math.max(max, millis);
        }
        double average = total / 1e3 / SAMPLES;
        System.out.printf("%s seed %d: average locate from load point %.1f s (max %.1f s) over %d random blocks%n",
                media.name(), seed, average, max / 1e3, SAMPLES);
        return average;
    }

    @Test
    void rewind_fromRandomPosition_averagesAbout55sOnLto9() throws IOException {
        SimHarness h = fullTape(MediaType.LTO9, 21);
        String barcode = h.library.barcodes().get(0);
        long eod = h.library.cartridge(barcode).files.eodBlock();
        SplittableRandom random = new SplittableRandom(21);
        int samples = SAMPLES;
        long before = h.library.stats().rewindMillis();
        for (int i = 0; i < samples; i++) {
            h.locate("drive0", random.nextLong(eod));
            h.unmount("drive0");
            h.mount("drive0", barcode);
        }
        double average = (h.library.stats().rewindMillis() - before) / 1e3 / samples;
        System.out.printf("LTO-9: average rewind %.1f s over %d random positions%n", average, samples);
        assertEquals(55.0, average, 55.0 * 0.15);
    }

    @Test
    void locate_neighbouringFiles_sameWrapForwardIsFarCheaperThanRandom() throws IOException {
        SimHarness h = fullTape(MediaType.LTO9, 31);
        // Files of 180 GB: file 10 starts inside a wrap; a 1 GB hop forward stays on that wrap.
        long start = h.locateFile("drive0", 10);
        long hop = h.timed((Completion<Void> c) -> h.library.locate("drive0", start + 4_000, c));
        System.out.printf("LTO-9: 1 GB forward hop on the same wrap %.2f s%n", hop / 1e3);
        assertEquals(2.6, hop / 1e3, 0.2);
    }
}
