package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;

import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.time.VirtualEventLoop;

/** Statistics must add up to what happened. */
class SimStatsTest {

    @Test
    void stats_scriptedSession_countsBytesAndBusyTimeAddUp() throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        SimHarness h = new SimHarness(loop, SimulatedLibrary.builder(loop).sizeOnly().drives(2)
                .cartridges("B", 2, MediaType.LTO9).build());
        String a = "B00000L9";
        String b = "B00001L9";
        long mb = SimHarness.MB;

        h.mount("drive0", a);
        h.label("drive0", SimHarness.size(80));
        for (int i = 0; i < 3; i++) {
            h.append("drive0", SimHarness.size(500 * mb));
        }
        h.locateFile("drive0", 2);
        assertEquals(200 * mb, h.readCount("drive0", 300 * mb, 200 * mb));
        h.locate("drive0", 0);
        h.run((Completion<Long> c) -> h.library.locateFile("drive0", 9, c)).failed();
        h.unmount("drive0");
        h.mount("drive1", a);
        h.mount("drive0", b);
        long elapsed = loop.now();

        SimStats s = h.library.stats();
        System.out.print(s.format());
        assertEquals(3, s.mounts());
        assertEquals(1, s.unmounts());
        assertEquals(2, s.locates());
        assertEquals(1, s.reads());
        assertEquals(3, s.appends());
        assertEquals(1, s.labels());
        assertEquals(1, s.failedOps());
        assertEquals(200 * mb, s.bytesRead());
        assertEquals(300 * mb, s.bytesSkipped());
        assertEquals(80 + 1500 * mb, s.bytesWritten());
        assertEquals(4, s.filemarks());
        assertEquals(4, s.robotMoves());
        assertEquals(2, s.mounts(a));
        assertEquals(1, s.mounts(b));
        SimStats.DriveStats d0 = s.drives().get("drive0");
        SimStats.DriveStats d1 = s.drives().get("drive1");
        // drive0 was busy all the time except while drive1 mounted (the two last mounts ran one after the other).
        long drive1Mount = SimulatedLibrary.DEFAULT_EXCHANGE_MILLIS + MediaType.LTO9.loadMillis();
        assertEquals(elapsed - drive1Mount, d0.busyMillis());
        assertEquals(drive1Mount, d1.busyMillis());
        assertEquals(d0.locateMillis() + d1.locateMillis(), s.locateMillis());
        assertEquals(s.locateMillis(), s.locateMillis("drive0"));
        assertEquals(1_250, d0.readMillis(), "300 MB skipped plus 200 MB read at 400 MB/s");
        assertEquals(4 * SimulatedLibrary.DEFAULT_FILEMARK_MILLIS + 3 * 1_250, d0.writeMillis(), 1);
        assertEquals(11, d0.operations(), "2 mounts, label, 3 appends, 2 locates, read, failed locate, unmount");
        assertEquals(0, d0.faultMillis(), "the failed locate was spent positioning");
    }

    @Test
    void stats_readInSizeOnlyMode_sinkNeverOpened() throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        SimHarness h = new SimHarness(loop, SimulatedLibrary.builder(loop).sizeOnly().drives(1)
                .cartridges("B", 1, MediaType.LTO9).build());
        h.mount("drive0", "B00000L9");
        h.append("drive0", SimHarness.size(10 * SimHarness.MB));
        h.locateFile("drive0", 0);
        ByteSink sink = () -> {
            throw new AssertionError("sink opened in SIZE_ONLY mode");
        };
        assertEquals(10 * SimHarness.MB, (long) h.run((Completion<Long> c) -> h.library.read("drive0", 0,
                Long.MAX_VALUE, sink, c)).get());
    }
}
