package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.VirtualEventLoop;

/**
 * Tape files appended with buffered marks and not flushed are lost when the drive is reset, fails or unloads
 * before the flush, and a flush then fails its check instead of succeeding.
 */
class DriveBufferTest {

    private static final String TAPE = "A00000L9";

    @TempDir
    Path dir;

    private final VirtualEventLoop loop = new VirtualEventLoop(0);

    private SimHarness open() throws IOException {
        return new SimHarness(loop, SimulatedLibrary.builder(loop).bytes(dir).drives(1)
                .cartridges("A", 1, MediaType.LTO9).build());
    }

    /** A library with the cartridge labelled in drive0. */
    private SimHarness labelledInDrive() throws IOException {
        SimHarness h = open();
        h.mount("drive0", TAPE);
        h.label("drive0", SimHarness.bytes(new byte[80]));
        return h;
    }

    private WrittenFile appendBuffered(SimHarness h, byte[] data) {
        return h.run((Completion<WrittenFile> c) -> h.library.appendBuffered("drive0", SimHarness.bytes(data), c))
                .get();
    }

    private static FlushCheck after(WrittenFile last) {
        return new FlushCheck(TAPE, last.fileNumber(), last.startBlock() + last.blockCount() + 1);
    }

    private SimHarness.Result<Void> flush(SimHarness h, FlushCheck expected) {
        return h.run((Completion<Void> c) -> h.library.flush("drive0", expected, c));
    }

    @Test
    void resetBeforeTheFlush_losesTheBufferedFiles_andTheFlushFailsNamingWhatItFound() throws IOException {
        SimHarness h = labelledInDrive();
        WrittenFile kept = h.append("drive0", SimHarness.bytes(SimHarness.randomBytes(1, 5000)));
        appendBuffered(h, SimHarness.randomBytes(2, 7000));
        WrittenFile last = appendBuffered(h, SimHarness.randomBytes(3, 9000));
        h.library.faults().resetDriveBeforeNextOp("drive0");
        TapeFault f = flush(h, after(last)).fault(FaultKind.DRIVE);
        long expectedEnd = last.startBlock() + last.blockCount() + 1;
        long foundEnd = kept.startBlock() + kept.blockCount() + 1;
        for (String part : List.of("drive0", TAPE, "block " + expectedEnd, "block " + foundEnd)) {
            assertTrue(f.getMessage().contains(part), part + " missing: " + f.getMessage());
        }
        assertEquals(2, h.library.lostTapeFiles());
        assertEquals(0, h.library.unflushedFiles("drive0"));
        h.library.close();
        // the loss is recorded: a library opened on the directory has the label and the synchronous file only
        SimHarness again = open();
        again.run((Completion<Long> c) -> again.library.locateFile("drive0", 2, c)).fault(FaultKind.NOT_FOUND);
        again.locateFile("drive0", 1);
        assertArrayEquals(SimHarness.randomBytes(1, 5000), again.read("drive0", 0, 5000));
    }

    @Test
    void flushAfterBufferedAppends_succeedsWhenTheyAreThere_andNotForAnotherEnd() throws IOException {
        SimHarness h = labelledInDrive();
        appendBuffered(h, SimHarness.randomBytes(2, 7000));
        WrittenFile last = appendBuffered(h, SimHarness.randomBytes(3, 9000));
        flush(h, new FlushCheck(TAPE, last.fileNumber(), after(last).endOfData() + 1)).fault(FaultKind.DRIVE);
        flush(h, new FlushCheck(TAPE, last.fileNumber() + 1, after(last).endOfData() + 3)).fault(FaultKind.DRIVE);
        flush(h, new FlushCheck("B00000L9", last.fileNumber(), after(last).endOfData())).fault(FaultKind.DRIVE);
        flush(h, after(last)).get();
        h.library.faults().resetDriveBeforeNextOp("drive0");
        flush(h, after(last)).get(); // flushed before the reset: nothing lost
        assertEquals(0, h.library.lostTapeFiles());
    }

    @Test
    void failedDriveOperation_andUnloadBeforeTheFlush_loseTheBufferedFiles() throws IOException {
        SimHarness h = labelledInDrive();
        WrittenFile held = appendBuffered(h, SimHarness.randomBytes(2, 7000));
        h.library.faults().failNextDriveOps("drive0", 1);
        h.run((Completion<Void> c) -> h.library.locate("drive0", 0, c)).fault(FaultKind.DRIVE);
        assertEquals(1, h.library.lostTapeFiles(), "the failed drive lost its buffer");
        flush(h, after(held)).fault(FaultKind.DRIVE);
        WrittenFile again = appendBuffered(h, SimHarness.randomBytes(2, 7000));
        assertEquals(held.fileNumber(), again.fileNumber(), "written again where the lost one was");
        h.unmount("drive0");
        assertEquals(2, h.library.lostTapeFiles(), "unloaded before a flush");
        h.mount("drive0", TAPE);
        h.run((Completion<Long> c) -> h.library.locateFile("drive0", again.fileNumber(), c)).fault(FaultKind.NOT_FOUND);
    }

    @Test
    void heldFilesLost_andALaterFileEndingWhereTheyEnded_theFlushStillFails() throws IOException {
        SimHarness h = labelledInDrive();
        WrittenFile first = appendBuffered(h, SimHarness.randomBytes(2, 7000));
        WrittenFile last = appendBuffered(h, SimHarness.randomBytes(3, 9000));
        h.library.faults().resetDriveBeforeNextOp("drive0");
        // one file written since, where the lost ones began, ending exactly where the last lost one ended
        long end = after(last).endOfData();
        int bytes = Math.toIntExact((end - 1 - first.startBlock()) * h.library.blockSize());
        WrittenFile other = h.append("drive0", SimHarness.bytes(SimHarness.randomBytes(4, bytes)));
        assertEquals(first.fileNumber(), other.fileNumber());
        assertEquals(end, other.startBlock() + other.blockCount() + 1, "same end of data as the lost files");
        TapeFault f = flush(h, after(last)).fault(FaultKind.DRIVE);
        assertTrue(f.getMessage().contains("tape file " + last.fileNumber()), f.getMessage());
    }
}
