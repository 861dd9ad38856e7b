package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.VirtualEventLoop;

/**
 * SIZE_ONLY in virtual time must cost microseconds per operation. Prints rates; asserts that all 20 000 appends
 * and 50 000 locate+read pairs complete and that the statistics count each of them. Tagged slow: a scale run
 * whose figures are the point, left out of the quick loop ({@code -Pfast}); the default build runs it.
 */
@Tag("slow")
class SimPerformanceTest {

    private static final int FILES = 20_000;
    private static final int OPS = 50_000;

    @Test
    void sizeOnlyVirtualTime_manyLocatesAndReads_finish() throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        SimulatedLibrary library = SimulatedLibrary.builder(loop).sizeOnly().drives(4)
                .cartridges("P", 4, MediaType.LTO9).build();
        String[] drives = {"drive0", "drive1", "drive2", "drive3"};
        for (int d = 0; d < drives.length; d++) {
            library.mount(drives[d], library.barcodes().get(d), ignore());
        }
        loop.runUntilIdle();

        long appendStart = System.nanoTime();
        for (int d = 0; d < drives.length; d++) {
            chainAppends(library, drives[d], FILES / drives.length);
        }
        loop.runUntilIdle();
        double appendSeconds = (System.nanoTime() - appendStart) / 1e9;

        int[] done = new int[1];
        long readStart = System.nanoTime();
        SplittableRandom random = new SplittableRandom(5);
        for (String drive : drives) {
            chainLocateRead(library, drive, OPS / drives.length, FILES / drives.length, random, done);
        }
        loop.runUntilIdle();
        double readSeconds = (System.nanoTime() - readStart) / 1e9;

        SimStats stats = library.stats();
        System.out.printf("SIZE_ONLY virtual time: %d appends in %.2f s (%.0f ops/s); %d locate+read pairs in %.2f s"
                        + " (%.0f ops/s); %.1f days of modelled time%n", FILES, appendSeconds, FILES / appendSeconds,
                OPS, readSeconds, 2 * OPS / readSeconds, loop.now() / 86_400_000d);
        assertEquals(OPS, done[0]);
        assertEquals(FILES, stats.appends());
        assertEquals(OPS, stats.reads());
        assertEquals(OPS, stats.locates());
    }

    private static void chainAppends(SimulatedLibrary library, String drive, int left) {
        if (left == 0) {
            return;
        }
        library.append(drive, SimHarness.size(500 * SimHarness.MB), new Completion<WrittenFile>() {
            @Override
            public void succeeded(WrittenFile value) {
                chainAppends(library, drive, left - 1);
            }

            @Override
            public void failed(org.tapeq.scheduler.model.TapeFault fault) {
                throw new AssertionError(fault);
            }
        });
    }

    private static void chainLocateRead(SimulatedLibrary library, String drive, int left, int files,
                                        SplittableRandom random, int[] done) {
        if (left == 0) {
            return;
        }
        library.locateFile(drive, random.nextInt(files), new Completion<Long>() {
            @Override
            public void succeeded(Long block) {
                library.read(drive, 0, Long.MAX_VALUE, ByteSink.DISCARD, new Completion<Long>() {
                    @Override
                    public void succeeded(Long bytes) {
                        done[0]++;
                        chainLocateRead(library, drive, left - 1, files, random, done);
                    }

                    @Override
                    public void failed(org.tapeq.scheduler.model.TapeFault fault) {
                        throw new AssertionError(fault);
                    }
                });
            }

            @Override
            public void failed(org.tapeq.scheduler.model.TapeFault fault) {
                throw new AssertionError(fault);
            }
        });
    }

    private static <T> Completion<T> ignore() {
        return new Completion<>() {
            @Override
            public void succeeded(T value) {
            }

            @Override
            public void failed(org.tapeq.scheduler.model.TapeFault fault) {
                throw new AssertionError(fault);
            }
        };
    }
}
