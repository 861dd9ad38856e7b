package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.mover.proto.Done;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.scheduler.time.Threads;
import org.tapeq.testing.support.Poll;

/**
 * A failover while the deposed scheduler's mount still runs at the mover (a mount cannot be interrupted): the
 * successor's first inventory, whose Hello fences that mount, must not take the drive as it is at that moment.
 * The drive is reported unreachable (its mover lost), and once the mount has ended the mover's return reports
 * the drive holding the cartridge the mount put there.
 */
class MoverFencedMountTest {

    private static final SiteIdentity SITE = SiteIdentity.of("gridka");
    /** Simulated milliseconds per real one. */
    private static final double SPEED = 200;
    /** One robot move: 20 simulated minutes, about 6 s here, so the mount is still running at the inventory. */
    private static final long EXCHANGE_MILLIS = 1_200_000;

    @TempDir
    Path dir;
    private RealTimeEventLoop libraryLoop;
    private RealTimeEventLoop schedulerLoop;
    private ThreadPoolExecutor copies;
    private ThreadPoolExecutor callbacks;
    private SimulatedLibrary library;
    private MoverServer mover;
    private MoverClient deposed;
    private RemoteLibrary successor;
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Map<String, Optional<String>>> returned = new CompletableFuture<>();

    @BeforeEach
    void start() throws Exception {
        Files.createDirectories(dir.resolve("tapes"));
        libraryLoop = new RealTimeEventLoop("test-library", SPEED);
        schedulerLoop = new RealTimeEventLoop("test-scheduler", SPEED);
        copies = pool("test-copy");
        callbacks = pool("test-callback");
        library = SimulatedLibrary.builder(libraryLoop).seed(7).bytes(dir.resolve("tapes")).copyExecutor(copies)
                .exchangeMillis(EXCHANGE_MILLIS).drives(1).cartridge("A00001", MediaType.LTO9, 200_000_000L)
                .build();
        AlertBox alerts = new AlertBox();
        library.alerts(alerts);
        mover = MoverServer.start("m1", new InetSocketAddress("127.0.0.1", 0), Set.of("drive0"), library, alerts,
                libraryLoop, Files.createDirectories(dir.resolve("m1")), SITE, 120_000);
        deposed = new MoverClient(new MoverEndpoint("m1", "127.0.0.1", mover.port(), List.of("drive0")), "deposed",
                SITE, callbacks);
    }

    @AfterEach
    void stop() {
        if (successor != null) {
            successor.close();
        }
        deposed.close();
        mover.close();
        schedulerLoop.close();
        libraryLoop.close();
        library.close();
        copies.shutdownNow();
        callbacks.shutdownNow();
    }

    @Test
    void aSuccessorsFirstInventoryDuringAFencedMountReportsTheDriveUnreachableUntilTheMountHasEnded()
            throws Exception {
        CompletableFuture<Done> mount = new CompletableFuture<>();
        deposed.unary(MoverRpc.MOUNT, deposed.command(1, "drive0").setBarcode("A00001").build(), 120_000,
                observer(mount));
        Poll.until("the deposed scheduler's mount runs", () -> mover.turns().busy("drive0"));

        MoverSite site = new MoverSite(List.of(new MoverEndpoint("m1", "127.0.0.1", mover.port(),
                List.of("drive0"))), "m1", 60_000, 100, 5_000, 10_000, SITE);
        successor = new RemoteLibrary(site, schedulerLoop, library.blockSize(), () -> 2, "successor");
        CompletableFuture<Inventory> inventory = new CompletableFuture<>();
        successor.inventory(new Completion<>() {
            @Override
            public void succeeded(Inventory value) {
                inventory.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                inventory.completeExceptionally(fault);
            }
        });
        Inventory.Drive drive0 = inventory.get(10, TimeUnit.SECONDS).drives().get(0);
        assertFalse(mount.isDone(), "the mount ended before the inventory: the test proves nothing");
        assertNotNull(drive0.unreachable(), "drive0 taken as it was in the middle of a fenced mount: " + drive0);
        assertTrue(successor.lost("m1"), "m1 not lost");

        successor.events(new MoverEvents() {
            @Override
            public void unreachable(String m, List<String> drives, String reason) {
                events.add("unreachable: " + reason);
            }

            @Override
            public void reachable(String m, List<String> drives, Map<String, Optional<String>> holding) {
                events.add("reachable " + holding);
                returned.complete(holding);
            }
        });
        Poll.until("the fenced mount has ended", Duration.ofSeconds(60), mount::isDone);
        Map<String, Optional<String>> holding = returned.get(30, TimeUnit.SECONDS);
        assertEquals(Optional.of("A00001"), holding.get("drive0"), "after the return: " + events);
        assertTrue(events.stream().filter(e -> e.startsWith("reachable")).count() == 1, events.toString());
    }

    private StreamObserver<Done> observer(CompletableFuture<Done> done) {
        return new StreamObserver<>() {
            @Override
            public void onNext(Done value) {
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
