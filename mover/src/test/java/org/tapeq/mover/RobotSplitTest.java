package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

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

/**
 * A site whose changer one mover drives ({@code movers.robot: changer}): one simulated library shared in this
 * process, mover m1 driving the changer (drive0, drive1) and mover m2 without that role (drive2, drive3), each
 * through a {@link RobotRecorder} that logs what it asks of the library, and a scheduler's {@link RemoteLibrary}.
 */
class RobotSplitTest {

    private static final double SPEED = 200;
    private static final SiteIdentity SITE = new SiteIdentity("gridka", "s3cret");
    private static final List<List<String>> DRIVES = List.of(List.of("drive0", "drive1"), List.of("drive2", "drive3"));

    @TempDir
    Path dir;

    private RealTimeEventLoop libraryLoop;
    private ThreadPoolExecutor pool;
    private SimulatedLibrary simulated;
    private final AlertBox alerts = new AlertBox();
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final AtomicInteger robotBusy = new AtomicInteger();
    private final AtomicInteger robotMostBusy = new AtomicInteger();
    private final RobotRecorder[] recorders = new RobotRecorder[2];
    private final MoverServer[] movers = new MoverServer[2];
    private final int[] ports = new int[2];
    private RealTimeEventLoop loop;
    private final AtomicLong epoch = new AtomicLong(2);
    private RemoteLibrary remote;

    @BeforeEach
    void start() throws IOException {
        libraryLoop = new RealTimeEventLoop("test-library", SPEED);
        pool = new ThreadPoolExecutor(4, 4, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(100),
                Threads.numbered("test-pool"), new ThreadPoolExecutor.AbortPolicy());
        simulated = SimulatedLibrary.builder(libraryLoop).drives(4).seed(3).bytes(Files.createDirectories(
                dir.resolve("tapes"))).copyExecutor(pool).cartridge("A00001", MediaType.LTO9, 200_000_000L)
                .cartridge("A00002", MediaType.LTO9, 200_000_000L).build();
        simulated.alerts(alerts);
        for (int i = 0; i < 2; i++) {
            recorders[i] = new RobotRecorder("m" + (i + 1), simulated, log, robotBusy, robotMostBusy);
            startMover(i);
        }
        loop = new RealTimeEventLoop("test-scheduler", 1);
        remote = new RemoteLibrary(site(), loop, simulated.blockSize(), epoch::get, "test-scheduler");
        remote.events(MoverEvents.NONE);
    }

    private MoverSite site() {
        return new MoverSite(List.of(new MoverEndpoint("m1", "127.0.0.1", ports[0], DRIVES.get(0)),
                new MoverEndpoint("m2", "127.0.0.1", ports[1], DRIVES.get(1))), "m1", 60_000, 100, 5_000, 10_000,
                SITE, true);
    }

    /** Starts mover {@code i} (m1 drives the changer), on the port it had before if it ran already. */
    private void startMover(int i) throws IOException {
        movers[i] = MoverServer.start("m" + (i + 1), new InetSocketAddress("127.0.0.1", ports[i]),
                java.util.Set.copyOf(DRIVES.get(i)), recorders[i], alerts, libraryLoop,
                Files.createDirectories(dir.resolve("m" + (i + 1))), SITE, 10_000, null, i == 0);
        ports[i] = movers[i].port();
    }

    @AfterEach
    void stop() {
        if (remote != null) {
            remote.close();
        }
        if (loop != null) {
            loop.close();
        }
        for (MoverServer m : movers) {
            if (m != null) {
                m.close();
            }
        }
        if (libraryLoop != null) {
            libraryLoop.close();
        }
        if (simulated != null) {
            simulated.close();
        }
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    @Test
    void onlyTheChangersMoverMovesCartridges_aDrivesMoverOnlyLoadsAndUnloads() throws Exception {
        await(done -> remote.mount("drive2", "A00001", done));
        assertEquals(List.of("m1 robotLoad drive2 A00001", "m2 load drive2 A00001"), log);
        assertEquals("drive:drive2", location("A00001"));
        await(done -> remote.unmount("drive2", done));
        assertEquals(List.of("m1 robotLoad drive2 A00001", "m2 load drive2 A00001", "m2 unload drive2",
                "m1 robotUnload drive2"), log);
        assertTrue(location("A00001").startsWith("slot:"), location("A00001"));

        await(done -> remote.mount("drive1", "A00002", done)); // the changer's mover's own drive: one mount there
        await(done -> remote.unmount("drive1", done));
        assertEquals(List.of("m1 mount drive1 A00002", "m1 unmount drive1"), log.subList(4, log.size()));
        assertTrue(log.stream().filter(e -> e.contains("robot") || e.contains("mount"))
                        .allMatch(e -> e.startsWith("m1 ")),
                "a robot move by another mover than m1: " + log);
    }

    @Test
    void aDriveMoverWithoutTheChangerRoleRefusesRobotCommands() throws Exception {
        long before = movers[1].refusals();
        try (MoverClient m2 = client(1, "test-scheduler")) {
            Done robotLoad = call(m2, MoverRpc.ROBOT_LOAD, m2.command(2, "drive2").setBarcode("A00001").build());
            assertTrue(robotLoad.getFault().getRefusal(), robotLoad.toString());
            assertTrue(robotLoad.getFault().getMessage().contains("mover m2 does not drive the changer"),
                    robotLoad.getFault().getMessage());
            Done robotUnload = call(m2, MoverRpc.ROBOT_UNLOAD, m2.command(2, "drive3").build());
            assertTrue(robotUnload.getFault().getRefusal(), robotUnload.toString());
            // a whole mount of its own drive would move the robot too
            Done mount = call(m2, MoverRpc.MOUNT, m2.command(2, "drive2").setBarcode("A00001").build());
            assertTrue(mount.getFault().getRefusal() && mount.getFault().getMessage().contains(
                    "mover m2 does not drive the changer (mover.changer): mount of A00001 on drive drive2 refused"),
                    mount.toString());
        }
        assertEquals(before + 3, movers[1].refusals());
        assertEquals(List.of(), log, "the library was not asked");
        assertTrue(location("A00001").startsWith("slot:"), location("A00001"));
    }

    @Test
    void aMountWhenTheChangersMoverIsDownFailsCleanly_andWorksOnceItIsBack() throws Exception {
        movers[0].close();
        TapeFault f = fault(done -> remote.mount("drive2", "A00001", done));
        assertTrue(f.getMessage().contains("mover m1 unreachable"), f.getMessage());
        assertEquals(org.tapeq.scheduler.model.FaultKind.ROBOT, f.kind(), "the robot's failure, not drive2's");
        assertEquals(List.of(), log, "the drive's mover was not asked to load: " + log);
        assertTrue(location("A00001").startsWith("slot:"), location("A00001"));
        assertEquals(null, loaded("drive2"));
        assertFalse(remote.lost("m2"), "the drive's mover is not the one lost");
        assertTrue(remote.lost("m1"));

        startMover(0);
        org.tapeq.testing.support.Poll.until("m1 answers again", () -> !remote.lost("m1"));
        await(done -> remote.mount("drive2", "A00001", done));
        assertEquals("A00001", loaded("drive2"));
    }

    @Test
    void anUnmountWhenTheChangersMoverIsDown_leavesTheCartridgeEjectedInTheDrive_aRobotFault() throws Exception {
        await(done -> remote.mount("drive2", "A00001", done));
        movers[0].close();
        TapeFault f = fault(done -> remote.unmount("drive2", done));
        assertEquals(org.tapeq.scheduler.model.FaultKind.ROBOT, f.kind(), "retried as a robot error: " + f);
        assertTrue(f.getMessage().contains("mover m1 unreachable")
                && f.getMessage().contains("the cartridge is unloaded but still in drive drive2"), f.getMessage());
        assertEquals(List.of("m1 robotLoad drive2 A00001", "m2 load drive2 A00001", "m2 unload drive2"), log);
        assertEquals("A00001", loaded("drive2"));
        startMover(0);
        org.tapeq.testing.support.Poll.until("m1 answers again", () -> !remote.lost("m1"));
        await(done -> remote.unmount("drive2", done)); // the retry: unload again (nothing to do), then the robot
        assertTrue(location("A00001").startsWith("slot:"), location("A00001"));
    }

    @Test
    void aLoadThatFailsGivesTheCartridgeBack_andTheMountFails() throws Exception {
        recorders[1].failLoads = "the drive did not report the tape online";
        TapeFault f = fault(done -> remote.mount("drive3", "A00002", done));
        assertTrue(f.getMessage().contains("did not report the tape online")
                && f.getMessage().contains("A00002 was returned to a slot"), f.getMessage());
        assertEquals(List.of("m1 robotLoad drive3 A00002", "m2 load drive3 A00002", "m2 unload drive3",
                "m1 robotUnload drive3"), log);
        assertEquals(null, loaded("drive3"));
        assertTrue(location("A00002").startsWith("slot:"), location("A00002"));
    }

    @Test
    void theDrivesMoverLostDuringTheLoad_theCartridgeStaysInTheDrive_nothingIsGivenBack() throws Exception {
        CompletableFuture<Void> hold = new CompletableFuture<>();
        recorders[1].holdLoads = hold;
        CompletableFuture<Void> mount = start(done -> remote.mount("drive2", "A00001", done));
        org.tapeq.testing.support.Poll.until("m2 loads", () -> log.contains("m2 load drive2 A00001"));
        Thread stopper = new Thread(movers[1]::close, "test-stop-m2"); // waits for the load it runs to end
        stopper.start();
        ExecutionException e = assertThrows(ExecutionException.class, () -> mount.get(60, TimeUnit.SECONDS));
        hold.complete(null);
        stopper.join(30_000);
        TapeFault f = assertInstanceOf(TapeFault.class, e.getCause());
        assertTrue(f.getMessage().contains("mover m2 unreachable"), f.getMessage());
        assertTrue(remote.lost("m2"));
        assertEquals(List.of("m1 robotLoad drive2 A00001", "m2 load drive2 A00001"), log, "nothing given back");
        assertEquals("A00001", loaded("drive2"), "the cartridge stays in the drive, for the mover's return");
    }

    @Test
    void aLoadRefusedToADeposedScheduler_leavesTheCartridgeForItsSuccessor() throws Exception {
        try (MoverClient successor = client(1, "successor")) { // m2 has heard of epoch 3, m1 not yet
            CompletableFuture<org.tapeq.mover.proto.HelloReply> hello = new CompletableFuture<>();
            successor.hello(3, 10_000, new StreamObserver<>() {
                @Override
                public void onNext(org.tapeq.mover.proto.HelloReply r) {
                    hello.complete(r);
                }

                @Override
                public void onError(Throwable t) {
                    hello.completeExceptionally(t);
                }

                @Override
                public void onCompleted() {
                }
            });
            assertEquals(3, hello.get(30, TimeUnit.SECONDS).getEpochSeen());
        }
        TapeFault f = fault(done -> remote.mount("drive2", "A00001", done)); // this scheduler still at epoch 2
        assertTrue(f.refusal() && f.getMessage().contains("epoch 3 has taken the site over"), f.getMessage());
        assertEquals(List.of("m1 robotLoad drive2 A00001"), log, "the load was refused, nothing given back");
        assertEquals("A00001", loaded("drive2"));
    }

    @Test
    void robotCommandsOfADeposedSchedulerAreRefused() throws Exception {
        await(done -> remote.mount("drive2", "A00001", done)); // m1 and m2 have seen epoch 2
        log.clear();
        try (MoverClient deposed = client(0, "deposed")) {
            Done robotLoad = call(deposed, MoverRpc.ROBOT_LOAD, deposed.command(1, "drive3").setBarcode("A00002")
                    .build());
            assertTrue(robotLoad.getFault().getRefusal(), robotLoad.toString());
            assertTrue(robotLoad.getFault().getMessage().contains("epoch 2 has taken the site over"),
                    robotLoad.getFault().getMessage());
            Done robotUnload = call(deposed, MoverRpc.ROBOT_UNLOAD, deposed.command(1, "drive2").build());
            assertTrue(robotUnload.getFault().getRefusal(), robotUnload.toString());
        }
        assertEquals(List.of(), log, "the library was not asked");
        assertEquals("A00001", loaded("drive2"));
        assertTrue(location("A00002").startsWith("slot:"), location("A00002"));
    }

    @Test
    void theChangersRobotCommandsRunOneAtATime() throws Exception {
        CompletableFuture<Void> a = start(done -> remote.mount("drive2", "A00001", done));
        CompletableFuture<Void> b = start(done -> remote.mount("drive3", "A00002", done));
        a.get(60, TimeUnit.SECONDS);
        b.get(60, TimeUnit.SECONDS);
        assertEquals(2, log.stream().filter(e -> e.startsWith("m1 robotLoad")).count(), log.toString());
        assertEquals(1, robotMostBusy.get(), "robot moves at once");
    }

    @Test
    void moversWhoseChangerRoleDoesNotFitTheSiteAreNotUsed() throws Exception {
        MoverSite changerIsM2 = new MoverSite(List.of(new MoverEndpoint("m1", "127.0.0.1", ports[0], DRIVES.get(0)),
                new MoverEndpoint("m2", "127.0.0.1", ports[1], DRIVES.get(1))), "m2", 60_000, 100, 5_000, 10_000,
                SITE, true);
        try (RemoteLibrary wrong = new RemoteLibrary(changerIsM2, loop, simulated.blockSize(), epoch::get, "wrong")) {
            List<String> reasons = new CopyOnWriteArrayList<>();
            wrong.events(new MoverEvents() {
                @Override
                public void unreachable(String mover, List<String> drives, String reason) {
                    reasons.add(reason);
                }

                @Override
                public void reachable(String mover, List<String> drives,
                                      java.util.Map<String, java.util.Optional<String>> holding) {
                }
            });
            org.tapeq.testing.support.Poll.until("both movers refused", () -> reasons.size() == 2);
            assertTrue(reasons.stream().anyMatch(r -> r.contains("mover m1 drives the changer too")),
                    reasons.toString());
            assertTrue(reasons.stream().anyMatch(r -> r.contains("mover m2 is the site's changer mover (movers.changer)"
                    + " but does not drive the changer")), reasons.toString());
        }
    }

    private MoverClient client(int i, String scheduler) {
        return new MoverClient(new MoverEndpoint("m" + (i + 1), "127.0.0.1", ports[i], DRIVES.get(i)), scheduler,
                SITE, pool);
    }

    private static Done call(MoverClient m, io.grpc.MethodDescriptor<org.tapeq.mover.proto.DriveCommand, Done> method,
                             org.tapeq.mover.proto.DriveCommand c) throws Exception {
        CompletableFuture<Done> f = new CompletableFuture<>();
        m.unary(method, c, 30_000, new StreamObserver<>() {
            @Override
            public void onNext(Done d) {
                f.complete(d);
            }

            @Override
            public void onError(Throwable t) {
                f.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
            }
        });
        return f.get(30, TimeUnit.SECONDS);
    }

    /** Starts a mount or an unmount on the scheduler's loop. */
    private CompletableFuture<Void> start(Consumer<Completion<Void>> op) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        loop.execute(() -> op.accept(new Completion<>() {
            @Override
            public void succeeded(Void value) {
                f.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                f.completeExceptionally(fault);
            }
        }));
        return f;
    }

    private void await(Consumer<Completion<Void>> op) throws Exception {
        start(op).get(60, TimeUnit.SECONDS);
    }

    private TapeFault fault(Consumer<Completion<Void>> op) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(op));
        return assertInstanceOf(TapeFault.class, e.getCause());
    }

    /** What the library itself holds: not what any scheduler believes. */
    private Inventory inventory() throws Exception {
        CompletableFuture<Inventory> f = new CompletableFuture<>();
        libraryLoop.execute(() -> simulated.inventory(new Completion<>() {
            @Override
            public void succeeded(Inventory value) {
                f.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                f.completeExceptionally(fault);
            }
        }));
        return f.get(30, TimeUnit.SECONDS);
    }

    private String location(String barcode) throws Exception {
        return inventory().cartridges().stream().filter(c -> c.barcode().equals(barcode)).findFirst().orElseThrow()
                .location();
    }

    private String loaded(String drive) throws Exception {
        return inventory().drives().stream().filter(d -> d.id().equals(drive)).findFirst().orElseThrow()
                .loadedBarcode();
    }
}
