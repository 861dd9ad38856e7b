package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.VirtualEventLoop;

/** Block addresses as a drive reports them: data blocks, then one address per filemark. */
class SimBlockAddressTest {

    private static final int BS = 1000;
    private SimHarness h;

    @BeforeEach
    void setUp() throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        h = new SimHarness(loop, SimulatedLibrary.builder(loop).sizeOnly().blockSize(BS).drives(1)
                .cartridge("A00001L9").build());
        h.mount("drive0", "A00001L9");
    }

    @Test
    void append_variousSizes_blocksThenOneFilemarkAddressEach() {
        assertEquals(new WrittenFile(0, 0, 1, 80), h.label("drive0", SimHarness.size(80)));      // 0, FM 1
        assertEquals(new WrittenFile(1, 2, 0, 0), h.append("drive0", SimHarness.size(0)));        // FM 2
        assertEquals(new WrittenFile(2, 3, 1, 1), h.append("drive0", SimHarness.size(1)));        // 3, FM 4
        assertEquals(new WrittenFile(3, 5, 1, BS), h.append("drive0", SimHarness.size(BS)));      // 5, FM 6
        assertEquals(new WrittenFile(4, 7, 2, BS + 1), h.append("drive0", SimHarness.size(BS + 1))); // 7-8, FM 9
        assertEquals(new WrittenFile(5, 10, 3, 3 * BS), h.append("drive0", SimHarness.size(3 * BS)));
        assertEquals(14, h.library.cartridge("A00001L9").files.eodBlock());

        assertEquals(7, h.locateFile("drive0", 4));
        assertEquals(10, h.locateFile("drive0", 5));
        assertEquals(2, h.locateFile("drive0", 1));
        assertEquals(0, h.readCount("drive0", 0, 100), "an empty tape file is just a filemark");
    }

    @Test
    void read_positionsAfterLastBlockRead() {
        h.label("drive0", SimHarness.size(80));
        WrittenFile f = h.append("drive0", SimHarness.size(3 * BS + 500));   // blocks 2..5, FM 6
        h.locateFile("drive0", 1);
        assertEquals(1, h.readCount("drive0", 0, 1));
        assertEquals(f.startBlock() + 1, h.library.drive("drive0").position);
        assertEquals(2 * BS + 500, h.readCount("drive0", 0, Long.MAX_VALUE), "continues at the next block");
        assertEquals(f.startBlock() + f.blockCount(), h.library.drive("drive0").position, "at the filemark");
        assertEquals(0, h.readCount("drive0", 0, Long.MAX_VALUE));

        h.locate("drive0", f.startBlock() + 3);
        assertEquals(400, h.readCount("drive0", 100, Long.MAX_VALUE), "skip inside the last, short block");
        h.locate("drive0", f.startBlock() + 1);
        assertEquals(0, h.readCount("drive0", 5 * BS, 10), "a skip beyond the filemark delivers nothing");
        assertEquals(f.startBlock() + f.blockCount(), h.library.drive("drive0").position);
    }

    @Test
    void beyondEndOfData_locateAndReadFailNotFound() {
        h.label("drive0", SimHarness.size(80));
        h.append("drive0", SimHarness.size(5 * BS));       // 2..6, FM 7, EOD 8
        h.run((Completion<Void> c) -> h.library.locate("drive0", 9, c)).fault(FaultKind.NOT_FOUND);
        h.run((Completion<Long> c) -> h.library.locateFile("drive0", 2, c)).fault(FaultKind.NOT_FOUND);
        h.run((Completion<Void> c) -> h.library.locate("drive0", -1, c)).fault(FaultKind.NOT_FOUND);
        h.run((Completion<Long> c) -> h.library.locateFile("drive0", -1, c)).fault(FaultKind.NOT_FOUND);
        h.locate("drive0", 8);
        h.run((Completion<Long> c) -> h.library.read("drive0", 0, 1, org.tapeq.scheduler.tape.ByteSink.DISCARD, c))
                .fault(FaultKind.NOT_FOUND);
        h.locate("drive0", 7);
        assertEquals(0, h.readCount("drive0", 0, 1), "the filemark before EOD reads as 0 bytes");
    }

    @Test
    void append_headAnywhere_writesAtEndOfData() {
        h.label("drive0", SimHarness.size(80));
        h.append("drive0", SimHarness.size(4 * BS));
        h.locate("drive0", 0);
        WrittenFile next = h.append("drive0", SimHarness.size(10));
        assertEquals(new WrittenFile(2, 7, 1, 10), next);
        long before = h.library.stats().locateMillis();
        h.append("drive0", SimHarness.size(10));
        assertEquals(before, h.library.stats().locateMillis(), "already at end of data: no positioning");
    }
}
