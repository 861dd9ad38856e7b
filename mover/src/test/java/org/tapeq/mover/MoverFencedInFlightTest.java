package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.ByteString;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.mover.proto.Done;
import org.tapeq.mover.proto.DriveCommand;
import org.tapeq.mover.proto.HelloReply;
import org.tapeq.mover.proto.ReadChunk;
import org.tapeq.mover.proto.WriteChunk;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.scheduler.time.Threads;
import org.tapeq.testing.support.Poll;

/**
 * A newer lease epoch stops the deposed scheduler's commands already running at the mover: a write it is still
 * streaming ends at once as fenced and keeps no partial file, a command of the old epoch waiting for the drive is
 * refused, and the new scheduler's first command to the drive runs only after the stopped one has ended. A write
 * whose bytes had all arrived before the stop is written all the same, and its answer names the tape file. A
 * library call that throws is answered as failed and does not keep its drive busy.
 */
class MoverFencedInFlightTest {

    private static final SiteIdentity SITE = SiteIdentity.of("gridka");
    /** Far beyond the test's waits: a write left running is not ended by the mover's stall limit meanwhile. */
    private static final long STALL_MILLIS = 120_000;
    /** A filemark of 10 simulated minutes, about 3 s here: a write's bytes are all taken well before its end. */
    private static final long FILEMARK_MILLIS = 600_000;

    @TempDir
    Path dir;
    private RealTimeEventLoop libraryLoop;
    private ThreadPoolExecutor copies;
    private ThreadPoolExecutor callbacks;
    private SimulatedLibrary library;
    private MoverServer mover;
    private MoverClient client;
    private final List<String> answers = new CopyOnWriteArrayList<>();

    /** Starts the mover over a library whose filemarks take {@code filemarkMillis} (simulated; 0: its default). */
    private void start(long filemarkMillis) throws Exception {
        Files.createDirectories(dir.resolve("tapes"));
        libraryLoop = new RealTimeEventLoop("test-library", 200);
        copies = pool("test-copy");
        callbacks = pool("test-callback");
        var b = SimulatedLibrary.builder(libraryLoop).seed(7).bytes(dir.resolve("tapes")).copyExecutor(copies);
        if (filemarkMillis > 0) {
            b.filemarkMillis(filemarkMillis);
        }
        library = b.drives(1).cartridge("A00001", MediaType.LTO9, 200_000_000L).build();
        AlertBox alerts = new AlertBox();
        library.alerts(alerts);
        mover = MoverServer.start("m1", new InetSocketAddress("127.0.0.1", 0), Set.of("drive0"), library, alerts,
                libraryLoop, Files.createDirectories(dir.resolve("m1")), SITE, STALL_MILLIS);
        client = new MoverClient(new MoverEndpoint("m1", "127.0.0.1", mover.port(), List.of("drive0")), "test",
                SITE, callbacks);
    }

    @AfterEach
    void stop() {
        client.close();
        mover.close();
        libraryLoop.close();
        library.close();
        copies.shutdownNow();
        callbacks.shutdownNow();
    }

    @Test
    void aNewerEpochStopsTheDeposedSchedulersWriteAndTheNewOnesCommandWaitsForIt() throws Exception {
        start(0);
        assertFalse(unary(MoverRpc.MOUNT, command(1).setBarcode("A00001"), "mount").get(10, TimeUnit.SECONDS)
                .hasFault());
        Done label = write(command(1).setLabel(true), 1000, 1000, "label").get(10, TimeUnit.SECONDS);
        assertEquals(0, label.getWritten().getFileNumber(), label.toString());

        // epoch 1 streams a write and stalls half way (its host paused, say); a locate of epoch 1 waits behind it
        CompletableFuture<Done> stalled = write(command(1), 4 << 20, 1 << 20, "stalled write");
        Poll.until("the write runs", () -> mover.turns().busy("drive0"));
        CompletableFuture<Done> waiting = unary(MoverRpc.LOCATE, command(1).setBlock(0), "old locate");
        Poll.until("the old locate waits for the drive", () -> mover.turns().waiting("drive0") == 1);

        CompletableFuture<HelloReply> hello = new CompletableFuture<>();
        client.hello(2, 10_000, observer(hello, "hello"));
        assertEquals(2, hello.get(10, TimeUnit.SECONDS).getEpochSeen());
        CompletableFuture<Done> fresh = unary(MoverRpc.LOCATE, command(2).setBlock(0), "new locate");

        Done stopped = stalled.get(10, TimeUnit.SECONDS); // before: it waited for its bytes for the stall limit
        assertTrue(stopped.getFault().getRefusal() && stopped.getFault().getMessage().contains("fenced"),
                stopped.toString());
        Done old = waiting.get(10, TimeUnit.SECONDS);
        assertTrue(old.getFault().getRefusal() && old.getFault().getMessage().contains("fenced"), old.toString());
        Done after = fresh.get(10, TimeUnit.SECONDS);
        assertFalse(after.hasFault(), after.toString());
        assertTrue(answers.indexOf("new locate") > answers.indexOf("stalled write"),
                "the new epoch's locate ran before the stopped write had ended: " + answers);

        Done next = write(command(2), 5000, 5000, "append").get(10, TimeUnit.SECONDS);
        assertFalse(next.hasFault(), next.toString());
        assertEquals(1, next.getWritten().getFileNumber(), "the stopped write recorded a tape file: " + next);
    }

    @Test
    void aFencedWriteWhoseBytesHadAllArrivedIsAnsweredWithTheTapeFileItWrote() throws Exception {
        start(FILEMARK_MILLIS);
        assertFalse(unary(MoverRpc.MOUNT, command(1).setBarcode("A00001"), "mount").get(10, TimeUnit.SECONDS)
                .hasFault());
        assertFalse(write(command(1).setLabel(true), 1000, 1000, "label").get(10, TimeUnit.SECONDS).hasFault());

        // every byte is sent and taken by the library; the tape file is still being closed (a slow filemark) when
        // epoch 2 arrives
        long copied = copies.getCompletedTaskCount();
        CompletableFuture<Done> whole = write(command(1), 5000, 5000, "whole write");
        Poll.until("the write's bytes are all taken", () -> copies.getCompletedTaskCount() > copied);
        assertTrue(mover.turns().busy("drive0") && !whole.isDone(), "the write ended before the rise: " + answers);
        CompletableFuture<HelloReply> hello = new CompletableFuture<>();
        client.hello(2, 10_000, observer(hello, "hello"));
        assertEquals(2, hello.get(10, TimeUnit.SECONDS).getEpochSeen());

        Done d = whole.get(10, TimeUnit.SECONDS);
        assertTrue(d.getFault().getRefusal() && d.getFault().getMessage().contains("fenced"), d.toString());
        assertTrue(d.getFault().getMessage().contains("tape file 1"),
                "the answer does not say that tape file 1 was written: " + d);
        Done next = write(command(2), 5000, 5000, "append").get(10, TimeUnit.SECONDS);
        assertEquals(2, next.getWritten().getFileNumber(), "the fenced write did not write tape file 1: " + next);
    }

    @Test
    void aStoppedMoverStopsItsTransferSoTheLibraryDriveIsFreeForTheMoverThatReplacesIt() throws Exception {
        start(0);
        assertFalse(unary(MoverRpc.MOUNT, command(1).setBarcode("A00001"), "mount").get(10, TimeUnit.SECONDS)
                .hasFault());
        assertFalse(write(command(1).setLabel(true), 1000, 1000, "label").get(10, TimeUnit.SECONDS).hasFault());
        write(command(1), 4 << 20, 1 << 20, "stalled write");
        Poll.until("the write runs", () -> mover.turns().busy("drive0"));

        // the mover stops (its host shut down) while the library, a process of its own, goes on
        mover.close();
        client.close();
        mover = MoverServer.start("m1", new InetSocketAddress("127.0.0.1", 0), Set.of("drive0"), library,
                new AlertBox(), libraryLoop, dir.resolve("m1"), SITE, STALL_MILLIS);
        client = new MoverClient(new MoverEndpoint("m1", "127.0.0.1", mover.port(), List.of("drive0")), "test",
                SITE, callbacks);
        // before: the library's drive stayed busy with the old mover's write until the stall limit
        Done located = unary(MoverRpc.LOCATE, command(1).setBlock(0), "locate").get(10, TimeUnit.SECONDS);
        assertFalse(located.hasFault(), "the replacing mover's first command: " + located);
        Done next = write(command(1), 5000, 5000, "append").get(10, TimeUnit.SECONDS);
        assertEquals(1, next.getWritten().getFileNumber(), "the stopped write recorded a tape file: " + next);
    }

    @Test
    void aLibraryCallThatThrowsIsAnsweredAsFailedAndTheDrivesNextCommandRuns() throws Exception {
        start(0);
        assertFalse(unary(MoverRpc.MOUNT, command(1).setBarcode("A00001"), "mount").get(10, TimeUnit.SECONDS)
                .hasFault());
        // the simulated library refuses a negative skip by throwing on its loop
        CompletableFuture<ReadChunk> read = new CompletableFuture<>();
        ClientCalls.asyncServerStreamingCall(client.call(MoverRpc.READ, 30_000),
                command(1).setSkipBytes(-1).setLength(10).build(), observer(read, "read"));
        ReadChunk last = read.get(10, TimeUnit.SECONDS); // before: no answer until the deadline
        assertTrue(last.hasDone() && last.getDone().hasFault() && !last.getDone().getFault().getRefusal()
                && last.getDone().getFault().getMessage().contains("negative skip"), last.toString());
        Done next = unary(MoverRpc.LOCATE, command(1).setBlock(0), "locate").get(10, TimeUnit.SECONDS);
        assertFalse(next.hasFault(), "the drive's next command: " + next);
    }

    private DriveCommand.Builder command(long epoch) {
        return client.command(epoch, "drive0");
    }

    private CompletableFuture<Done> unary(MethodDescriptor<DriveCommand, Done> method, DriveCommand.Builder c,
                                          String name) {
        CompletableFuture<Done> done = new CompletableFuture<>();
        client.unary(method, c.build(), 30_000, observer(done, name));
        return done;
    }

    /** A write of {@code length} bytes of which only {@code sent} are sent (the stream then stays open). */
    private CompletableFuture<Done> write(DriveCommand.Builder c, int length, int sent, String name) {
        CompletableFuture<Done> done = new CompletableFuture<>();
        StreamObserver<WriteChunk> out = ClientCalls.asyncClientStreamingCall(client.call(MoverRpc.WRITE, 30_000),
                observer(done, name));
        out.onNext(WriteChunk.newBuilder().setCommand(c.setLength(length)).build());
        out.onNext(WriteChunk.newBuilder().setData(ByteString.copyFrom(new byte[sent])).build());
        if (sent == length) {
            out.onCompleted();
        }
        return done;
    }

    private <T> StreamObserver<T> observer(CompletableFuture<T> done, String name) {
        return new StreamObserver<>() {
            @Override
            public void onNext(T value) {
                answers.add(name);
                done.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
            }
        };
    }

    private static ThreadPoolExecutor pool(String name) {
        return new ThreadPoolExecutor(4, 4, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1_000),
                Threads.numbered(name), new ThreadPoolExecutor.AbortPolicy());
    }
}
