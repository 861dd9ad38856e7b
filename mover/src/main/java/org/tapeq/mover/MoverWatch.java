package org.tapeq.mover;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.mover.proto.HelloReply;
import org.tapeq.scheduler.time.Threads;

/**
 * Which movers answer: each is asked {@code Hello} every probe interval (which also shows it the scheduler's
 * epoch, so a successor fences its predecessor at once); a mover that does not answer in time, or whose call
 * failed as unreachable, is lost until it answers again. Each change is told to {@link MoverEvents} once.
 * Threads: {@code tapeq-mover-watch} (the probes); {@link #lost} from any thread.
 */
final class MoverWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MoverWatch.class);

    private final List<MoverClient> movers;
    private final LongSupplier epoch;
    private final long probeMillis;
    private final long probeTimeoutMillis;
    /** Movers asked and not yet answered; a mover is not asked again before. */
    /** Whether being deposed was logged (once). */
    private final AtomicBoolean deposedLogged = new AtomicBoolean();
    private final Set<String> asking = ConcurrentHashMap.newKeySet();
    private volatile MoverEvents events = MoverEvents.NONE;
    private final ScheduledExecutorService probes =
            Executors.newSingleThreadScheduledExecutor(Threads.named("tapeq-mover-watch"));
    /** Why each lost mover is lost; guarded by this. */
    private final Map<String, String> lost = new HashMap<>();

    MoverWatch(List<MoverClient> movers, LongSupplier epoch, long probeMillis, long probeTimeoutMillis) {
        this.probeTimeoutMillis = probeTimeoutMillis;
        this.movers = movers;
        this.epoch = epoch;
        this.probeMillis = probeMillis;
    }

    void events(MoverEvents e) {
        events = e;
    }

    void start() {
        probes.scheduleWithFixedDelay(this::probeAll, 0, probeMillis, TimeUnit.MILLISECONDS);
    }

    boolean isLost(String mover) {
        synchronized (this) {
            return lost.containsKey(mover);
        }
    }

    private void probeAll() {
        for (MoverClient m : movers) {
            if (!asking.add(m.name())) {
                continue;
            }
            if (isLost(m.name())) {
                m.reconnectNow(); // not after gRPC's reconnect backoff, which grows to minutes
            }
            m.hello(epoch.getAsLong(), probeTimeoutMillis, new StreamObserver<>() {
                @Override
                public void onNext(HelloReply reply) {
                    asking.remove(m.name());
                    if (reply.getEpochSeen() > epoch.getAsLong() && !deposedLogged.getAndSet(true)) {
                        LOG.error("Mover {} has seen lease epoch {}, newer than this scheduler's {}: this scheduler "
                                + "is deposed and its commands are refused", m.name(), reply.getEpochSeen(),
                                epoch.getAsLong());
                    }
                    found(m);
                }

                @Override
                public void onError(Throwable t) {
                    asking.remove(m.name());
                    lost(m, m.unreachableReason(t));
                }

                @Override
                public void onCompleted() {
                }
            });
        }
    }

    /** {@code m} did not answer: {@code reason} names it. Its drives go out of service (once). */
    void lost(MoverClient m, String reason) {
        synchronized (this) {
            if (lost.putIfAbsent(m.name(), reason) != null) {
                return;
            }
        }
        LOG.warn("{}; its drives {} are out of service until it answers again", reason, m.drives());
        events.unreachable(m.name(), m.drives(), reason);
    }

    private void found(MoverClient m) {
        synchronized (this) {
            if (lost.remove(m.name()) == null) {
                return;
            }
        }
        LOG.info("Mover {} answers again; its drives {} are back in service", m.name(), m.drives());
        events.reachable(m.name(), m.drives());
    }

    @Override
    public void close() {
        probes.shutdownNow();
    }
}
