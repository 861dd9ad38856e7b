package org.tapeq.scheduler.tape.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.ByteSink;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.scheduler.time.VirtualEventLoop;

/** BYTES mode: real content in, the same content out, across restarts. */
class SimBytesTest {

    private static final int BS = 4096;
    private static final String TAPE = "A00001L9";

    @TempDir
    Path dir;

    private SimHarness open() throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        SimulatedLibrary library = SimulatedLibrary.builder(loop).bytes(dir).blockSize(BS).drives(2)
                .cartridge(TAPE).cartridge("A00002L9").build();
        return new SimHarness(loop, library);
    }

    @Test
    void readBack_afterAppends_returnsExactBytes() throws IOException {
        SimHarness h = open();
        h.mount("drive0", TAPE);
        byte[] label = "VOL1A00001L9".getBytes();
        byte[][] files = {SimHarness.randomBytes(1, 3 * BS + 17), SimHarness.randomBytes(2, BS),
                new byte[0], SimHarness.randomBytes(3, 100)};
        h.label("drive0", SimHarness.bytes(label));
        for (byte[] file : files) {
            h.append("drive0", SimHarness.bytes(file));
        }

        h.locateFile("drive0", 0);
        assertArrayEquals(label, h.read("drive0", 0, Long.MAX_VALUE));
        for (int i = 0; i < files.length; i++) {
            h.locateFile("drive0", i + 1);
            assertArrayEquals(files[i], h.read("drive0", 0, Long.MAX_VALUE), "tape file " + (i + 1));
        }
    }

    @Test
    void read_withSkipAndAtFilemark_deliversSliceThenShortThenNothing() throws IOException {
        SimHarness h = open();
        h.mount("drive0", TAPE);
        h.label("drive0", SimHarness.bytes(new byte[80]));
        byte[] data = SimHarness.randomBytes(4, 5 * BS + 123);
        WrittenFile written = h.append("drive0", SimHarness.bytes(data));
        h.append("drive0", SimHarness.bytes(SimHarness.randomBytes(5, 999)));

        assertEquals(written.startBlock(), h.locateFile("drive0", 1));
        byte[] slice = h.read("drive0", 1000, 2 * BS);
        assertArrayEquals(Arrays.copyOfRange(data, 1000, 1000 + 2 * BS), slice);
        // That read ended inside block 2 of the file: the next read starts at block 3.
        byte[] rest = h.read("drive0", 0, Long.MAX_VALUE);
        assertArrayEquals(Arrays.copyOfRange(data, 3 * BS, data.length), rest, "short read up to the filemark");
        assertEquals(0, h.read("drive0", 0, 10).length, "at the filemark nothing more is delivered");

        h.locate("drive0", written.startBlock() + 4);
        assertArrayEquals(Arrays.copyOfRange(data, 4 * BS + 10, 4 * BS + 20), h.read("drive0", 10, 10));
        h.locate("drive0", written.startBlock() + 2);
        assertArrayEquals(Arrays.copyOfRange(data, 2 * BS + 7, data.length), h.read("drive0", 7, 1L << 40),
                "a skip plus a long read stops at the filemark");
    }

    @Test
    void reopen_sameDirectory_keepsDataAndDriveContents() throws IOException {
        SimHarness first = open();
        first.mount("drive1", TAPE);
        byte[] label = "LABEL".getBytes();
        byte[] data = SimHarness.randomBytes(6, 2 * BS + 1);
        first.label("drive1", SimHarness.bytes(label));
        first.append("drive1", SimHarness.bytes(data));
        first.library.close();
        Files.writeString(dir.resolve(TAPE).resolve("f7-stray.dat"), "left by a crash");
        Files.writeString(dir.resolve(TAPE).resolve("journal"), "F 2 12 f2-torn", StandardOpenOption.APPEND);

        SimHarness second = open();
        Inventory inventory = second.inventory();
        assertEquals(TAPE, inventory.drives().get(1).loadedBarcode());
        assertEquals("drive:drive1", inventory.cartridges().get(0).location());
        assertFalse(Files.exists(dir.resolve(TAPE).resolve("f7-stray.dat")), "unreferenced file removed");
        assertEquals(0, second.library.drive("drive1").position, "after a restart the tape is at block 0");
        assertArrayEquals(label, second.read("drive1", 0, 100));
        second.locateFile("drive1", 1);
        assertArrayEquals(data, second.read("drive1", 0, Long.MAX_VALUE));
        assertEquals(2, second.library.cartridge(TAPE).files.count(), "torn journal line ignored");
        second.unmount("drive1");
        second.mount("drive0", TAPE);
        second.locateFile("drive0", 1);
        assertArrayEquals(data, second.read("drive0", 0, Long.MAX_VALUE));
    }

    @Test
    void writeLabel_overExistingTape_erasesLaterFilesAlsoAfterReopen() throws IOException {
        SimHarness h = open();
        h.mount("drive0", TAPE);
        h.label("drive0", SimHarness.bytes("OLD".getBytes()));
        h.append("drive0", SimHarness.bytes(SimHarness.randomBytes(7, 3 * BS)));
        h.append("drive0", SimHarness.bytes(SimHarness.randomBytes(8, 10)));

        WrittenFile label = h.label("drive0", SimHarness.bytes("NEW".getBytes()));
        assertEquals(new WrittenFile(0, 0, 1, 3), label);
        h.run((Completion<Long> c) -> h.library.locateFile("drive0", 1, c)).fault(FaultKind.NOT_FOUND);
        h.locateFile("drive0", 0);
        assertArrayEquals("NEW".getBytes(), h.read("drive0", 0, 100));
        WrittenFile next = h.append("drive0", SimHarness.bytes("X".getBytes()));
        assertEquals(1, next.fileNumber());
        assertEquals(2, next.startBlock());
        h.library.close();

        SimHarness again = open();
        assertEquals(2, again.library.cartridge(TAPE).files.count());
        try (var files = Files.list(dir.resolve(TAPE))) {
            assertEquals(3, files.count(), "journal and two data files, the erased ones deleted");
        }
        again.locateFile("drive0", 1);
        assertArrayEquals("X".getBytes(), again.read("drive0", 0, 100));
    }

    @Test
    void append_sourceFailsOrLies_recordsNothing() throws IOException {
        SimHarness h = open();
        h.mount("drive0", TAPE);
        h.label("drive0", SimHarness.bytes("L".getBytes()));
        TapeFileSource failing = new TapeFileSource() {
            @Override
            public long length() {
                return 10_000;
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                out.write(new byte[5000]);
                throw new IOException("disk pool file vanished");
            }
        };
        TapeFileSource lying = new TapeFileSource() {
            @Override
            public long length() {
                return 10_000;
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                out.write(new byte[9_999]);
            }
        };
        h.run((Completion<WrittenFile> c) -> h.library.append("drive0", failing, c)).fault(FaultKind.SOURCE);
        h.run((Completion<WrittenFile> c) -> h.library.append("drive0", lying, c)).fault(FaultKind.SOURCE);
        h.run((Completion<WrittenFile> c) -> h.library.writeLabel("drive0", failing, c)).fault(FaultKind.SOURCE);

        assertEquals(1, h.library.cartridge(TAPE).files.count());
        h.locateFile("drive0", 0);
        assertArrayEquals("L".getBytes(), h.read("drive0", 0, 10), "failed label write kept the old label");
        assertEquals(1, h.append("drive0", SimHarness.bytes(new byte[3])).fileNumber());
        try (var files = Files.list(dir.resolve(TAPE))) {
            assertEquals(3, files.count(), "no leftover temporary files");
        }
    }

    @Test
    void read_sinkFails_reportsTarget() throws IOException {
        SimHarness h = open();
        h.mount("drive0", TAPE);
        h.label("drive0", SimHarness.bytes(SimHarness.randomBytes(9, 100)));
        h.locate("drive0", 0);
        var result = h.run((Completion<Long> c) -> h.library.read("drive0", 0, 100, () -> {
            throw new IOException("stage target full");
        }, c));
        result.fault(FaultKind.TARGET);
    }

    @Test
    void copyExecutor_realTime_completesOnLoopNotBeforeModelledTime() throws Exception {
        ExecutorService copier = Executors.newFixedThreadPool(2);
        try (RealTimeEventLoop loop = new RealTimeEventLoop("sim-test-loop", 1_000)) {
            SimulatedLibrary library = SimulatedLibrary.builder(loop).bytes(dir).blockSize(BS).drives(1)
                    .cartridge(TAPE).copyExecutor(copier).build();
            SimHarness.Result<Void> mounted = new SimHarness.Result<>(loop);
            library.mount("drive0", TAPE, mounted);
            assertTrue(mounted.await(10_000).done());
            mounted.get();

            byte[] data = SimHarness.randomBytes(10, 3 * BS + 5);
            long before = loop.now();
            SimHarness.Result<WrittenFile> appended = new SimHarness.Result<>(loop);
            library.append("drive0", SimHarness.bytes(data), appended);
            appended.await(10_000).get();
            assertTrue(appended.at() - before >= SimulatedLibrary.DEFAULT_FILEMARK_MILLIS,
                    "completed after the modelled filemark time: " + (appended.at() - before));

            SimHarness.Result<Long> located = new SimHarness.Result<>(loop);
            library.locateFile("drive0", 0, located);
            located.await(10_000).get();
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            SimHarness.Result<Long> read = new SimHarness.Result<>(loop);
            library.read("drive0", 0, Long.MAX_VALUE, () -> out, read);
            assertEquals(data.length, read.await(10_000).get());
            assertArrayEquals(data, out.toByteArray());
        } finally {
            copier.shutdownNow();
        }
    }

    @Test
    void sizeOnlyRead_withCopyExecutor_sinkToldOnceOnTheCopyThreadNeverOnTheLoop() throws Exception {
        ExecutorService copier = Executors.newFixedThreadPool(1, r -> new Thread(r, "sim-test-copy"));
        try (RealTimeEventLoop loop = new RealTimeEventLoop("sim-test-loop", 1_000)) {
            SimulatedLibrary library = SimulatedLibrary.builder(loop).sizeOnly().blockSize(BS).drives(1)
                    .cartridge(TAPE).copyExecutor(copier).build();
            SimHarness.Result<Void> mounted = new SimHarness.Result<>(loop);
            library.mount("drive0", TAPE, mounted);
            mounted.await(10_000).get();
            SimHarness.Result<WrittenFile> appended = new SimHarness.Result<>(loop);
            library.append("drive0", SimHarness.size(10 * BS + 7), appended);
            appended.await(10_000).get();
            SimHarness.Result<Long> located = new SimHarness.Result<>(loop);
            library.locateFile("drive0", 0, located);
            located.await(10_000).get();

            java.util.List<String> calls = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            ByteSink sink = new ByteSink() {
                @Override
                public OutputStream open() {
                    throw new AssertionError("a size-only library hands over no bytes");
                }

                @Override
                public void withoutBytes(long delivered) {
                    calls.add(Thread.currentThread().getName() + " " + delivered);
                }
            };
            SimHarness.Result<Long> read = new SimHarness.Result<>(loop);
            library.read("drive0", 5, 3 * BS, sink, read);
            assertEquals(3 * BS, read.await(10_000).get());
            assertEquals(java.util.List.of("sim-test-copy " + 3 * BS), calls, "told once, on the copy thread");
        } finally {
            copier.shutdownNow();
        }
    }

    @Test
    void open_directoryHeldByALibraryNotClosed_isRefusedUntilItIsClosed() throws IOException {
        SimHarness first = open();
        IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, this::open);
        assertTrue(e.getMessage().contains(dir + " is in use by another process (library.lock is locked)"),
                e.getMessage());
        first.library.close();
        open().library.close();
    }

    @Test
    void reopen_withOtherBlockSize_isRejected() throws IOException {
        open().library.close();
        VirtualEventLoop loop = new VirtualEventLoop(0);
        var builder = SimulatedLibrary.builder(loop).bytes(dir).blockSize(2 * BS).drives(1).cartridge(TAPE);
        IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, builder::build);
        assertTrue(e.getMessage().contains("blockSize"), e.getMessage());
    }

    @Test
    void reopen_sizeOnlyWithDirectory_keepsLengthsAndRejectsBytesMode() throws IOException {
        VirtualEventLoop loop = new VirtualEventLoop(0);
        SimHarness first = new SimHarness(loop, SimulatedLibrary.builder(loop).sizeOnly(dir).blockSize(BS).drives(1)
                .cartridge(TAPE).build());
        first.mount("drive0", TAPE);
        first.append("drive0", SimHarness.size(80));
        WrittenFile big = first.append("drive0", SimHarness.size(5L * SimHarness.GB));
        first.unmount("drive0");
        first.library.close();

        VirtualEventLoop loop2 = new VirtualEventLoop(0);
        SimHarness second = new SimHarness(loop2, SimulatedLibrary.builder(loop2).sizeOnly(dir).blockSize(BS)
                .drives(1).cartridge(TAPE).build());
        second.mount("drive0", TAPE);
        assertEquals(big.startBlock(), second.locateFile("drive0", 1));
        assertEquals(5L * SimHarness.GB, second.readCount("drive0", 0, Long.MAX_VALUE));
        second.library.close();

        var bytesMode = SimulatedLibrary.builder(new VirtualEventLoop(0)).bytes(dir).blockSize(BS).drives(1)
                .cartridge(TAPE);
        org.junit.jupiter.api.Assertions.assertThrows(IOException.class, bytesMode::build);
    }

    @Test
    void inventory_cartridgesInSlotsAndDrives() throws IOException {
        SimHarness h = open();
        h.mount("drive1", "A00002L9");
        Inventory inventory = h.inventory();
        assertEquals(new Inventory.Drive("drive0", null, true), inventory.drives().get(0));
        assertEquals(new Inventory.Drive("drive1", "A00002L9", true), inventory.drives().get(1));
        assertEquals(new Inventory.Cartridge(TAPE, MediaType.LTO9.name(), "slot:1"), inventory.cartridges().get(0));
        assertEquals(new Inventory.Cartridge("A00002L9", "LTO-9", "drive:drive1"), inventory.cartridges().get(1));
    }
}
