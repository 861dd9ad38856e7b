package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.FlushCheck;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * What the scheduler asks of a drive besides plain reads and writes reaches the mover's library: its type, its access
 * order, appends with buffered tape marks and the flush.
 */
class MoverForwardingTest {

    @TempDir
    Path dir;

    @Test
    void driveTypeAndRecommendedAccessOrderComeFromTheMoversLibrary() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, b -> b.drive("drive0", DriveType.LTO9).drives(3)
                .accessOrderLimit(8), "A00001")) {
            RemoteLibrary remote = site.remote;
            assertEquals(Optional.of(DriveType.LTO9), onLoop(site, () -> remote.driveType("drive0")));
            assertEquals(Optional.empty(), onLoop(site, () -> remote.driveType("drive1")));
            Ops.await(site, (Completion<Void> done) -> remote.mount("drive0", "A00001", done));
            assertEquals(8, (int) onLoop(site, () -> remote.accessOrderLimit("drive0")));
            int[] order = Ops.await(site, (Completion<int[]> done) ->
                    remote.recommendAccessOrder("drive0", new long[] {0}, new long[] {1}, done));
            assertArrayEquals(new int[] {0}, order);
        }
    }

    @Test
    void bufferedAppendAndFlushReachTheMoversLibrary() throws Exception {
        try (MoverSiteFixture site = new MoverSiteFixture(dir, "A00001")) {
            RemoteLibrary remote = site.remote;
            Ops.await(site, (Completion<Void> done) -> remote.mount("drive0", "A00001", done));
            WrittenFile w = Ops.await(site, (Completion<WrittenFile> done) ->
                    remote.appendBuffered("drive0", bytes(10_000), done));
            assertEquals(10_000, w.bytes());
            assertEquals(1, onLibraryLoop(site, () -> site.library.unflushedFiles("drive0")),
                    "appended with a buffered mark on the mover's drive");
            long end = w.startBlock() + w.blockCount() + 1;
            TapeFault wrong = Ops.fault(site, (Completion<Void> done) ->
                    remote.flush("drive0", new FlushCheck("A00001", w.fileNumber(), end + 1), done));
            assertTrue(wrong.getMessage().contains("expected cartridge A00001 with end of data at block " + (end + 1))
                    && wrong.getMessage().contains("drive0"), "the check crossed to the mover: " + wrong);
            Ops.await(site, (Completion<Void> done) ->
                    remote.flush("drive0", new FlushCheck("A00001", w.fileNumber(), end), done));
            assertEquals(0, onLibraryLoop(site, () -> site.library.unflushedFiles("drive0")), "flushed");
            Ops.await(site, (Completion<WrittenFile> done) -> remote.append("drive0", bytes(10_000), done));
            assertEquals(0, onLibraryLoop(site, () -> site.library.unflushedFiles("drive0")),
                    "a plain append stays synchronous");
        }
    }

    private static TapeFileSource bytes(int n) {
        return new TapeFileSource() {
            @Override
            public long length() {
                return n;
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                out.write(new byte[n]);
            }
        };
    }

    private static <T> T onLibraryLoop(MoverSiteFixture site, java.util.function.Supplier<T> what) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        site.libraryLoop.execute(() -> f.complete(what.get()));
        return f.get(30, TimeUnit.SECONDS);
    }

    /** {@code what} asked on the scheduler's loop, after an inventory there (the scheduler's start did one). */
    private static <T> T onLoop(MoverSiteFixture site, java.util.function.Supplier<T> what) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        site.loop.execute(() -> f.complete(what.get()));
        return f.get(30, TimeUnit.SECONDS);
    }

    /** Runs a library operation and waits for its value; a fault fails the test. */
    static final class Ops {
        static <T> T await(MoverSiteFixture site, Consumer<Completion<T>> op) throws Exception {
            CompletableFuture<T> f = new CompletableFuture<>();
            site.loop.execute(() -> op.accept(new Completion<>() {
                @Override
                public void succeeded(T value) {
                    f.complete(value);
                }

                @Override
                public void failed(TapeFault fault) {
                    f.completeExceptionally(fault);
                }
            }));
            return f.get(30, TimeUnit.SECONDS);
        }

        /** Runs a library operation that must fail and returns its fault. */
        static TapeFault fault(MoverSiteFixture site, Consumer<Completion<Void>> op) {
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> await(site, op));
            return org.junit.jupiter.api.Assertions.assertInstanceOf(TapeFault.class, e.getCause());
        }
    }
}
