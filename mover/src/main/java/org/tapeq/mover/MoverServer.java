package org.tapeq.mover;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.tape.TapeLibrary;
import org.tapeq.scheduler.time.Threads;

/**
 * A data mover: a gRPC server on a tape server that drives that server's drives for the active scheduler
 * ({@link MoverService}). It owns the drives it is given and nothing else of the library; the scheduler's
 * commands arrive fenced by its site lease epoch.
 *
 * <p>Threads: {@code tapeq-mover-rpc-N} (gRPC callbacks: decode, check, hand to the library's loop; bounded,
 * a call that finds it full is refused by gRPC), Netty's own transport threads, and whatever the library uses.
 */
public final class MoverServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MoverServer.class);
    /** gRPC callback threads and their queue: callbacks only hand over, so a few suffice. */
    private static final int RPC_THREADS = 4;
    private static final int RPC_QUEUE = 1_000;
    /**
     * The mover pings an idle scheduler connection this often and drops it when a ping is unanswered for
     * {@link #KEEPALIVE_TIMEOUT_SECONDS}: a caller gone with a partition or a dead host is noticed within about
     * 30 s (its calls cancelled, so a command of it that still runs counts as {@code orphan_running}), not after
     * Netty's default of two hours.
     */
    static final long KEEPALIVE_SECONDS = 20;
    static final long KEEPALIVE_TIMEOUT_SECONDS = 10;
    /**
     * The shortest ping interval the mover allows a scheduler, also without calls: below the scheduler's
     * {@link MoverClient#KEEPALIVE_SECONDS}, so its pings are never answered with a {@code too_many_pings} GOAWAY
     * (gRPC's default allows one every 5 minutes, and only with calls open), which the scheduler would take for
     * the mover's loss.
     */
    static final long PERMIT_KEEPALIVE_SECONDS = MoverClient.KEEPALIVE_SECONDS - 10;
    /** How long a transfer may stand still (no byte taken or given) before the mover gives it up. */
    public static final long DEFAULT_STALL_MILLIS = 120_000;
    private static final long STOP_WAIT_SECONDS = 10;

    private final String name;
    private final Server server;
    private final ThreadPoolExecutor rpc;
    private final MoverService service;
    private final PoolFiles pools;

    private MoverServer(String name, Server server, ThreadPoolExecutor rpc, MoverService service, PoolFiles pools) {
        this.pools = pools;
        this.name = name;
        this.server = server;
        this.rpc = rpc;
        this.service = service;
    }

    /**
     * Starts a mover named {@code name} on {@code listen} (port 0: any free port) that drives {@code drives} of
     * {@code library}, whose alerts go to {@code alerts} (registered on the library by its builder) and whose
     * commands start on {@code loop}, the library's own event loop. Its fencing epoch is kept in {@code state},
     * its state directory ({@link EpochFence}); a corrupt epoch file there fails the start. It serves only
     * schedulers of {@code identity}'s site showing its token.
     */
    public static MoverServer start(String name, InetSocketAddress listen, Set<String> drives, TapeLibrary library,
                                    AlertBox alerts, Executor loop, Path state, SiteIdentity identity,
                                    long stallMillis) throws IOException {
        return start(name, listen, drives, library, alerts, loop, state, identity, stallMillis, null, false);
    }

    /**
     * As above; with {@code pools} (not null) the mover reads and writes the pool files on the shared filesystem
     * itself, only under those request directories (its {@code pools.shared}), and closes them at its stop;
     * {@code changer}: this mover drives the site's changer, so it takes robot commands for any mover's drive
     * ({@code RobotLoad}, {@code RobotUnload}), which every other mover refuses.
     */
    public static MoverServer start(String name, InetSocketAddress listen, Set<String> drives, TapeLibrary library,
                                    AlertBox alerts, Executor loop, Path state, SiteIdentity identity,
                                    long stallMillis, PoolFiles pools, boolean changer) throws IOException {
        if (drives.isEmpty()) {
            throw new IllegalArgumentException("mover " + name + " owns no drive");
        }
        EpochFence fence = EpochFence.open(name, identity.site(), state);
        ThreadPoolExecutor rpc = new ThreadPoolExecutor(RPC_THREADS, RPC_THREADS, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(RPC_QUEUE), Threads.numbered("tapeq-mover-rpc"),
                new ThreadPoolExecutor.AbortPolicy());
        MoverService service = new MoverService(name, drives, library, alerts, loop, fence, identity,
                stallMillis, pools, changer);
        Server server = NettyServerBuilder.forAddress(listen).executor(rpc).addService(MoverRpc.bind(service))
                .keepAliveTime(KEEPALIVE_SECONDS, TimeUnit.SECONDS)
                .keepAliveTimeout(KEEPALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .permitKeepAliveTime(PERMIT_KEEPALIVE_SECONDS, TimeUnit.SECONDS).permitKeepAliveWithoutCalls(true)
                .build();
        try {
            server.start();
        } catch (IOException e) {
            rpc.shutdownNow();
            throw new IOException("mover " + name + " cannot listen on " + listen + ": " + e.getMessage(), e);
        }
        LOG.info("Mover {} listening on {} for drives {}; {}", name, server.getListenSockets(), drives,
                pools == null ? "pool files cross the network (no pools.shared)"
                        : "reading and writing the pool files of " + pools.bases() + " itself");
        return new MoverServer(name, server, rpc, service, pools);
    }

    /** The port it listens on (the one chosen when started on port 0). */
    public int port() {
        return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
    }

    /** The newest scheduler lease epoch this mover has seen. */
    public long newestEpoch() {
        return service.fence().newest();
    }

    /** The commands on its drives (one at a time per drive). */
    DriveTurns turns() {
        return service.turns();
    }

    /** Commands refused so far: fenced (an older lease epoch), or for a drive this mover does not own. */
    public long refusals() {
        return service.refused();
    }

    /**
     * Stops at once: calls in progress are cut off (the scheduler sees its mover unreachable), and the library
     * operations they started are stopped (transfers) or waited for (mount, unmount, locate), so no drive is left
     * busy with the work of a mover that has gone.
     */
    @Override
    public void close() {
        server.shutdownNow(); // first, so the scheduler sees the mover gone rather than a refusal per command
        try {
            List<String> left = service.stop(TimeUnit.SECONDS.toMillis(STOP_WAIT_SECONDS));
            if (!left.isEmpty()) {
                LOG.warn("Mover {}: still running {} s after the stop: {}", name, STOP_WAIT_SECONDS, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (!server.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("Mover {}: calls still running {} s after the stop", name, STOP_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            rpc.shutdownNow();
            if (pools != null) {
                pools.close();
            }
        }
    }
}
