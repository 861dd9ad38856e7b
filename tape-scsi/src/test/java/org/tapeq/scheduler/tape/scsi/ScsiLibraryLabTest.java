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
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.format.TapeLabel;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.DriveAlerts;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.RealTimeEventLoop;

/**
 * {@link ScsiLibrary} against a lab library (a real st/ch stack in a guest, reached through {@code vtl-ssh}): the
 * {@link org.tapeq.scheduler.tape.TapeLibrary} semantics the simulated library defines, on real devices, run once
 * per lab by the subclasses ({@link Lab}: the tgt lab, the mhVTL lab). Uses drive 0 and the cartridge before the
 * lab's last one as scratch (the tgt lab's {@code TAPEQ_VTL_SCRATCH}, default VTL008L5), whose contents it
 * destroys; on mhVTL the last cartridge is the blank one, the drives' TapeAlert flags and the library's state
 * are set through the lab's {@code vtl-fault}, and everything is left as found.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ScsiLibraryLabTest {

    private static final int BS = 64 * 1024;
    /** Short: an mt command that waits for a tape shows up as a timeout within the test's time. */
    private static final long TAPE_TIMEOUT_MILLIS = 30_000;
    private final Lab lab;
    private RealTimeEventLoop loop;
    private ScsiLibrary library;
    private String scratch;
    private static final String DRIVE = "d0";
    /** What the library reported through {@link DriveAlerts}: "suspect d0 E01007L8", "cleaning d0". */
    private final List<String> alerts = new CopyOnWriteArrayList<>();

    ScsiLibraryLabTest(Lab lab) {
        this.lab = lab;
    }

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(lab != null, "no lab library of this kind (.ci/run sets TAPEQ_VTL_LAB, TAPEQ_MHVTL_LAB)");
        ScsiSettings settings = lab.settings(BS, TAPE_TIMEOUT_MILLIS);
        scratch = lab.mhvtl() ? lab.barcode(lab.tapes() - 1)
                : System.getenv().getOrDefault("TAPEQ_VTL_SCRATCH", lab.barcode(8));
        loop = new RealTimeEventLoop("vtl-test-loop", 1);
        library = new ScsiLibrary(loop, settings, TapeLabel::parseFor);
        library.alerts(new DriveAlerts() {
            @Override
            public void cartridgeSuspect(String drive, String barcode, String reason) {
                alerts.add("suspect " + drive + " " + barcode);
            }

            @Override
            public void cleaningDue(String drive, String reason) {
                alerts.add("cleaning " + drive);
            }
        });
        for (Inventory.Drive d : inventory(library).drives()) {
            if (d.loadedBarcode() != null) {
                unmount(d.id());
            }
        }
    }

    @AfterAll
    void stop() throws Exception {
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
    @Order(1)
    void driveType_readFromTheDrivesInquiryAtTheFirstInventory() {
        // mhVTL's drives answer IBM ULT3580-TD8 (LTO-8); the tgt lab's ULT3580-TD5, an LTO-5 tapeq does not model
        Optional<DriveType> expected = lab.mhvtl() ? Optional.of(DriveType.LTO8) : Optional.empty();
        assertEquals(expected, library.driveType("d0"));
        assertEquals(expected, library.driveType("d1"));
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

    // ---------------------------------------------------------------- what the mhVTL lab offers

    @Test
    @Order(4)
    void blankCartridge_readAtBlockZeroIsEndOfData_andTakesALabel() throws Exception {
        Assumptions.assumeTrue(lab.mhvtl(), "only the mhVTL lab has a truly blank cartridge");
        emptyDrives();
        String blank = lab.barcode(lab.tapes());
        mount(blank);
        // Blank again if an earlier run labelled it: mhVTL's ERASE at BOT formats the cartridge.
        lab.ssh("mt -f " + Lab.device(0) + " rewind && mt -f " + Lab.device(0) + " erase");
        unmount(DRIVE);
        mount(blank);
        locate(0);
        TapeFault eod = failure(() -> read(0, BS, new ByteArrayOutputStream()));
        assertEquals(FaultKind.NOT_FOUND, eod.kind(), "a read at BOT of a blank cartridge: " + eod);
        TapeFault refused = failure(() -> append(source(new byte[10])));
        assertEquals(FaultKind.LABEL, refused.kind(), "a blank cartridge is never appended to: " + refused);
        TapeLabel label = new TapeLabel(blank, "test", System.currentTimeMillis(), BS);
        assertEquals(new WrittenFile(0, 0, 1, label.source().length()), writeLabel(library, label.source()));
        locate(0);
        ByteArrayOutputStream back = new ByteArrayOutputStream();
        read(0, BS, back);
        assertEquals("test", TapeLabel.parseFor(back.toByteArray(), blank).family());
        unmount(DRIVE);
    }

    @Test
    @Order(5)
    void unmountRetriedAfterARobotFault_leavesNoMtWaitingOnTheEmptyDrive() throws Exception {
        Assumptions.assumeTrue(lab.mhvtl(), "only the mhVTL lab takes its library offline");
        emptyDrives();
        mount(scratch);
        lab.fault("library-offline");
        TapeFault robot;
        try {
            robot = failure(() -> unmount(DRIVE)); // mt offline ejects the tape, mtx unload fails
        } finally {
            lab.fault("library-online");
        }
        assertEquals(FaultKind.ROBOT, robot.kind(), robot.toString());
        long t0 = System.nanoTime();
        unmount(DRIVE); // the retry: the drive is empty (DR_OPEN), the changer still says full
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertEquals("", lab.ssh("pgrep -af '^mt ' || true").strip(), "an mt command still waits in the guest");
        assertTrue(millis < TAPE_TIMEOUT_MILLIS, "the retried unmount took " + millis + " ms");
        assertEquals(List.of(), loadedBarcodes());
        // the next cartridge loaded into the drive stays loaded
        mount(scratch);
        assertTrue(lab.ssh("mt -f " + Lab.device(0) + " status").contains("ONLINE"));
        unmount(DRIVE);
    }

    @Test
    @Order(6)
    void changerSaysFull_libraryHoldsNothing_mountReturnsTheStrayCartridgeFirst() throws Exception {
        Assumptions.assumeTrue(lab.mhvtl(), "mhVTL lab");
        emptyDrives();
        // Behind the library's back: a cartridge loaded into drive 0 and ejected there, as a stale mt offline does.
        String stray = lab.barcode(1);
        lab.ssh("mtx -f /dev/vtl/changer load 1 0 && sleep 1 && mt -f " + Lab.device(0) + " offline");
        mount(scratch);
        Inventory inv = inventory(library);
        assertEquals(scratch, inv.drives().get(0).loadedBarcode());
        assertTrue(inv.cartridges().stream().anyMatch(c -> c.barcode().equals(stray)
                && c.location().startsWith("slot:")), inv.toString());
        unmount(DRIVE);
    }

    @Test
    @Order(7)
    void tapeAlert_cleaningAndHardwareFailTheMountBeforeTheRobotMoves_mediaFlagsStopWrites() throws Exception {
        Assumptions.assumeTrue(lab.mhvtl(), "only the mhVTL lab raises TapeAlert flags");
        emptyDrives();
        try {
            lab.fault("tapealert", "1", Long.toHexString(1L << (0x14 - 1))); // cleaning required
            TapeFault cleaning = failure(() -> mount(scratch));
            assertEquals(FaultKind.CLEANING, cleaning.kind(), cleaning.toString());
            assertTrue(cleaning.getMessage().contains("0x14 cleaning required"), cleaning.getMessage());
            assertEquals(List.of(), loadedBarcodes(), "no robot move");

            lab.fault("tapealert", "1", Long.toHexString(1L << (0x1E - 1))); // hardware A
            TapeFault hardware = failure(() -> mount(scratch));
            assertEquals(FaultKind.DRIVE, hardware.kind(), hardware.toString());
            assertTrue(hardware.getMessage().contains("0x1e hardware A"), hardware.getMessage());

            mount(scratch); // the flags were cleared by reading them
            TapeLabel label = new TapeLabel(scratch, "test", System.currentTimeMillis(), BS);
            writeLabel(library, label.source());
            unmount(DRIVE);
            // a media flag raised while the cartridge is loaded: seen before its first write, which it stops
            mount(scratch);
            lab.fault("tapealert", "1", Long.toHexString(1L << (0x04 - 1)));
            TapeFault media = failure(() -> append(source(new byte[10])));
            assertEquals(FaultKind.MEDIA, media.kind(), media.toString());
            assertTrue(media.getMessage().contains("0x04 media"), media.getMessage());
            unmount(DRIVE);
        } finally {
            lab.fault("tapealert", "1", "0");
        }
    }

    @Test
    @Order(8)
    void cartridgeMemory_givesTheRealCapacity() throws Exception {
        Assumptions.assumeTrue(lab.mhvtl(), "only the mhVTL lab has cartridge memory");
        emptyDrives();
        mount(scratch);
        org.tapeq.scheduler.tape.CartridgeCapacity c = library.capacity(DRIVE).orElseThrow(
                () -> new AssertionError("no capacity read from the cartridge memory"));
        assertEquals((long) lab.tapeMb() << 20, c.maximumBytes(), c.toString());
        assertTrue(c.remainingBytes() <= c.maximumBytes() && c.remainingBytes() > 0, c.toString());
        unmount(DRIVE);
        assertTrue(library.capacity(DRIVE).isEmpty(), "nothing known of an empty drive");
    }

    @Test
    @Order(9)
    void libraryOffline_mountIsARobotFault_andWorksOnceItIsBack() throws Exception {
        Assumptions.assumeTrue(lab.mhvtl(), "only the mhVTL lab takes its library offline");
        emptyDrives();
        TapeFault offline;
        lab.fault("library-offline");
        try {
            offline = failure(() -> mount(scratch));
        } finally {
            lab.fault("library-online");
        }
        assertEquals(FaultKind.ROBOT, offline.kind(), offline.toString());
        mount(scratch);
        unmount(DRIVE);
    }

    @Test
    @Order(10)
    void tapeAlert_mediaAndCleaningAfterTheUnload_cartridgeSuspectAndDriveOut() throws Exception {
        Assumptions.assumeTrue(lab.mhvtl(), "only the mhVTL lab raises TapeAlert flags");
        emptyDrives();
        String other = lab.barcode(lab.tapes() - 2);
        try {
            mount(scratch);
            alerts.clear();
            // raised while the cartridge is loaded, read after its unload: both reactions happen
            lab.fault("tapealert", "1", Long.toHexString(1L << (0x04 - 1) | 1L << (0x14 - 1)));
            unmount(DRIVE);
            assertEquals(List.of("suspect d0 " + scratch), alerts, "the cartridge just unloaded is suspect");
            TapeFault cleaning = failure(() -> mount(other));
            assertEquals(FaultKind.CLEANING, cleaning.kind(), "and the drive goes out: " + cleaning);
            assertEquals(List.of(), loadedBarcodes(), "no robot move");

            // raised while the drive is empty, read before the next mount: the cartridge unloaded last
            alerts.clear();
            lab.fault("tapealert", "1", Long.toHexString(1L << (0x05 - 1)));
            mount(other);
            assertEquals(List.of("suspect d0 " + scratch), alerts, "not the cartridge being mounted");
            unmount(DRIVE);
        } finally {
            lab.fault("tapealert", "1", "0");
        }
    }

    @Test
    @Order(11)
    void tapeAlert_cleanPeriodic_reportedAndTheDriveGoesOn() throws Exception {
        Assumptions.assumeTrue(lab.mhvtl(), "only the mhVTL lab raises TapeAlert flags");
        emptyDrives();
        alerts.clear();
        try {
            lab.fault("tapealert", "1", Long.toHexString(1L << (0x15 - 1)));
            mount(scratch); // clean periodic: not a fault
            assertEquals(List.of("cleaning d0"), alerts);
            locate(0);
            unmount(DRIVE);
        } finally {
            lab.fault("tapealert", "1", "0");
        }
    }

    @Test
    @Order(12)
    void unreadableFirstBlock_writtenCartridgeNotBlank_noEod_blankOneStillIs(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(lab.mhvtl(), "only the mhVTL lab has cartridge memory and a blank cartridge");
        emptyDrives();
        // a written cartridge: a label and 3 MB
        mount(scratch);
        writeLabel(library, new TapeLabel(scratch, "test", System.currentTimeMillis(), BS).source());
        append(source(bytes(new Random(12), 3 << 20)));
        unmount(DRIVE);
        // The same lab through a prefix that records every command line and, while the file "fail" exists,
        // fails the next dd read as a medium error at block 0 would (EIO, nothing read, the tape left at BOT).
        Path log = dir.resolve("commands");
        Path failNext = dir.resolve("fail");
        String script = "printf '%s\\n' \"$0\" >> " + log + "; case \"$0\" in *'dd if='*) if [ -e " + failNext
                + " ]; then rm -f " + failNext + "; echo \"dd: error reading '" + Lab.device(0)
                + "': Input/output error\" >&2; exit 1; fi;; esac; exec " + lab.dir().resolve("vtl-ssh") + " \"$0\"";
        ScsiSettings base = lab.settings(BS, TAPE_TIMEOUT_MILLIS);
        ScsiLibrary recorded = new ScsiLibrary(loop, new ScsiSettings(base.changer(), base.drives(), BS,
                List.of("sh", "-c", script), base.robotTimeoutMillis(), base.tapeTimeoutMillis(),
                base.dataStallMillis(), base.dataMinRate()), TapeLabel::parseFor);
        try {
            inventory(recorded);
            await((Completion<Void> done) -> recorded.mount(DRIVE, scratch, done));
            Files.createFile(failNext);
            Files.writeString(log, "");
            TapeFault unreadable = failure(() -> await((Completion<WrittenFile> done) -> recorded.append(DRIVE,
                    source(new byte[10]), done)));
            List<String> sent = Files.readAllLines(log);
            assertTrue(sent.stream().anyMatch(l -> l.contains("dd if=")), "the label was read: " + sent);
            assertEquals(FaultKind.MEDIA, unreadable.kind(), "a written cartridge is no blank: " + unreadable);
            assertTrue(sent.stream().noneMatch(l -> l.matches(".*\\beod\\b.*")), "no eod: " + sent);
            await((Completion<Void> done) -> recorded.unmount(DRIVE, done));

            String blank = lab.barcode(lab.tapes());
            await((Completion<Void> done) -> recorded.mount(DRIVE, blank, done));
            lab.ssh("mt -f " + Lab.device(0) + " rewind && mt -f " + Lab.device(0) + " erase"); // blank again
            Files.writeString(log, "");
            TapeFault noLabel = failure(() -> await((Completion<WrittenFile> done) -> recorded.append(DRIVE,
                    source(new byte[10]), done)));
            assertEquals(FaultKind.LABEL, noLabel.kind(), "the truly blank cartridge is blank: " + noLabel);
            sent = Files.readAllLines(log);
            // the cartridge memory never proves blank: end of data at block 0 does
            assertTrue(sent.stream().anyMatch(l -> l.matches(".*\\beod\\b.*")), "eod decides: " + sent);
            await((Completion<Void> done) -> recorded.unmount(DRIVE, done));
        } finally {
            recorded.close();
        }
    }

    /**
     * Issue item "library offline for a while during mounts ends with the library back in use without an operator",
     * at the backend: the library goes offline while drive 0 holds a cartridge the scheduler wants to switch; the
     * unload fails and is retried (as the scheduler does after its backoff) while it is offline; once it is back the
     * retried unload and the next mount work, and the new cartridge stays loaded and usable.
     */
    @Test
    @Order(13)
    void libraryOfflineWhileSwitchingCartridges_backInUseWithoutAnOperator() throws Exception {
        Assumptions.assumeTrue(lab.mhvtl(), "only the mhVTL lab takes its library offline");
        emptyDrives();
        String next = lab.barcode(lab.tapes() - 2);
        mount(scratch);
        lab.fault("library-offline");
        try {
            for (int attempt = 0; attempt < 3; attempt++) {
                TapeFault robot = failure(() -> unmount(DRIVE));
                assertEquals(FaultKind.ROBOT, robot.kind(), "attempt " + attempt + ": " + robot);
            }
        } finally {
            lab.fault("library-online");
        }
        unmount(DRIVE);
        mount(next);
        locate(0);
        assertEquals(List.of(next), loadedBarcodes());
        assertTrue(lab.ssh("mt -f " + Lab.device(0) + " status").contains("ONLINE"), "the new cartridge stays loaded");
        assertEquals("", lab.ssh("pgrep -af '^mt ' || true").strip(), "an mt command still waits in the guest");
        unmount(DRIVE);
    }

    /**
     * Neither lab's drives implement READ END OF WRAP POSITION or the recommended access order: the mounts go on, the
     * library offers neither (so the engine keeps its own estimate and order), an order request is a refusal, not a
     * drive fault, and a second load does the same.
     */
    @Test
    @Order(14)
    void driveOrder_theLabDrivesLackIt_fallsBackCleanly() throws Exception {
        emptyDrives();
        for (int load = 0; load < 2; load++) {
            mount(scratch);
            assertTrue(library.wrapEnds(DRIVE).isEmpty(), "load " + load + ": no end-of-wrap positions");
            assertEquals(0, library.accessOrderLimit(DRIVE), "load " + load + ": no recommended access order");
            TapeFault refused = failure(() -> await((Completion<int[]> done) -> library.recommendAccessOrder(DRIVE,
                    new long[] {0, 10}, new long[] {5, 20}, done)));
            assertTrue(refused.refusal(), "load " + load + ": " + refused);
            // The fall-back is the drive's answer, not a tape host without sg_raw. mhVTL's drive answers INVALID
            // COMMAND OPERATION CODE: it lacks both commands for good, asked at the first load only. tgt's answers
            // INVALID FIELD IN CDB without a field pointer (sg_raw prints no "Error in Command: byte 1"): a refusal
            // of that load, asked again at the next one.
            assertEquals(lab.mhvtl() ? List.of("wrap ends", "access order") : List.of(), library.lacking(DRIVE),
                    "load " + load);
            locate(0);
            unmount(DRIVE);
        }
    }

    /** Unloads what an earlier failed step left in a drive, so that one failure does not fail the next steps. */
    private void emptyDrives() throws Exception {
        for (Inventory.Drive d : inventory(library).drives()) {
            if (d.loadedBarcode() != null) {
                unmount(d.id());
            }
        }
    }

    private List<String> loadedBarcodes() throws Exception {
        return inventory(library).drives().stream().map(Inventory.Drive::loadedBarcode)
                .filter(java.util.Objects::nonNull).toList();
    }

    /** Writes a tar-less, non-tapeq tape file 0, as another application would. */
    private void writeForeignLabel() throws Exception {
        byte[] foreign = "VOL1 not a tapeq tape".getBytes();
        ScsiLibrary raw = new ScsiLibrary(loop, lab.settings(BS, TAPE_TIMEOUT_MILLIS), TapeLabel::parseFor);
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

    Inventory inventory(ScsiLibrary lib) throws Exception {
        return await((Completion<Inventory> done) -> lib.inventory(done));
    }

    void mount(String barcode) throws Exception {
        await((Completion<Void> done) -> library.mount(DRIVE, barcode, done));
    }

    void unmount(String drive) throws Exception {
        await((Completion<Void> done) -> library.unmount(drive, done));
    }

    void locate(long block) throws Exception {
        await((Completion<Void> done) -> library.locate(DRIVE, block, done));
    }

    long locateFile(int file) throws Exception {
        return await((Completion<Long> done) -> library.locateFile(DRIVE, file, done));
    }

    long read(long skip, long length, OutputStream out) throws Exception {
        return await((Completion<Long> done) -> library.read(DRIVE, skip, length, () -> out, done));
    }

    WrittenFile append(TapeFileSource source) throws Exception {
        return await((Completion<WrittenFile> done) -> library.append(DRIVE, source, done));
    }

    WrittenFile writeLabel(ScsiLibrary lib, TapeFileSource source) throws Exception {
        return await((Completion<WrittenFile> done) -> lib.writeLabel(DRIVE, source, done));
    }
}
