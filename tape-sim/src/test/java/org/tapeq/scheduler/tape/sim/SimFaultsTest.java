package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.VirtualEventLoop;

/** Every fault switch, tape-full by capacity, and the errors of misuse. */
class SimFaultsTest {

    private static final int BS = 4096;
    private static final String A = "A00001L9";
    private static final String B = "A00002L9";

    @TempDir
    Path dir;

    private SimHarness bytesLibrary(long capacityOfA) throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        return new SimHarness(loop, SimulatedLibrary.builder(loop).bytes(dir).blockSize(BS).drives(2)
                .cartridge(A, MediaType.LTO9, capacityOfA).cartridge(B).build());
    }

    private SimHarness withTwoFiles() throws IOException {
        SimHarness h = bytesLibrary(MediaType.LTO9.capacityBytes());
        h.mount("drive0", A);
        h.label("drive0", SimHarness.bytes("LBL".getBytes()));
        h.append("drive0", SimHarness.bytes(SimHarness.randomBytes(1, 3 * BS)));
        h.append("drive0", SimHarness.bytes(SimHarness.randomBytes(2, 2 * BS)));
        return h;
    }

    @Test
    void failDrive_everyOperationFailsUntilRestored() throws IOException {
        SimHarness h = withTwoFiles();
        h.library.faults().failDrive("drive0");
        assertFalse(h.inventory().drives().get(0).online());
        TapeFault f = h.run((Completion<Long> c) -> h.library.locateFile("drive0", 1, c)).fault(FaultKind.DRIVE);
        assertTrue(f.getMessage().contains("drive0") && f.getMessage().contains(A), f.getMessage());
        h.run((Completion<Long> c) -> h.library.read("drive0", 0, 1, ByteSink.DISCARD, c)).fault(FaultKind.DRIVE);
        h.run((Completion<WrittenFile> c) -> h.library.append("drive0", SimHarness.bytes(new byte[1]), c))
                .fault(FaultKind.DRIVE);
        h.run((Completion<Void> c) -> h.library.unmount("drive0", c)).fault(FaultKind.DRIVE);
        h.run((Completion<Void> c) -> h.library.mount("drive1", B, c)).get();

        h.library.faults().restoreDrive("drive0");
        assertTrue(h.inventory().drives().get(0).online());
        assertEquals(h.library.cartridge(A).files.startBlock(2), h.locateFile("drive0", 2));
        assertEquals(3, h.library.cartridge(A).files.count(), "the failed append recorded nothing");
    }

    @Test
    void failNextDriveOps_failsExactlyThatMany() throws IOException {
        SimHarness h = withTwoFiles();
        h.library.faults().failNextDriveOps("drive0", 2);
        h.run((Completion<Long> c) -> h.library.locateFile("drive0", 1, c)).fault(FaultKind.DRIVE);
        var second = h.run((Completion<Long> c) -> h.library.locateFile("drive0", 1, c));
        second.fault(FaultKind.DRIVE);
        h.locateFile("drive0", 1);
        assertEquals(2, h.library.stats().failedOps());
    }

    @Test
    void mediaError_readOfThatFileFailsOthersFineDataIntact() throws IOException {
        SimHarness h = withTwoFiles();
        h.library.faults().mediaError(A, 1);
        h.locateFile("drive0", 1);
        long before = h.loop.now();
        var bad = h.run((Completion<Long> c) -> h.library.read("drive0", 0, Long.MAX_VALUE, ByteSink.DISCARD, c));
        bad.fault(FaultKind.MEDIA);
        assertTrue(bad.at() - before >= SimulatedLibrary.MEDIA_ERROR_MILLIS);
        h.locateFile("drive0", 2);
        assertArrayEquals(SimHarness.randomBytes(2, 2 * BS), h.read("drive0", 0, Long.MAX_VALUE));

        h.library.faults().clearMediaError(A, 1);
        h.locateFile("drive0", 1);
        assertArrayEquals(SimHarness.randomBytes(1, 3 * BS), h.read("drive0", 0, Long.MAX_VALUE));
    }

    @Test
    void corruptByte_readDeliversThatByteInvertedOnlyThereDataIntact() throws IOException {
        SimHarness h = withTwoFiles();
        long offset = BS + 17; // in the second block: a read that skips into the file sees it at its own offset
        h.library.faults().corruptByte(A, 1, offset);
        byte[] good = SimHarness.randomBytes(1, 3 * BS);
        h.locateFile("drive0", 1);
        byte[] whole = h.read("drive0", 0, Long.MAX_VALUE);
        byte[] expected = good.clone();
        expected[(int) offset] = (byte) ~expected[(int) offset];
        assertArrayEquals(expected, whole);
        h.locateFile("drive0", 1);
        byte[] tail = h.read("drive0", offset, 2);
        assertArrayEquals(new byte[] {expected[(int) offset], good[(int) offset + 1]}, tail);
        h.locateFile("drive0", 2);
        assertArrayEquals(SimHarness.randomBytes(2, 2 * BS), h.read("drive0", 0, Long.MAX_VALUE));

        h.library.faults().clear();
        h.locateFile("drive0", 1);
        assertArrayEquals(good, h.read("drive0", 0, Long.MAX_VALUE));
    }

    @Test
    void failNextRobotMoves_mountFailsCartridgeStaysInSlotRetryWorks() throws IOException {
        SimHarness h = bytesLibrary(MediaType.LTO9.capacityBytes());
        h.library.faults().failNextRobotMoves(1);
        var failed = h.run((Completion<Void> c) -> h.library.mount("drive0", A, c));
        failed.fault(FaultKind.ROBOT);
        assertEquals(SimulatedLibrary.DEFAULT_EXCHANGE_MILLIS, failed.at(), "reported after the robot tried");
        assertEquals("slot:1", h.inventory().cartridges().get(0).location());
        assertEquals(null, h.inventory().drives().get(0).loadedBarcode());
        h.mount("drive0", A);
        assertEquals("drive:drive0", h.inventory().cartridges().get(0).location());
    }

    @Test
    void failRobot_unmountLeavesCartridgeUnloadedInDriveUntilRestored() throws IOException {
        SimHarness h = withTwoFiles();
        h.library.faults().failRobot();
        h.run((Completion<Void> c) -> h.library.unmount("drive0", c)).fault(FaultKind.ROBOT);
        h.run((Completion<Void> c) -> h.library.unmount("drive0", c)).fault(FaultKind.ROBOT);
        h.run((Completion<Void> c) -> h.library.mount("drive1", B, c)).fault(FaultKind.ROBOT);
        assertEquals(A, h.inventory().drives().get(0).loadedBarcode());
        h.run((Completion<Long> c) -> h.library.locateFile("drive0", 1, c)).fault(FaultKind.DRIVE);

        h.library.faults().restoreRobot();
        long unmount = h.timed((Completion<Void> c) -> h.library.unmount("drive0", c));
        assertEquals(SimulatedLibrary.DEFAULT_EXCHANGE_MILLIS, unmount, "already rewound and unloaded");
        h.mount("drive1", A);
        h.locateFile("drive1", 2);
        assertArrayEquals(SimHarness.randomBytes(2, 2 * BS), h.read("drive1", 0, Long.MAX_VALUE));
    }

    @Test
    void tapeFullOnNextAppend_failsOnceWritingNothing() throws IOException {
        SimHarness h = withTwoFiles();
        h.library.faults().tapeFullOnNextAppend(A);
        h.run((Completion<WrittenFile> c) -> h.library.append("drive0", SimHarness.bytes(new byte[10]), c))
                .fault(FaultKind.TAPE_FULL);
        assertEquals(3, h.library.cartridge(A).files.count());
        assertEquals(3, h.append("drive0", SimHarness.bytes(new byte[10])).fileNumber());
    }

    @Test
    void append_pastCapacity_tapeFullKeepsEarlierFilesAndWholeBlocksAsShortFile() throws IOException {
        long capacity = MediaType.LTO9.wraps() * 1024L * 16;       // about 4.6 MB
        SimHarness h = bytesLibrary(capacity);
        h.mount("drive0", A);
        h.label("drive0", SimHarness.bytes("LBL".getBytes()));
        byte[] chunk = SimHarness.randomBytes(3, 1_000_000);
        int written = 0;
        TapeFault full = null;
        while (full == null) {
            var r = h.run((Completion<WrittenFile> c) -> h.library.append("drive0", SimHarness.bytes(chunk), c));
            if (r.failed()) {
                full = r.fault(FaultKind.TAPE_FULL);
            } else {
                written++;
            }
        }
        assertEquals(4, written);
        TapeFileTable files = h.library.cartridge(A).files;
        long free = capacity - 3 - 4 * 1_000_000L;
        long partial = free / BS * BS;
        assertEquals(6, files.count(), "label, 4 files and the short file");
        assertEquals(partial, files.bytes(5));
        assertTrue(full.getMessage().contains("short tape file 5"), full.getMessage());
        for (int i = 1; i <= 5; i++) {
            h.locateFile("drive0", i);
            byte[] expected = i < 5 ? chunk : java.util.Arrays.copyOf(chunk, (int) partial);
            assertArrayEquals(expected, h.read("drive0", 0, Long.MAX_VALUE), "tape file " + i);
        }
        h.run((Completion<WrittenFile> c) -> h.library.append("drive0", SimHarness.bytes(new byte[BS]), c))
                .fault(FaultKind.TAPE_FULL);
        assertEquals(6, files.count(), "no room for a block: nothing recorded");
    }

    @Test
    void misuse_clearFaultsNamingDriveAndBarcode() throws IOException {
        SimHarness h = bytesLibrary(MediaType.LTO9.capacityBytes());
        h.mount("drive0", A);

        TapeFault loaded = h.run((Completion<Void> c) -> h.library.mount("drive0", B, c)).fault(FaultKind.DRIVE);
        assertTrue(loaded.getMessage().contains("drive0") && loaded.getMessage().contains(A)
                && loaded.getMessage().contains(B), loaded.getMessage());
        TapeFault elsewhere = h.run((Completion<Void> c) -> h.library.mount("drive1", A, c)).fault(FaultKind.ROBOT);
        assertTrue(elsewhere.getMessage().contains("drive0") && elsewhere.getMessage().contains("drive1"),
                elsewhere.getMessage());
        TapeFault unknown = h.run((Completion<Void> c) -> h.library.mount("drive1", "ZZZ999L9", c))
                .fault(FaultKind.ROBOT);
        assertTrue(unknown.getMessage().contains("ZZZ999L9"), unknown.getMessage());
        TapeFault empty = h.run((Completion<Void> c) -> h.library.locate("drive1", 0, c)).fault(FaultKind.DRIVE);
        assertTrue(empty.getMessage().contains("drive1") && empty.getMessage().contains("empty"), empty.getMessage());
        h.run((Completion<Void> c) -> h.library.unmount("drive1", c)).fault(FaultKind.DRIVE);
        h.run((Completion<Void> c) -> h.library.locate("drive9", 0, c)).fault(FaultKind.DRIVE);

        SimHarness.Result<Void> first = new SimHarness.Result<>(h.loop);
        SimHarness.Result<Void> second = new SimHarness.Result<>(h.loop);
        h.library.locate("drive0", 0, first);
        h.library.locate("drive0", 0, second);
        h.loop.runUntilIdle();
        first.get();
        assertTrue(second.fault(FaultKind.DRIVE).getMessage().contains("busy"));
        h.locate("drive0", 0);
    }

    @Test
    void mount_sameCartridgeTwiceConcurrently_secondFails() throws IOException {
        SimHarness h = bytesLibrary(MediaType.LTO9.capacityBytes());
        SimHarness.Result<Void> first = new SimHarness.Result<>(h.loop);
        SimHarness.Result<Void> second = new SimHarness.Result<>(h.loop);
        h.library.mount("drive0", A, first);
        h.library.mount("drive1", A, second);
        h.loop.runUntilIdle();
        first.get();
        assertTrue(second.fault(FaultKind.ROBOT).getMessage().contains("being moved"));
        assertEquals(null, h.inventory().drives().get(1).loadedBarcode());
    }
}
