package org.tapeq.scheduler.tape.scsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.DriveAlerts;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.time.RealTimeEventLoop;

/**
 * The library against a fake tape host: {@code mtx}, {@code mt}, {@code sg_logs}, {@code sg_read_attr} and
 * {@code sg_raw} are scripts first on the command prefix's PATH, keeping a one-drive, three-slot library's state in
 * files; {@code sg_raw} answers with the outputs built from the SCSI reference ({@code spec/}).
 */
class ScsiLibraryFakeHostTest {

    private static final String X = FakeTapeHost.X;
    private static final String Y = FakeTapeHost.Y;
    private static final String Z = FakeTapeHost.Z;

    @TempDir
    Path host;

    private final RealTimeEventLoop loop = new RealTimeEventLoop("test-loop", 1);
    private ScsiLibrary library;

    @AfterEach
    void close() {
        if (library != null) {
            library.close();
        }
        loop.close();
    }

    private void fakeHost() throws IOException {
        fakeHost(null);
    }

    /** The fake host ({@link FakeTapeHost}); its drive answers the INQUIRY in {@code host/inquiry}. */
    private void fakeHost(DriveType configured) throws IOException {
        library = new ScsiLibrary(loop, FakeTapeHost.install(host, configured, "host"), (bytes, barcode) -> { });
    }

    private static void await(Consumer<Completion<Void>> op) throws Exception {
        call(op);
    }

    private static <T> T call(Consumer<Completion<T>> op) throws Exception {
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
        return f.get(60, TimeUnit.SECONDS);
    }

    /** The fault an operation failed with (it must fail). */
    private static <T> TapeFault fault(Consumer<Completion<T>> op) {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> call(op));
        return assertInstanceOf(TapeFault.class, failed.getCause());
    }

    /** The three ranges of the recorded RAO list (spec/README.md): the drive orders them 2, 0, 1. */
    private static final long[] STARTS = {1000, 50_000, 7};
    private static final long[] ENDS = {1100, 50_010, 20};

    private List<String> sgRawCalls() throws IOException {
        Path log = host.resolve("state/sg_raw.log");
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Test
    void flush_writesZeroFilemarksAtEndOfData_andItsFailureIsAFault() throws Exception {
        fakeHost();
        await(done -> library.mount("d0", X, done));
        Path log = host.resolve("state/mt.log");
        Files.deleteIfExists(log);
        await(done -> library.flush("d0", new FlushCheck(X, 7, 1234), done));
        assertEquals(List.of("eod", "weof 0", "tell"), Files.readAllLines(log),
                "a synchronous WRITE FILEMARKS of 0 marks at end of data, then the position");
        Files.createFile(host.resolve("state/failweof"));
        TapeFault f = fault((Completion<Void> done) -> library.flush("d0", new FlushCheck(X, 7, 1234), done));
        assertFalse(f.refusal(), f.toString());
        assertTrue(f.getMessage().contains("flush of d0"), f.getMessage());
    }

    /** The drive was reset after the buffered appends: end of data is short of the held files' end. */
    @Test
    void flushFindingAnotherEndOfData_failsNamingDriveCartridgeAndBothPositions() throws Exception {
        fakeHost();
        await(done -> library.mount("d0", X, done));
        Files.writeString(host.resolve("state/tell"), "1200");
        TapeFault f = fault((Completion<Void> done) -> library.flush("d0", new FlushCheck(X, 7, 1234), done));
        assertEquals(FaultKind.DRIVE, f.kind(), f.toString());
        assertFalse(f.refusal(), f.toString());
        for (String part : List.of("drive d0", "cartridge " + X, "block 1234", "block 1200")) {
            assertTrue(f.getMessage().contains(part), part + " missing: " + f.getMessage());
        }
        TapeFault other = fault((Completion<Void> done) -> library.flush("d0", new FlushCheck(Y, 7, 1200), done));
        assertTrue(other.getMessage().contains("expected cartridge " + Y) && other.getMessage().contains(
                "found cartridge " + X), other.getMessage());
    }

    /** After a flush that found the held files gone, end of data is counted again from the beginning of tape. */
    @Test
    void flushFindingAnotherEndOfData_endOfDataIsCountedAgain() throws Exception {
        fakeHost();
        await(done -> library.mount("d0", X, done));
        Files.writeString(host.resolve("state/tell"), "1200");
        fault((Completion<Long> done) -> library.locateFile("d0", 3, done)); // counts end of data (the fake has no asf)
        Path commands = host.resolve("state/commands");
        await(done -> library.flush("d0", new FlushCheck(X, 7, 1200), done));
        Files.writeString(commands, "");
        fault((Completion<Long> done) -> library.locateFile("d0", 3, done));
        assertFalse(Files.readString(commands).contains("mt rewind"), "end of data known: not counted again");
        fault((Completion<Void> done) -> library.flush("d0", new FlushCheck(X, 7, 1234), done));
        Files.writeString(commands, "");
        fault((Completion<Long> done) -> library.locateFile("d0", 3, done));
        assertTrue(Files.readString(commands).contains("mt rewind"), "end of data counted again after the flush "
                + "found another one: " + Files.readString(commands));
    }

    @Test
    void flushOnAnEmptyDrive_failsWithoutACommand() throws Exception {
        fakeHost();
        TapeFault f = fault((Completion<Void> done) -> library.flush("d0", new FlushCheck(X, 7, 1234), done));
        assertFalse(f.refusal(), f.toString());
        assertFalse(Files.exists(host.resolve("state/mt.log")), "no mt weof on an empty drive");
    }

    @Test
    void driveWithWrapEndsAndRao_offersThemForTheLoadedCartridge() throws Exception {
        fakeHost();
        Files.createFile(host.resolve("state/rao"));
        assertEquals(0, library.accessOrderLimit("d0"), "nothing before a load");
        await(done -> library.mount("d0", X, done));
        long[] reported = WrapEnds.parse(Recorded.text("spec/sg_raw-reowp-lto9.txt"));
        assertArrayEquals(reported, library.wrapEnds("d0").orElseThrow());
        assertEquals(AccessOrder.MAX_SEGMENTS, library.accessOrderLimit("d0"));
        int[] order = ScsiLibraryFakeHostTest.<int[]>call(done -> library.recommendAccessOrder("d0", STARTS, ENDS,
                done));
        assertArrayEquals(new int[] {2, 0, 1}, order);
        await(done -> library.unmount("d0", done));
        assertTrue(library.wrapEnds("d0").isEmpty(), "forgotten at the unload");
        assertEquals(0, library.accessOrderLimit("d0"));
    }

    @Test
    void driveWithoutThem_fallsBackCleanly_andIsAskedOnce() throws Exception {
        fakeHost();
        await(done -> library.mount("d0", X, done));
        assertTrue(library.wrapEnds("d0").isEmpty());
        assertEquals(0, library.accessOrderLimit("d0"));
        TapeFault refused = fault((Completion<int[]> done) -> library.recommendAccessOrder("d0", STARTS, ENDS, done));
        assertTrue(refused.refusal(), refused.toString());
        await(done -> library.unmount("d0", done));
        await(done -> library.mount("d0", Y, done));
        assertTrue(library.wrapEnds("d0").isEmpty());
        assertEquals(List.of("-r a3 1f", "-r a3 9d"), sgRawCalls(),
                "each command asked once, at the first load; the refusal is remembered for the drive");
    }

    @Test
    void driveWithoutThem_isClassifiedAsLackingThem() throws Exception {
        fakeHost();
        await(done -> library.mount("d0", X, done));
        assertEquals(List.of("wrap ends", "access order"), library.lacking("d0"));
    }

    @Test
    void anotherIllegalRequestAtALoad_refusesThatLoadOnly_theNextLoadIsOffered() throws Exception {
        fakeHost();
        Files.createFile(host.resolve("state/rao"));
        // INVALID FIELD IN CDB without a field pointer at the service action: not "the drive lacks the command"
        Files.writeString(host.resolve("state/refuse"), FaultMapTest.sense("Illegal Request", "Invalid field in cdb",
                null));
        await(done -> library.mount("d0", X, done));
        assertTrue(library.wrapEnds("d0").isEmpty(), "refused at this load");
        assertEquals(0, library.accessOrderLimit("d0"));
        assertEquals(List.of(), library.lacking("d0"), "a refusal of one load is not remembered");
        await(done -> library.unmount("d0", done));
        Files.delete(host.resolve("state/refuse"));
        await(done -> library.mount("d0", Y, done));
        assertArrayEquals(WrapEnds.parse(Recorded.text("spec/sg_raw-reowp-lto9.txt")),
                library.wrapEnds("d0").orElseThrow(), "asked again at the next load, and offered");
        assertEquals(AccessOrder.MAX_SEGMENTS, library.accessOrderLimit("d0"));
    }

    @Test
    void invalidServiceActionAtALoad_marksTheDriveAsLackingTheCommand() throws Exception {
        fakeHost();
        Files.writeString(host.resolve("state/refuse"), FaultMapTest.sense("Illegal Request", "Invalid field in cdb",
                "Error in Command: byte 1 bit 4"));
        await(done -> library.mount("d0", X, done));
        assertEquals(List.of("wrap ends", "access order"), library.lacking("d0"));
        await(done -> library.unmount("d0", done));
        await(done -> library.mount("d0", Y, done));
        assertEquals(List.of("-r a3 1f", "-r a3 9d"), sgRawCalls(), "not asked at the second load");
    }

    @Test
    void faultMidRequest_isADriveFault_andTheDriveStillOffersItsOrder() throws Exception {
        fakeHost();
        Files.createFile(host.resolve("state/rao"));
        Files.writeString(host.resolve("state/receive-fails"), "SCSI Status: Check Condition \n\nSense Information:\n"
                + "Fixed format, current; Sense key: Hardware Error\nAdditional sense: Internal target failure\n");
        await(done -> library.mount("d0", X, done));
        TapeFault f = fault((Completion<int[]> done) -> library.recommendAccessOrder("d0", STARTS, ENDS, done));
        assertFalse(f.refusal(), f.toString());
        assertEquals(FaultKind.DRIVE, f.kind());
        assertEquals(AccessOrder.MAX_SEGMENTS, library.accessOrderLimit("d0"), "a fault is no refusal: still offered");
        Files.delete(host.resolve("state/receive-fails"));
        assertArrayEquals(new int[] {2, 0, 1}, ScsiLibraryFakeHostTest.<int[]>call(done ->
                library.recommendAccessOrder("d0", STARTS, ENDS, done)));
    }

    @Test
    void mount_failedAfterTheLoadWithAMediaFlag_theReturnedCartridgeIsSuspectNotTheOneBefore() throws Exception {
        fakeHost();
        List<String> suspects = new CopyOnWriteArrayList<>();
        library.alerts(new DriveAlerts() {
            @Override
            public void cartridgeSuspect(String drive, String barcode, String reason) {
                suspects.add(barcode);
            }

            @Override
            public void cleaningDue(String drive, String reason) {
            }
        });
        await(done -> library.mount("d0", X, done));
        await(done -> library.unmount("d0", done));
        Files.createFile(host.resolve("state/failrewind")); // Y's rewind fails and the drive raises a media flag
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> await(done -> library.mount("d0", Y, done)));
        assertEquals(TapeFault.class, failed.getCause().getClass());
        assertEquals(Y, Files.readString(host.resolve("state/slot2")), "Y went back to its slot");
        await(done -> library.mount("d0", Z, done));
        assertEquals(List.of(Y), suspects, "the media flag concerns Y, the cartridge in the drive when it was raised");
    }

    private Inventory inventory() throws Exception {
        CompletableFuture<Inventory> f = new CompletableFuture<>();
        library.inventory(new Completion<>() {
            @Override
            public void succeeded(Inventory value) {
                f.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                f.completeExceptionally(fault);
            }
        });
        return f.get(60, TimeUnit.SECONDS);
    }

    @Test
    void driveType_fromTheInquiryAtTheFirstInventory_onceNotAtLaterOnes() throws Exception {
        fakeHost();
        assertEquals(Optional.empty(), library.driveType("d0"), "not known before the first inventory");
        inventory();
        assertEquals(Optional.of(DriveType.LTO8), library.driveType("d0"));
        inventory();
        assertEquals(List.of("/dev/nst0"), Files.readAllLines(host.resolve("state/inquired")),
                "asked once, at the first inventory");
        assertEquals(Optional.empty(), library.driveType("d9"), "no such drive");
    }

    @Test
    void driveType_ofAnLto9Drive() throws Exception {
        fakeHost();
        // an HPE LTO-9 drive's identification, in sg_inq's layout
        Files.writeString(host.resolve("inquiry"), Recorded.text("mhvtl/sg_inq-ult3580-td8.txt")
                .replace("IBM     ", "HPE     ").replace("ULT3580-TD8     ", "Ultrium 9-SCSI  "));
        inventory();
        assertEquals(Optional.of(DriveType.LTO9), library.driveType("d0"));
    }

    @Test
    void driveType_unknownProductOrFailedInquiry_staysUnknown() throws Exception {
        fakeHost();
        Files.writeString(host.resolve("inquiry"), Recorded.text("lab/sg_inq-ult3580-td5.txt")); // LTO-5
        inventory();
        assertEquals(Optional.empty(), library.driveType("d0"));

        library.close();
        fakeHost();
        Files.delete(host.resolve("inquiry")); // cat fails: the command fails
        inventory();
        assertEquals(Optional.empty(), library.driveType("d0"));
    }

    @Test
    void driveType_configured_overridesTheInquiryWhichIsNotAsked() throws Exception {
        fakeHost(DriveType.LTO9);
        inventory();
        assertEquals(Optional.of(DriveType.LTO9), library.driveType("d0"));
        assertFalse(Files.exists(host.resolve("state/inquired")), "the drive was not asked");
    }
}
