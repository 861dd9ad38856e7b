package org.tapeq.mover;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.Inventory;
import org.tapeq.scheduler.tape.TapeFileSource;
import org.tapeq.scheduler.tape.WrittenFile;
import org.tapeq.scheduler.tape.sim.SimulatedLibrary;
import org.tapeq.scheduler.time.RealTimeEventLoop;
import org.tapeq.scheduler.time.Threads;
import org.tapeq.testing.support.Poll;

/**
 * One library served by a process of its own (a mover server named "library" that owns all four drives, as
 * {@code tapeq sim-library} runs it), two movers that reach their two drives each through {@link
 * RemoteLibrary#partOf} (the {@code remote} backend), and a scheduler's {@link RemoteLibrary} over the two movers.
 * Bytes written through one mover read back; the changer's mover reports a cartridge loaded through the other; a
 * mover stopped and started again (a tape server rebooted) finds its cartridge where it was; and the library fences
 * a deposed scheduler whose command comes through a mover its successor has not spoken to yet.
 */
class SharedLibraryTest {

    private static final double SPEED = 200;
    private static final SiteIdentity SITE = new SiteIdentity("gridka", "s3cret");
    private static final List<List<String>> DRIVES = List.of(List.of("drive0", "drive1"), List.of("drive2", "drive3"));

    @TempDir
    Path dir;

    private RealTimeEventLoop libraryLoop;
    private ThreadPoolExecutor copies;
    private SimulatedLibrary simulated;
    private MoverServer library;
    private final RealTimeEventLoop[] moverLoops = new RealTimeEventLoop[2];
    private final RemoteLibrary[] parts = new RemoteLibrary[2];
    private final MoverServer[] movers = new MoverServer[2];
    private final int[] ports = new int[2];
    private RealTimeEventLoop loop;
    private final AtomicLong epoch = new AtomicLong(1);
    private RemoteLibrary scheduler;

    @BeforeEach
    void start() throws IOException {
        start(false);
    }

    /** The library (holding bytes, or only the lengths), its process's server, the movers and the scheduler. */
    private void start(boolean sizeOnly) throws IOException {
        libraryLoop = new RealTimeEventLoop("test-library", SPEED);
        copies = new ThreadPoolExecutor(4, 4, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(100),
                Threads.numbered("test-copy"), new ThreadPoolExecutor.AbortPolicy());
        Path tapes = Files.createDirectories(dir.resolve(sizeOnly ? "size-only-tapes" : "tapes"));
        org.tapeq.scheduler.tape.sim.SimLibraryBuilder b = SimulatedLibrary.builder(libraryLoop).drives(4).seed(3);
        simulated = (sizeOnly ? b.sizeOnly(tapes) : b.bytes(tapes)).copyExecutor(copies)
                .cartridge("A00001", MediaType.LTO9, 200_000_000L).cartridge("A00002", MediaType.LTO9, 200_000_000L)
                .build();
        AlertBox alerts = new AlertBox();
        simulated.alerts(alerts);
        library = MoverServer.start("library", new InetSocketAddress("127.0.0.1", 0),
                Set.of("drive0", "drive1", "drive2", "drive3"), simulated, alerts, libraryLoop,
                Files.createDirectories(dir.resolve("library-state")), SITE, 10_000);
        startMover(0);
        startMover(1);
        loop = new RealTimeEventLoop("test-scheduler", 1);
        scheduler = schedulerOf(epoch::get, 0, 1);
        scheduler.events(MoverEvents.NONE); // probed: a lost mover is seen, and each mover hears of epoch 1
    }

    /** A scheduler's library over the movers {@code which} (the last one drives the changer). */
    private RemoteLibrary schedulerOf(java.util.function.LongSupplier at, int... which) {
        List<MoverEndpoint> endpoints = java.util.Arrays.stream(which).mapToObj(i -> new MoverEndpoint("m" + (i + 1),
                "127.0.0.1", ports[i], DRIVES.get(i))).toList();
        return new RemoteLibrary(new MoverSite(endpoints, endpoints.get(endpoints.size() - 1).name(), 60_000, 100,
                5_000, 10_000, SITE), loop, simulated.blockSize(), at, "test-scheduler");
    }

    /** Starts mover {@code i} in front of the library process, on the port it had before if it ran already. */
    private void startMover(int i) throws IOException {
        moverLoops[i] = new RealTimeEventLoop("test-mover-" + i, 1);
        AtomicReference<MoverServer> self = new AtomicReference<>();
        parts[i] = RemoteLibrary.partOf(new MoverSite(List.of(new MoverEndpoint("library", "127.0.0.1",
                library.port(), DRIVES.get(i))), "library", 60_000, 100, 5_000, 10_000, SITE), moverLoops[i],
                simulated.blockSize(), () -> self.get() == null ? 0 : self.get().newestEpoch(), "mover m" + (i + 1));
        parts[i].events(MoverEvents.NONE);
        AlertBox alerts = new AlertBox();
        parts[i].alerts(alerts);
        movers[i] = MoverServer.start("m" + (i + 1), new InetSocketAddress("127.0.0.1", ports[i]),
                Set.copyOf(DRIVES.get(i)), parts[i], alerts, moverLoops[i],
                Files.createDirectories(dir.resolve("m" + (i + 1))), SITE, 10_000);
        self.set(movers[i]);
        ports[i] = movers[i].port();
    }

    /** Mover {@code i} gone at once, as with SIGKILL: its server, its channel to the library, its loop. */
    private void killMover(int i) {
        movers[i].close();
        parts[i].close();
        moverLoops[i].close();
    }

    @AfterEach
    void stop() {
        if (scheduler != null) {
            scheduler.close();
        }
        if (loop != null) {
            loop.close();
        }
        for (int i = 0; i < 2; i++) {
            if (movers[i] != null) {
                killMover(i);
            }
        }
        if (library != null) {
            library.close();
        }
        if (libraryLoop != null) {
            libraryLoop.close();
        }
        if (simulated != null) {
            simulated.close();
        }
        if (copies != null) {
            copies.shutdownNow();
        }
    }

    @Test
    void bytesWrittenThroughOneMoverReadBack_andTheChangersMoverSeesTheCartridge() throws Exception {
        call(scheduler, (Completion<Void> c) -> scheduler.mount("drive0", "A00001", c));
        byte[] data = new byte[700_000];
        new Random(5).nextBytes(data);
        WrittenFile w = call(scheduler, c -> scheduler.append("drive0", source(data), c));
        assertEquals(data.length, w.bytes());

        Inventory inv = call(scheduler, scheduler::inventory);
        assertEquals("drive:drive0", location(inv, "A00001"));
        assertEquals("A00001", inv.drives().stream().filter(d -> d.id().equals("drive0")).findFirst().orElseThrow()
                .loadedBarcode());

        call(scheduler, (Completion<Void> c) -> scheduler.locate("drive0", w.startBlock(), c));
        ByteArrayOutputStream back = new ByteArrayOutputStream();
        long n = call(scheduler, c -> scheduler.read("drive0", 0, data.length, () -> back, c));
        assertEquals(data.length, n);
        assertArrayEquals(data, back.toByteArray());
    }

    @Test
    void aMoverKilledAndStartedAgain_findsTheCartridgeInItsDrive() throws Exception {
        call(scheduler, (Completion<Void> c) -> scheduler.mount("drive1", "A00002", c));
        killMover(0);
        Poll.until("m1 lost", Duration.ofSeconds(30), () -> scheduler.lost("m1"));
        // the library process still holds it in drive1: the changer's mover (m2) reports it there
        assertEquals("drive:drive1", location(call(scheduler, scheduler::inventory), "A00002"));
        TapeFault refused = failure(scheduler, (Completion<Void> c) -> scheduler.mount("drive2", "A00002", c));
        assertTrue(refused.getMessage().contains("in drive drive1"), refused.getMessage());

        startMover(0);
        Poll.until("m1 answers again", Duration.ofSeconds(30), () -> !scheduler.lost("m1"));
        Inventory inv = call(scheduler, scheduler::inventory);
        assertEquals("A00002", inv.drives().stream().filter(d -> d.id().equals("drive1")).findFirst().orElseThrow()
                .loadedBarcode());
        call(scheduler, (Completion<Void> c) -> scheduler.unmount("drive1", c));
        assertTrue(location(call(scheduler, scheduler::inventory), "A00002").startsWith("slot"));
    }

    @Test
    void theLibraryFencesADeposedScheduler_throughAMoverItsSuccessorHasNotSpokenTo() throws Exception {
        call(scheduler, (Completion<Void> c) -> scheduler.mount("drive0", "A00001", c)); // epoch 1 through m1
        Poll.until("m2 probed at epoch 1", Duration.ofSeconds(30), () -> movers[1].newestEpoch() == 1);
        RemoteLibrary successor = schedulerOf(() -> 2, 0); // speaks to m1 only
        try {
            call(successor, (Completion<Void> c) -> successor.unmount("drive0", c)); // epoch 2 reaches the library through m1
        } finally {
            successor.close();
        }
        assertEquals(1, movers[1].newestEpoch(), "m2 has not heard of epoch 2");
        assertEquals(2, library.newestEpoch());

        TapeFault f = failure(scheduler, (Completion<Void> c) -> scheduler.mount("drive2", "A00002", c));
        assertTrue(f.refusal(), "a fence refusal, no drive error: " + f.getMessage());
        assertTrue(f.getMessage().contains("mover library refuses mount of A00002")
                && f.getMessage().contains("epoch 2 has taken the site over"), f.getMessage());
        RemoteLibrary now = schedulerOf(() -> 2, 0, 1); // the deposed scheduler's inventory is refused as well
        try {
            assertTrue(location(call(now, now::inventory), "A00002").startsWith("slot"),
                    "the deposed scheduler's mount moved the cartridge");
        } finally {
            now.close();
        }
    }

    @Test
    void aMoverWhoseDrivesTheLibraryDoesNotServe_isRefused() throws Exception {
        AtomicReference<String> why = new AtomicReference<>();
        RemoteLibrary stray = RemoteLibrary.partOf(new MoverSite(List.of(new MoverEndpoint("library", "127.0.0.1",
                library.port(), List.of("drive0", "drive7"))), "library", 60_000, 100, 5_000, 10_000, SITE), loop,
                simulated.blockSize(), () -> 1, "mover stray");
        try {
            stray.events(new MoverEvents() {
                @Override
                public void unreachable(String mover, List<String> drives, String reason) {
                    why.set(reason);
                }

                @Override
                public void reachable(String mover, List<String> drives,
                                      java.util.Map<String, java.util.Optional<String>> holding) {
                }
            });
            String reason = Poll.value("the stray mover refuses the library", Duration.ofSeconds(30), why::get);
            assertTrue(reason.contains("not all of this mover's [drive0, drive7]"), reason);
        } finally {
            stray.close();
        }
    }
    @Test
    void aSizeOnlyLibrarysRead_throughAMover_reportsTheLengthWithoutOpeningTheTarget_asOnTheSchedulersHost()
            throws Exception {
        stop();
        start(true);
        call(scheduler, (Completion<Void> c) -> scheduler.mount("drive2", "A00001", c));
        byte[] data = new byte[700_000];
        WrittenFile w = call(scheduler, c -> scheduler.append("drive2", source(data), c));
        assertEquals(data.length, w.bytes());
        call(scheduler, (Completion<Void> c) -> scheduler.locate("drive2", w.startBlock(), c));
        AtomicLong opened = new AtomicLong();
        long n = call(scheduler, c -> scheduler.read("drive2", 0, data.length, () -> {
            opened.incrementAndGet();
            return new ByteArrayOutputStream();
        }, c));
        assertEquals(data.length, n, "the length the library read, through both hops (library, mover)");
        assertEquals(0, opened.get(), "no bytes: the target is not opened, as a size-only library does locally");
    }

    private static String location(Inventory inv, String barcode) {
        return inv.cartridges().stream().filter(c -> c.barcode().equals(barcode)).findFirst().orElseThrow()
                .location();
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

    /** Runs {@code op} on the scheduler's loop and waits for its completion. */
    private <T> T call(RemoteLibrary on, Consumer<Completion<T>> op) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        loop.execute(() -> op.accept(new Completion<>() {
            @Override
            public void succeeded(T value) {
                f.complete(value);
            }

            @Override
            public void failed(TapeFault fault) {
                f.completeExceptionally(fault);
            }
        }));
        return f.get(60, TimeUnit.SECONDS);
    }

    private <T> TapeFault failure(RemoteLibrary on, Consumer<Completion<T>> op) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> call(on, op));
        return assertInstanceOf(TapeFault.class, e.getCause());
    }
}
