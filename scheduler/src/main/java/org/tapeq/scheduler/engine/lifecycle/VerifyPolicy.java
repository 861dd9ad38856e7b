package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.Verification;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The periodic verification policy ({@code scheduler.verifyPerWeek}): one ordinary verification (background work,
 * yielding to user work) every week / perWeek, of the cartridge verified longest ago, never-verified ones first.
 *
 * <p>Design notes. On the loop, driven by its own timer. Each look reads the last verification time of every
 * eligible cartridge (appendable or full, enabled, with tape files, and no lifecycle work on it now: not being
 * repacked, also by a migration, relabelled or verified, see {@link LifecycleWork#busy}; a cartridge a running
 * migration has yet to reach is still verified, its copy being the only one until then) from the catalog on the
 * writer, then on the loop: if the verification it started last is still queued or running it looks again
 * later; otherwise, when the interval has passed since it last started one (at start: since the latest
 * verification the catalog records, so a restart does not start one at once), it starts the oldest, and if that
 * one is refused (no live file) the next. A failing verification makes its cartridge SUSPECT as any verification does; a SUSPECT cartridge is no
 * longer eligible. The times come from the loop, so the same code runs in virtual time.
 */
public final class VerifyPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(VerifyPolicy.class);
    static final long WEEK_MILLIS = 7L * 24 * 3600 * 1000;
    /** How often it looks again while its last verification is still under way. */
    static final long BUSY_RECHECK_MILLIS = 3600 * 1000;

    private final LifecycleContext ctx;
    private final Verifications verifications;
    private final LifecycleWork work;
    private final int perWeek;
    private final int sample;
    private final long interval;
    private long lastLook;
    private long nextLook;
    private int eligible;
    private int overdue;
    /** How long a round of every eligible cartridge takes at this rate, as of the last look. */
    private long round;
    private List<String> nextDue = List.of();
    private String lastStarted;
    private long lastStartedAt;
    /** The latest verification time the catalog records, read at the first look (-1: none; MIN_VALUE: unread). */
    private long latestVerified = Long.MIN_VALUE;
    private EventLoop.Timer timer;

    public VerifyPolicy(LifecycleContext ctx, Verifications verifications, LifecycleWork work, int perWeek,
                        int sample) {
        this.ctx = ctx;
        this.verifications = verifications;
        this.work = work;
        this.perWeek = perWeek;
        this.sample = sample;
        this.interval = perWeek == 0 ? 0 : Math.max(1, WEEK_MILLIS / perWeek);
    }

    /** Takes its first look now (nothing if the policy is off). On the loop, after the engine started. */
    public void start() {
        if (perWeek > 0) {
            lookIn(0);
        }
    }

    /** Its state as of the last look. */
    public VerifyPolicyReport report() {
        return new VerifyPolicyReport(perWeek, sample, lastLook, nextLook, eligible, overdue, nextDue, lastStarted,
                lastStartedAt);
    }

    private void lookIn(long delay) {
        if (timer != null) {
            timer.cancel();
        }
        nextLook = ctx.loop().now() + delay;
        timer = ctx.loop().schedule(delay, this::look);
    }

    private record Candidate(String barcode, long verifiedAt) {
    }

    private void look() {
        timer = null;
        List<String> barcodes = new ArrayList<>();
        for (CartridgeRecord c : ctx.cartridges().all()) {
            if ((c.state() == CartridgeState.APPENDABLE || c.state() == CartridgeState.FULL) && !c.disabled()
                    && c.tapeFiles() > 0 && work.busy(c) == null) {
                barcodes.add(c.barcode());
            }
        }
        ctx.writer().submit(CatalogWriter.Kind.READ, () -> {
            List<Candidate> found = new ArrayList<>(barcodes.size());
            for (String b : barcodes) {
                Optional<Verification> v = ctx.catalog().lastVerification(b);
                found.add(new Candidate(b, v.map(Verification::verifiedAt).orElse(-1L)));
            }
            return found;
        }, new CatalogWriter.Done<List<Candidate>>() {
            @Override
            public void succeeded(List<Candidate> found) {
                decide(found);
            }

            @Override
            public void failed(RuntimeException e) {
                LOG.warn("Periodic verification: cannot read the last verifications ({}); looking again in an hour",
                        e.getMessage());
                lookIn(BUSY_RECHECK_MILLIS);
            }
        });
    }

    private void decide(List<Candidate> found) {
        long now = ctx.loop().now();
        lastLook = now;
        List<Candidate> order = new ArrayList<>(found);
        order.sort(Comparator.comparingLong(Candidate::verifiedAt).thenComparing(Candidate::barcode));
        eligible = order.size();
        round = interval * Math.max(1, eligible);
        int late = 0;
        long latest = -1;
        for (Candidate c : order) {
            late += c.verifiedAt() < 0 || now - c.verifiedAt() > round ? 1 : 0;
            latest = Math.max(latest, c.verifiedAt());
        }
        overdue = late;
        if (latestVerified == Long.MIN_VALUE) {
            latestVerified = latest;
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < Math.min(VerifyPolicyReport.LISTED, order.size()); i++) {
            names.add(order.get(i).barcode());
        }
        nextDue = List.copyOf(names);
        if (lastStarted != null && underWay(lastStarted)) {
            lookIn(Math.min(interval, BUSY_RECHECK_MILLIS));
            return;
        }
        long since = lastStarted != null ? lastStartedAt : latestVerified;
        long dueAt = since < 0 ? now : since + interval;
        if (now < dueAt) {
            lookIn(dueAt - now);
            return;
        }
        startFirst(order, 0);
    }

    private boolean underWay(String barcode) {
        for (VerifyReport r : verifications.reports()) {
            if (r.barcode().equals(barcode)) {
                return r.state().equals("queued") || r.state().equals("running");
            }
        }
        return false;
    }

    /** Starts the verification of {@code order[i]}, or of the next one if it is refused. */
    private void startFirst(List<Candidate> order, int i) {
        if (i >= order.size()) {
            lookIn(interval);
            return;
        }
        String barcode = order.get(i).barcode();
        verifications.start(barcode, sample).whenComplete((r, e) -> {
            if (e != null) {
                LOG.info("Periodic verification: {} not verified now: {}", barcode, e.getMessage());
                startFirst(order, i + 1);
                return;
            }
            LOG.info("Periodic verification: {} queued ({} aggregates; last verified at {})", barcode,
                    r.aggregatesTotal(), order.get(i).verifiedAt() < 0 ? "never" : order.get(i).verifiedAt());
            lastStarted = barcode;
            lastStartedAt = ctx.loop().now();
            // it is no longer due: the report shows it last, and not overdue
            long was = order.get(i).verifiedAt();
            overdue -= was < 0 || lastStartedAt - was > round ? 1 : 0;
            List<String> names = new ArrayList<>(nextDue);
            names.remove(barcode);
            if (names.size() < VerifyPolicyReport.LISTED) {
                names.add(barcode);
            }
            nextDue = List.copyOf(names);
            lookIn(interval);
        });
    }
}
