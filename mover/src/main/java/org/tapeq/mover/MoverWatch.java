package org.tapeq.mover;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;

import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.mover.proto.HelloReply;
import org.tapeq.scheduler.time.Threads;

/**
 * Which movers answer: each is asked {@code Hello} every probe interval (which also shows it the scheduler's
 * epoch, so a successor fences its predecessor at once). A mover whose connection fails (refused, reset, no
 * keepalive answer) is lost at once; one that is only slow is lost after {@link #LOST_AFTER} probes in a row
 * went unanswered within the probe timeout, so one slow answer does not take its drives out. It stays lost
 * until it answers again and its drives have said what they hold (the engine takes that view: a mount or unload
 * in flight when it was lost may have happened). Each change is told to {@link MoverEvents} once, under this
 * object's monitor, so the
 * listener sees them in the order they happened (it must only queue, never block).
 * Threads: {@code tapeq-mover-watch} (the probes); {@link #lost} from any thread.
 */
final class MoverWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MoverWatch.class);
    /** Consecutive probes past their deadline that make a mover lost. */
    static final int LOST_AFTER = 3;

    private final List<MoverClient> movers;
    private final LongSupplier epoch;
    private final long probeMillis;
    private final long probeTimeoutMillis;
    /** Whether being deposed was logged (once). */
    private final AtomicBoolean deposedLogged = new AtomicBoolean();
    /** Movers asked and not yet answered; a mover is not asked again before. */
    private final Set<String> asking = ConcurrentHashMap.newKeySet();
    private volatile MoverEvents events = MoverEvents.NONE;
    /** Closed: no loss is told any more; guarded by this. */
    private boolean closed;
    private final ScheduledExecutorService probes =
            Executors.newSingleThreadScheduledExecutor(Threads.named("tapeq-mover-watch"));
    /** Why each lost mover is lost; guarded by this. */
    private final Map<String, String> lost = new HashMap<>();
    /** When each lost mover was lost; guarded by this. */
    private final Map<String, Instant> lostSince = new HashMap<>();
    /** Probes in a row past their deadline, per mover; written by the probe callbacks, one per mover at a time. */
    private final Map<String, Integer> slow = new ConcurrentHashMap<>();
    /**
     * Lost movers that answer again and whose drives are being asked what they hold, each with the number of
     * that attempt: only the current attempt's outcome counts (a late one of an attempt voided by a loss is
     * ignored); guarded by this.
     */
    private final Map<String, Long> returning = new HashMap<>();
    /** The number of the last return attempt; guarded by this. */
    private long attempts;
    /**
     * Asks a returning mover what its drives hold (attempt number given), then calls {@link #back} or
     * {@link #notBack}.
     */
    private volatile BiConsumer<MoverClient, Long> reconcile = (m, attempt) -> back(m, attempt, Map.of());
    /** The last reason a returning mover was not put back, per mover (logged when it changes); guarded by this. */
    private final Map<String, String> notBackWhy = new HashMap<>();
    /** Checks a mover's answer against the scheduler's view of it; null when it fits, else why not. */
    private volatile BiFunction<MoverClient, HelloReply, String> check = (m, r) -> null;

    MoverWatch(List<MoverClient> movers, LongSupplier epoch, long probeMillis, long probeTimeoutMillis) {
        this.probeTimeoutMillis = probeTimeoutMillis;
        this.movers = movers;
        this.epoch = epoch;
        this.probeMillis = probeMillis;
    }

    /**
     * Sets the listener and tells it the movers lost already (lost before it was set, while the scheduler started,
     * say), so their drives go out of service too.
     */
    void events(MoverEvents e) {
        synchronized (this) {
            events = e;
            for (MoverClient m : movers) {
                String reason = lost.get(m.name());
                if (reason != null) {
                    e.unreachable(m.name(), m.drives(), reason);
                }
            }
        }
    }

    void check(BiFunction<MoverClient, HelloReply, String> c) {
        check = c;
    }

    /** Sets how a returning mover's drives are asked what they hold (by default: not asked). */
    void reconcile(BiConsumer<MoverClient, Long> r) {
        reconcile = r;
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
                    slow.remove(m.name());
                    String wrong = check.apply(m, reply);
                    if (wrong != null) {
                        lost(m, wrong);
                        return;
                    }
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
                    if (MoverClient.slow(t) && slow.merge(m.name(), 1, Integer::sum) < LOST_AFTER) {
                        LOG.warn("Mover {} did not answer within {} ms ({} in a row)", m.name(), probeTimeoutMillis,
                                slow.get(m.name()));
                        return;
                    }
                    slow.remove(m.name());
                    lost(m, m.unreachableReason(t));
                }

                @Override
                public void onCompleted() {
                }
            });
        }
    }

    /**
     * {@code m} did not answer or cannot be used: {@code why} says why. Its drives go out of service (once) with
     * the reason "mover NAME unreachable since TIME: why".
     */
    void lost(MoverClient m, String why) {
        String reason;
        synchronized (this) {
            if (closed) {
                return; // the scheduler closing its calls says nothing of the mover
            }
            returning.remove(m.name()); // a return being checked is void: asked again at its next answer
            Instant since = lostSince.computeIfAbsent(m.name(),
                    n -> Instant.now().truncatedTo(ChronoUnit.SECONDS));
            reason = "mover " + m.name() + " unreachable since " + since + ": " + why;
            String before = lost.put(m.name(), reason);
            if (before != null && cause(before).equals(cause(reason))) {
                lost.put(m.name(), before);
                return; // told already; a new cause (it came back refusing, say) is told again, same time
            }
            // told under the monitor (the listener only queues onto the loop), so a `found` on another thread
            // cannot tell "reachable" before this "unreachable" and leave a healthy mover's drives out of service
            LOG.warn("{}; its drives {} are out of service until it answers again", reason, m.drives());
            events.unreachable(m.name(), m.drives(), reason);
        }
    }

    /** As {@link #lost(MoverClient, String)}, from return attempt {@code attempt}: ignored once it is void. */
    void lost(MoverClient m, long attempt, String why) {
        synchronized (this) { // held on into lost (reentrant), so no new attempt starts in between
            if (current(m, attempt)) {
                lost(m, why);
            }
        }
    }

    /** Whether {@code attempt} is {@code m}'s return attempt now; under the monitor. */
    private boolean current(MoverClient m, long attempt) {
        Long now = returning.get(m.name());
        return now != null && now == attempt;
    }

    /** A reason without its details in parentheses (a deadline's timings differ each time). */
    private static String cause(String reason) {
        int i = reason.indexOf(" (");
        return i < 0 ? reason : reason.substring(0, i);
    }

    /**
     * {@code m} answered and fits: if it was lost, its drives are asked what they hold, and they go back into
     * service with that ({@link #back}) or stay out until its next answer ({@link #notBack}).
     */
    void found(MoverClient m) {
        long attempt;
        synchronized (this) {
            if (!lost.containsKey(m.name())) {
                lostSince.remove(m.name());
                return;
            }
            if (returning.containsKey(m.name())) {
                return; // being asked already
            }
            attempt = ++attempts;
            returning.put(m.name(), attempt);
        }
        reconcile.accept(m, attempt);
    }

    /**
     * Returning {@code m}'s drives hold {@code holding}, as return attempt {@code attempt} found: they go back into
     * service (once), in order with losses; nothing happens if that attempt is void (lost again meanwhile).
     */
    void back(MoverClient m, long attempt, Map<String, Optional<String>> holding) {
        synchronized (this) {
            if (!current(m, attempt)) {
                return; // lost again meanwhile: a later attempt, if any, decides
            }
            returning.remove(m.name());
            lostSince.remove(m.name());
            lost.remove(m.name());
            notBackWhy.remove(m.name());
            LOG.info("Mover {} answers again; its drives {} are back in service", m.name(), m.drives());
            events.reachable(m.name(), m.drives(), holding); // under the monitor, in order with `lost`
        }
    }

    /**
     * Returning {@code m} cannot be put back yet ({@code why}, found by {@code attempt}); its next answer tries
     * again.
     */
    void notBack(MoverClient m, long attempt, String why) {
        synchronized (this) {
            if (!current(m, attempt)) {
                return;
            }
            returning.remove(m.name());
            if (why.equals(notBackWhy.put(m.name(), why))) {
                return;
            }
        }
        LOG.info("Mover {} answers again, but its drives {} stay out of service for now: {}", m.name(), m.drives(),
                why);
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        probes.shutdownNow();
    }
}
