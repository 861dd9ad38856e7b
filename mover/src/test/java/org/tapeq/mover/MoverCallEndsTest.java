package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tapeq.mover.proto.Drive;
import org.tapeq.mover.proto.HelloReply;
import org.tapeq.mover.proto.InventoryReply;
import org.tapeq.mover.proto.Library;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.testing.support.Poll;

/**
 * How a call that ends without an answer counts, against a mover that answers its probes but never its drive
 * commands: a call the scheduler ends itself (closing) is no mover loss; a command past its deadline is (its
 * outcome unknown), and the mover comes back only once it reports the drive idle, with what the drive holds.
 */
class MoverCallEndsTest {

    private static final int BLOCK = 256 * 1024;
    private static final long COMMAND_MILLIS = 300;
    /** Whether the mover reports drive0 still running a command. */
    private final AtomicBoolean busy = new AtomicBoolean(true);
    /** Inventories asked of the mover. */
    private final java.util.concurrent.atomic.AtomicInteger inventories = new java.util.concurrent.atomic.AtomicInteger();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private Server server;
    private RealTimeEventLoop loop;
    private RemoteLibrary library;

    @BeforeEach
    void start() throws Exception {
        ServerServiceDefinition silent = ServerServiceDefinition.builder(MoverRpc.SERVICE)
                .addMethod(MoverRpc.HELLO, ServerCalls.asyncUnaryCall((q, out) -> {
                    out.onNext(HelloReply.newBuilder().setMover("slow").setSite("test").addDrives("drive0")
                            .setBlockSize(BLOCK).setEpochSeen(1).build());
                    out.onCompleted();
                }))
                .addMethod(MoverRpc.INVENTORY, ServerCalls.asyncUnaryCall((q, out) -> {
                    inventories.incrementAndGet();
                    out.onNext(InventoryReply.newBuilder().setLibrary(Library.newBuilder().addDrives(Drive
                            .newBuilder().setId("drive0").setOnline(true).setLoadedBarcode("A00001")
                            .setOrphanRunning(busy.get()))).build());
                    out.onCompleted();
                }))
                .addMethod(MoverRpc.MOUNT, ServerCalls.asyncUnaryCall((c, out) -> { })) // never answered
                .addMethod(MoverRpc.LOCATE, ServerCalls.asyncUnaryCall((c, out) -> { }))
                .build();
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(silent).build()
                .start();
        loop = new RealTimeEventLoop("test-scheduler", 1);
    }

    /** The scheduler's library over the silent mover, its commands with a deadline of {@code commandMillis}. */
    private void open(long commandMillis) {
        int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
        library = new RemoteLibrary(new MoverSite(List.of(new MoverEndpoint("slow", "127.0.0.1", port,
                List.of("drive0"))), "slow", commandMillis, 50, 5_000, 10_000, SiteIdentity.of("test")), loop, BLOCK,
                () -> 1, "test");
        library.events(new MoverEvents() {
            @Override
            public void unreachable(String mover, List<String> drives, String reason) {
                events.add("unreachable: " + reason);
            }

            @Override
            public void reachable(String mover, List<String> drives, Map<String, Optional<String>> holding) {
                events.add("reachable: " + holding);
            }
        });
    }

    @AfterEach
    void stop() {
        if (library != null) {
            library.close();
        }
        loop.close();
        server.shutdownNow();
    }

    @Test
    void aCallEndedByTheSchedulersOwnCloseIsNoMoverLoss() throws Exception {
        open(60_000);
        CompletableFuture<Object> mount = new CompletableFuture<>();
        library.mount("drive0", "A00001", completion(mount));
        library.close();
        TapeFault f = assertInstanceOf(TapeFault.class, mount.get(10, TimeUnit.SECONDS));
        assertTrue(f.getMessage().contains("cancelled by this scheduler"), f.getMessage());
        assertEquals(List.of(), events, "the scheduler's own close was taken for the mover's loss");
    }

    @Test
    void aCommandPastItsDeadlineLosesTheMoverUntilItReportsTheDriveIdle() throws Exception {
        open(COMMAND_MILLIS);
        CompletableFuture<Object> locate = new CompletableFuture<>();
        library.locate("drive0", 5, completion(locate));
        TapeFault f = assertInstanceOf(TapeFault.class, locate.get(10, TimeUnit.SECONDS));
        assertTrue(f.getMessage().contains("ran past its deadline") && f.getMessage().contains("unreachable"),
                f.getMessage());
        Poll.until("the mover lost", () -> !events.isEmpty());
        assertTrue(events.get(0).startsWith("unreachable: mover slow unreachable since ")
                && events.get(0).contains("outcome is unknown"), events.toString());
        Poll.until("three returns checked while the drive is busy", () -> inventories.get() >= 3);
        assertFalse(events.stream().anyMatch(e -> e.startsWith("reachable")), "back while its drive is busy");
        busy.set(false);
        Poll.until("the mover back", () -> events.size() == 2);
        assertEquals("reachable: {drive0=Optional[A00001]}", events.get(1));
    }

    @Test
    void onlyACancelOfTheMoversSideCountsAsUnreachable() {
        assertTrue(MoverClient.unreachable(Status.CANCELLED.withDescription("RST_STREAM").asRuntimeException()));
        assertFalse(MoverClient.unreachable(Status.CANCELLED.withCause(new MoverClient.CancelledHere("target failed",
                null)).asRuntimeException()));
        assertFalse(MoverClient.unreachable(Status.DEADLINE_EXCEEDED.asRuntimeException()));
        assertTrue(MoverClient.unreachable(Status.UNAVAILABLE.asRuntimeException()));
    }

    private static <T> Completion<T> completion(CompletableFuture<Object> f) {
        return new Completion<>() {
            @Override
            public void succeeded(T value) {
                f.complete("succeeded");
            }

            @Override
            public void failed(TapeFault fault) {
                f.complete(fault);
            }
        };
    }
}
