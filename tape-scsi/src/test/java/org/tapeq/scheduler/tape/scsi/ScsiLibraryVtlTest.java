package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.tapeq.scheduler.format.TapeLabel;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.RealTimeEventLoop;

/**
 * {@link ScsiLibrary} against the virtual library of ../shared/vtl (a real st/ch stack in a guest, reached through
 * {@code vtl-ssh}): the {@link org.tapeq.scheduler.tape.TapeLibrary} semantics the simulated library defines,
 * on real devices. Runs when {@code TAPEQ_VTL_LAB} names a running lab (.ci/run sets it); uses drive 0 and
 * the cartridge {@code TAPEQ_VTL_SCRATCH} (default VTL008L5), whose contents it destroys.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScsiLibraryVtlTest {

    private static final int BS = 64 * 1024;
    private static RealTimeEventLoop loop;
    private static ScsiLibrary library;
    private static String scratch;
    private static final String DRIVE = "d0";

    @BeforeAll
    static void start() throws Exception {
        ScsiSettings settings = VtlLab.settings(BS);
        Assumptions.assumeTrue(settings != null, "no virtual library: TAPEQ_VTL_LAB is not set");
        scratch = System.getenv().getOrDefault("TAPEQ_VTL_SCRATCH", "VTL008L5");
        loop = new RealTimeEventLoop("vtl-test-loop", 1);
        library = new ScsiLibrary(loop, settings, TapeLabel::parseFor);
        for (Inventory.Drive d : inventory(library).drives()) {
            if (d.loadedBarcode() != null) {
                unmount(d.id());
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (library != null) {
            Inventory inv = inventory(library);
            for (Inventory.Drive d : inv.drives()) {
                if (d.loadedBarcode() != null) {
                    unmount(d.id());
                }
            }
            library.close();
            loop.close();
        }
    }

    @Test
    @Order(1)
    void inventory_listsDrivesAndCartridges() throws Exception {
        Inventory inv = inventory(library);
        assertEquals(List.of("d0", "d1"), inv.drives().stream().map(Inventory.Drive::id).toList());
        assertTrue(inv.cartridges().stream().anyMatch(c -> c.barcode().equals(scratch)
                && c.location().startsWith("slot:")), inv.toString());
    }

    @Test
    @Order(2)
    void writeAndRead_onRealDevices_positionsAndBytesAsSpecified() throws Exception {
        mount(scratch);
        Inventory inv = inventory(library);
        assertEquals(scratch, inv.drives().get(0).loadedBarcode());

        // a foreign cartridge is never written
        writeForeignLabel();
        TapeFault foreign = failure(() -> append(source(new byte[10])));
        assertEquals(FaultKind.LABEL, foreign.kind(), foreign.toString());

        TapeLabel label = new TapeLabel(scratch, "test", System.currentTimeMillis(), BS);
        WrittenFile l = writeLabel(library, label.source());
        assertEquals(new WrittenFile(0, 0, 1, label.source().length()), l);

        Random random = new Random(5);
        byte[] a = bytes(random, 3 * BS + 1000);
        byte[] b = bytes(random, 2 * BS);
        byte[] c = bytes(random, 100);
        WrittenFile wa = append(source(a));
        assertEquals(new WrittenFile(1, 2, 4, a.length), wa);
        WrittenFile wb = append(source(b));
        assertEquals(new WrittenFile(2, 7, 2, b.length), wb);
        WrittenFile wc = append(source(c));
        assertEquals(new WrittenFile(3, 10, 1, c.length), wc);

        // straight to a member: locate to its block, skip inside the block
        locate(3);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        long n = read(500, 2 * BS, got);
        assertEquals(2 * BS, n);
        assertArrayEquals(Arrays.copyOfRange(a, BS + 500, 3 * BS + 500), got.toByteArray());

        // a read stops at the filemark
        locate(2);
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        assertEquals((long) a.length, read(0, 10L * BS, whole));
        assertArrayEquals(a, whole.toByteArray());

        // tape files by number, and the label read back
        assertEquals(7L, locateFile(2));
        assertEquals(10L, locateFile(3));
        assertEquals(FaultKind.NOT_FOUND, failure(() -> locateFile(4)).kind());
        assertEquals(FaultKind.NOT_FOUND, failure(() -> locate(99)).kind());
        assertEquals(0L, locateFile(0));
        ByteArrayOutputStream labelBytes = new ByteArrayOutputStream();
        read(0, BS, labelBytes);
        assertEquals("test", TapeLabel.parseFor(labelBytes.toByteArray(), scratch).family());

        // a source that fails halfway leaves no partial tape file behind
        TapeFault source = failure(() -> append(failingSource(5 * BS, 2 * BS)));
        assertEquals(FaultKind.SOURCE, source.kind(), source.toString());
        assertEquals(FaultKind.NOT_FOUND, failure(() -> locateFile(4)).kind());
        WrittenFile after = append(source(c));
        assertEquals(new WrittenFile(4, 12, 1, c.length), after);

        // a sink that fails is the target's fault, not the tape's
        locate(2);
        TapeFault target = failure(() -> read(0, BS, new OutputStream() {
            @Override
            public void write(int x) throws IOException {
                throw new IOException("disk full");
            }

            @Override
            public void write(byte[] x, int off, int len) throws IOException {
                throw new IOException("disk full");
            }
        }));
        assertEquals(FaultKind.TARGET, target.kind(), target.toString());

        // after unmount and mount, the library finds end of data and the file count again
        unmount(DRIVE);
        mount(scratch);
        WrittenFile again = append(source(c));
        assertEquals(new WrittenFile(5, 14, 1, c.length), again);
        locate(14);
        ByteArrayOutputStream last = new ByteArrayOutputStream();
        read(0, BS, last);
        assertArrayEquals(c, last.toByteArray());
        unmount(DRIVE);
    }

    @Test
    @Order(3)
    void mount_errors_areClassified() throws Exception {
        assertEquals(FaultKind.ROBOT, failure(() -> mount("NOSUCH01")).kind());
        assertEquals(FaultKind.DRIVE, failure(() -> unmount(DRIVE)).kind());
        assertEquals(FaultKind.DRIVE, failure(() -> locate(0)).kind());
        assertEquals(FaultKind.DRIVE, failure(() -> await((Completion<Void> done) -> library.locate("nosuchdrive", 0, done))).kind());
    }

    /** Writes a tar-less, non-tapeq tape file 0, as another application would. */
    private static void writeForeignLabel() throws Exception {
        byte[] foreign = "VOL1 not a tapeq tape".getBytes();
        ScsiLibrary raw = new ScsiLibrary(loop, VtlLab.settings(BS), TapeLabel::parseFor);
        try {
            // the raw library forgets nothing about the drive but the label check; write file 0 directly
            inventory(raw);
            writeLabel(raw, source(foreign));
        } finally {
            raw.close();
        }
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static TapeFileSource source(byte[] data) {
        return new TapeFileSource() {
            @Override
            public long length() {
                return data.length;
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                out.write(data);
            }
        };
    }

    private static TapeFileSource failingSource(long length, int failAfter) {
        return new TapeFileSource() {
            @Override
            public long length() {
                return length;
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                out.write(new byte[failAfter]);
                throw new IOException("the file changed while it was written");
            }
        };
    }

    static <T> T await(Consumer<Completion<T>> op) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        op.accept(new Completion<>() {
            @Override
            public void succeeded(T value) {
                f.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                f.completeExceptionally(fault);
            }
        });
        try {
            return f.get(5, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    static TapeFault failure(Call call) throws Exception {
        try {
            call.run();
        } catch (TapeFault f) {
            assertNotNull(f.kind());
            return f;
        }
        return fail("expected a fault");
    }

    static Inventory inventory(ScsiLibrary lib) throws Exception {
        return await((Completion<Inventory> done) -> lib.inventory(done));
    }

    static void mount(String barcode) throws Exception {
        await((Completion<Void> done) -> library.mount(DRIVE, barcode, done));
    }

    static void unmount(String drive) throws Exception {
        await((Completion<Void> done) -> library.unmount(drive, done));
    }

    static void locate(long block) throws Exception {
        await((Completion<Void> done) -> library.locate(DRIVE, block, done));
    }

    static long locateFile(int file) throws Exception {
        return await((Completion<Long> done) -> library.locateFile(DRIVE, file, done));
    }

    static long read(long skip, long length, OutputStream out) throws Exception {
        return await((Completion<Long> done) -> library.read(DRIVE, skip, length, () -> out, done));
    }

    static WrittenFile append(TapeFileSource source) throws Exception {
        return await((Completion<WrittenFile> done) -> library.append(DRIVE, source, done));
    }

    static WrittenFile writeLabel(ScsiLibrary lib, TapeFileSource source) throws Exception {
        return await((Completion<WrittenFile> done) -> lib.writeLabel(DRIVE, source, done));
    }

    /** The lab's settings, or null if no lab is configured. */
    static final class VtlLab {
        static ScsiSettings settings(int blockSize) {
            String lab = System.getenv("TAPEQ_VTL_LAB");
            if (lab == null || lab.isBlank()) {
                return null;
            }
            Path ssh = Path.of(lab, "vtl-ssh");
            if (!Files.isExecutable(ssh)) {
                throw new IllegalStateException("TAPEQ_VTL_LAB=" + lab + " but " + ssh + " is missing: is the lab up?");
            }
            return new ScsiSettings("/dev/vtl/changer", List.of(
                    new ScsiSettings.Drive("d0", "/dev/vtl/lun1-nst", 0),
                    new ScsiSettings.Drive("d1", "/dev/vtl/lun2-nst", 1)), blockSize, List.of(ssh.toString()),
                    120_000, 300_000, 120_000);
        }
    }
}
