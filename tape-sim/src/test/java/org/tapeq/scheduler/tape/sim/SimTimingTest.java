package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.time.VirtualEventLoop;

/** Mount, robot, streaming and filemark timing in loop time. */
class SimTimingTest {

    private static final MediaType LTO9 = MediaType.LTO9;

    private static SimHarness library(int drives, int arms, long calibration) throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        return new SimHarness(loop, SimulatedLibrary.builder(loop).sizeOnly().drives(drives).robotArms(arms)
                .newCartridgeCalibration(calibration).cartridges("A", 4, LTO9).build());
    }

    @Test
    void mount_oneArmTwoConcurrentMounts_secondWaitsForTheRobot() throws IOException {
        SimHarness h = library(2, 1, 0);
        SimHarness.Result<Void> first = new SimHarness.Result<>(h.loop);
        SimHarness.Result<Void> second = new SimHarness.Result<>(h.loop);
        h.library.mount("drive0", "A00000L9", first);
        h.library.mount("drive1", "A00001L9", second);
        h.loop.runUntilIdle();
        first.get();
        second.get();
        long exchange = SimulatedLibrary.DEFAULT_EXCHANGE_MILLIS;
        assertEquals(exchange + LTO9.loadMillis(), first.at());
        assertEquals(2 * exchange + LTO9.loadMillis(), second.at());
        assertEquals(exchange, h.library.stats().robotWaitMillis());
    }

    @Test
    void mount_twoArms_concurrentMountsDoNotWait() throws IOException {
        SimHarness h = library(2, 2, 0);
        SimHarness.Result<Void> first = new SimHarness.Result<>(h.loop);
        SimHarness.Result<Void> second = new SimHarness.Result<>(h.loop);
        h.library.mount("drive0", "A00000L9", first);
        h.library.mount("drive1", "A00001L9", second);
        h.loop.runUntilIdle();
        first.get();
        second.get();
        assertEquals(first.at(), second.at());
    }

    @Test
    void unmount_afterRead_rewindUnloadAndRobot() throws IOException {
        SimHarness h = library(1, 1, 0);
        h.mount("drive0", "A00000L9");
        h.append("drive0", SimHarness.size(3 * LTO9.bytesPerWrap() / 2));   // ends mid-wrap 1, near the middle
        long unmount = h.timed((Completion<Void> c) -> h.library.unmount("drive0", c));
        long rewind = h.library.stats().rewindMillis();
        assertEquals(rewind + LTO9.unloadMillis() + SimulatedLibrary.DEFAULT_EXCHANGE_MILLIS, unmount);
        assertTrue(rewind > 40_000 && rewind < 70_000, "rewind from mid-tape " + rewind);
    }

    @Test
    void mount_newCartridgeWithCalibration_onlyFirstLoadIsSlow() throws IOException {
        SimHarness h = library(1, 1, SimulatedLibrary.LTO9_CALIBRATION_MILLIS);
        long first = h.timed((Completion<Void> c) -> h.library.mount("drive0", "A00000L9", c));
        h.unmount("drive0");
        long second = h.timed((Completion<Void> c) -> h.library.mount("drive0", "A00000L9", c));
        long plain = SimulatedLibrary.DEFAULT_EXCHANGE_MILLIS + LTO9.loadMillis();
        assertEquals(plain + SimulatedLibrary.LTO9_CALIBRATION_MILLIS, first);
        assertEquals(plain, second);
    }

    @Test
    void append_smallFilesWithoutAggregation_aboutTwentyPercentOfDriveRate() throws IOException {
        double small = writeEfficiency(200 * SimHarness.MB, 100);
        double tiny = writeEfficiency(SimHarness.MB, 100);
        double large = writeEfficiency(20 * SimHarness.GB, 10);
        System.out.printf("write efficiency with one filemark per file: 1 MB %.2f %%, 200 MB %.1f %%, 20 GB %.1f %%%n",
                100 * tiny, 100 * small, 100 * large);
        assertEquals(0.20, small, 0.02);
        assertTrue(tiny < 0.01, "tiny files: " + tiny);
        assertTrue(large > 0.95, "large files: " + large);
    }

    private static double writeEfficiency(long fileBytes, int files) throws IOException {
        SimHarness h = library(1, 1, 0);
        h.mount("drive0", "A00000L9");
        long start = h.loop.now();
        for (int i = 0; i < files; i++) {
            h.append("drive0", SimHarness.size(fileBytes));
        }
        double seconds = (h.loop.now() - start) / 1e3;
        return fileBytes * (double) files / seconds / LTO9.rateBytesPerSecond();
    }

    @Test
    void read_slowDrive_takesLongerInProportion() throws IOException {
        SimHarness h = library(2, 2, 0);
        h.mount("drive0", "A00000L9");
        h.append("drive0", SimHarness.size(10 * SimHarness.GB));
        h.locateFile("drive0", 0);
        long normal = h.timed((Completion<Long> c) -> h.library.read("drive0", 0, Long.MAX_VALUE,
                org.tapeq.scheduler.tape.ByteSink.DISCARD, c));
        h.library.faults().slowDrive("drive0", 0.5);
        h.locateFile("drive0", 0);
        long slow = h.timed((Completion<Long> c) -> h.library.read("drive0", 0, Long.MAX_VALUE,
                org.tapeq.scheduler.tape.ByteSink.DISCARD, c));
        assertEquals(25_000, normal);
        assertEquals(50_000, slow);
    }
}
