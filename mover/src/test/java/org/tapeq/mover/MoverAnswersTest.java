package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tapeq.mover.proto.Done;
import org.tapeq.mover.proto.HelloReply;
import org.tapeq.mover.proto.ReadChunk;
import org.tapeq.mover.proto.WriteChunk;
import org.tapeq.mover.proto.Written;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.testing.support.Poll;

/**
 * The scheduler's side of a mover's answers that do not add up, from a mover that misbehaves on purpose: no
 * usable answer, a read that delivers fewer bytes than it reports, a write that took fewer bytes than were sent, and a
 * source that failed while the mover reports success, and an answer with neither a result nor a fault. Each must fail, never succeed short.
 */
class MoverAnswersTest {

    private static final int SENT = 10;
    private static final long PROBE_TIMEOUT = 300;
    private static final int BLOCK = 256 * 1024;
    /** The probes the odd mover answers too late: the first {@code slowHellos} of them. */
    private volatile int slowHellos;
    private final java.util.concurrent.atomic.AtomicInteger hellos = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.ScheduledExecutorService late =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    private Server server;
    private RealTimeEventLoop loop;
    private RemoteLibrary library;

    @BeforeEach
    void start() throws IOException {
        ServerServiceDefinition odd = ServerServiceDefinition.builder(MoverRpc.SERVICE)
                .addMethod(MoverRpc.HELLO, ServerCalls.asyncUnaryCall((q, out) -> {
                    HelloReply reply = HelloReply.newBuilder().setMover("odd").setSite("test").addDrives("drive0")
                            .setBlockSize(BLOCK).setEpochSeen(1).build();
                    Runnable answer = () -> {
                        out.onNext(reply);
                        out.onCompleted();
                    };
                    if (hellos.incrementAndGet() <= slowHellos) {
                        late.schedule(answer, 2 * PROBE_TIMEOUT, TimeUnit.MILLISECONDS); // past the deadline
                    } else {
                        answer.run();
                    }
                }))
                .addMethod(MoverRpc.UNMOUNT, ServerCalls.asyncUnaryCall((c, out) -> {
                    out.onNext(Done.getDefaultInstance()); // neither a result nor a fault
                    out.onCompleted();
                }))
                .addMethod(MoverRpc.READ, ServerCalls.asyncServerStreamingCall((c, out) -> {
                    out.onNext(ReadChunk.newBuilder().setData(ByteString.copyFrom(new byte[SENT])).build());
                    out.onNext(ReadChunk.newBuilder().setDone(Done.newBuilder().setValue(SENT * 2)).build());
                    out.onCompleted();
                }))
                .addMethod(MoverRpc.WRITE, ServerCalls.asyncClientStreamingCall(
                        (StreamObserver<Done> out) -> new StreamObserver<WriteChunk>() {
                    private long length;
                    private long got;

                    @Override
                    public void onNext(WriteChunk chunk) {
                        if (chunk.hasCommand()) {
                            length = chunk.getCommand().getLength();
                        } else {
                            got += chunk.getData().size();
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        // reports what it was told (the label flag: one byte less), not what arrived
                        long reported = length == 1000 ? length - 1 : length;
                        out.onNext(Done.newBuilder().setWritten(Written.newBuilder().setBytes(reported)
                                .setBlockCount(1)).build());
                        out.onCompleted();
                    }
                }))
                .build();
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(odd).build().start();
        int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
        loop = new RealTimeEventLoop("test-scheduler", 1);
        library = new RemoteLibrary(new MoverSite(List.of(new MoverEndpoint("odd", "127.0.0.1", port,
                List.of("drive0"))), "odd", 10_000, 50, PROBE_TIMEOUT, 10_000, SiteIdentity.of("test")), loop, BLOCK,
                () -> 1, "test");
    }

    @AfterEach
    void stop() {
        library.close();
        loop.close();
        server.shutdownNow();
        late.shutdownNow();
    }

    @Test
    void oneSlowProbeDoesNotLoseTheMoverButSeveralInARowDo() throws Exception {
        slowHellos = MoverWatch.LOST_AFTER - 1;
        java.util.List<String> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
        library.events(new MoverEvents() {
            @Override
            public void unreachable(String mover, List<String> drives, String reason) {
                lost.add(reason);
            }

            @Override
            public void reachable(String mover, List<String> drives,
                                  java.util.Map<String, java.util.Optional<String>> holding) {
            }
        });
        Poll.until("the mover answered in time after its slow probes",
                () -> hellos.get() > MoverWatch.LOST_AFTER + 2);
        assertEquals(List.of(), lost, "slow probes fewer than " + MoverWatch.LOST_AFTER + " in a row lost the mover");
        slowHellos = Integer.MAX_VALUE;
        Poll.until("the mover lost after " + MoverWatch.LOST_AFTER + " slow probes in a row", () -> !lost.isEmpty());
        assertTrue(lost.get(0).contains("DEADLINE_EXCEEDED"), lost.get(0));
    }

    @Test
    void anEmptyAnswerFails() throws Exception {
        TapeFault f = assertInstanceOf(TapeFault.class, MoverAnswersTest.<Void>call(done -> library.unmount("drive0",
                done)));
        assertTrue(f.getMessage().contains("neither a result nor a fault"), f.getMessage());
    }

    @Test
    void aReadThatDeliversFewerBytesThanItReportsFails() throws Exception {
        ByteArrayOutputStream target = new ByteArrayOutputStream();
        TapeFault f = assertInstanceOf(TapeFault.class,
                MoverAnswersTest.<Long>call(done -> library.read("drive0", 0, 1000, () -> target, done)));
        assertTrue(f.getMessage().contains("reports " + SENT * 2 + " bytes read, " + SENT + " arrived"),
                f.getMessage());
    }

    @Test
    void aWriteTheMoverTookShortFails() throws Exception {
        TapeFault f = assertInstanceOf(TapeFault.class, MoverAnswersTest.<WrittenFile>call(done -> library.append("drive0", bytes(1000, false),
                done)));
        assertTrue(f.getMessage().contains("wrote 999 bytes of 1000"), f.getMessage());
    }

    @Test
    void aSourceThatFailedFailsTheWriteEvenWhenTheMoverReportsSuccess() throws Exception {
        TapeFault f = assertInstanceOf(TapeFault.class, MoverAnswersTest.<WrittenFile>call(done -> library.append("drive0", bytes(500, true),
                done)));
        assertEquals(FaultKind.SOURCE, f.kind(), f.toString());
    }

    /** {@code n} bytes; {@code failAtEnd}: the source throws once they are all written (a checksum check, say). */
    private static TapeFileSource bytes(int n, boolean failAtEnd) {
        return new TapeFileSource() {
            @Override
            public long length() {
                return n;
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                out.write(new byte[n]);
                if (failAtEnd) {
                    throw new IOException("checksum mismatch after the last byte");
                }
            }
        };
    }

    private static <T> Object call(Consumer<Completion<T>> op) throws Exception {
        CompletableFuture<Object> result = new CompletableFuture<>();
        op.accept(new Completion<>() {
            @Override
            public void succeeded(T value) {
                result.complete(value == null ? "done" : value);
            }

            @Override
            public void failed(TapeFault fault) {
                result.complete(fault);
            }
        });
        return result.get(30, TimeUnit.SECONDS);
    }
}
