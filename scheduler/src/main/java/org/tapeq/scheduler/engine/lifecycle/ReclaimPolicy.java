package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.AggregateRecord;
import org.tapeq.scheduler.time.EventLoop;

/**
 * The automatic reclamation policy ({@code reclaim:}): repacks, as background work, the FULL cartridges whose
 * live bytes fell below a share of their written bytes, and the good files of SUSPECT cartridges.
 *
 * <p>Design notes. Owned by the loop. It looks at the catalog (one read on the catalog writer: every cartridge's
 * written and reclaimable bytes, the repack jobs, and the last write of the cartridges below the threshold) only
 * when something may have changed: at start, after deletes, when a cartridge changes state (closes, turns
 * SUSPECT, is enabled), when a repack ends, and on resume, at most once per {@code reclaim.interval}; no timer
 * runs while nothing changes (a cartridge too young is looked at again when it is old enough). A look starts
 * repacks ({@link Repacks#start}, the source's own family) for the first candidates while fewer than
 * {@code reclaim.maxRepacks} repacks are unfinished and the policy is not paused; a cartridge other lifecycle work
 * has in hand ({@link LifecycleWork}: a repack, a relabel, a verification, a running migration moving off its
 * media) is not a candidate, and no repack writes to the media a running migration is moving off
 * ({@link Repacks#neverTarget}). A cartridge whose last repack failed, was cancelled or left files it could not
 * read is left to the operator. The pause is an operator setting in
 * the catalog ({@link #PAUSED_SETTING}), read once at start, so it outlives a restart; it stops new repacks
 * only: started ones run on (background work yields to user work anyway; {@code tapeq cartridge repack VID
 * --cancel} stops one).
 */
public final class ReclaimPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(ReclaimPolicy.class);

    /** The catalog setting holding the pause: empty when not paused, else "SINCE REASON". */
    public static final String PAUSED_SETTING = "reclaim.paused";

    private final LifecycleContext ctx;
    private final Repacks repacks;
    private final LifecycleWork work;
    private final ReclaimConfig config;
    private long pausedSince;
    private String pauseReason;
    private EventLoop.Timer lookTimer;
    private long lookDue;
    private long lastLook;
    private boolean looking;
    private boolean lookAgain;
    private List<String> candidates = List.of();
    private List<String> needOperator = List.of();
    /** Sources this policy started a repack of in this run, in order. */
    private final Set<String> started = new LinkedHashSet<>();
    /** Candidates whose repack was refused, with their record then: not tried again until the record changes. */
    private final Map<String, CartridgeRecord> refused = new HashMap<>();
    /** Told the source of each repack this policy starts, before it starts, and again if it is refused. */
    private Consumer<String> onStarting = b -> { };
    private Consumer<String> onRefused = b -> { };

    public ReclaimPolicy(LifecycleContext ctx, Repacks repacks, LifecycleWork work, ReclaimConfig config) {
        this.ctx = ctx;
        this.repacks = repacks;
        this.work = work;
        this.config = config;
        repacks.whenEnded(this::changed);
    }

    /** What a look found on the catalog writer: candidates in order, those left to the operator, when to look again. */
    private record Scan(List<String> candidates, List<String> needOperator, long nextDue) {
    }

    /** Takes the pause the catalog holds and looks for candidates. Called once at start, on the loop. */
    public void start(Optional<String> pausedSetting) {
        String value = pausedSetting.orElse("");
        if (!value.isEmpty()) {
            int space = value.indexOf(' ');
            try {
                pausedSince = Long.parseLong(space < 0 ? value : value.substring(0, space));
            } catch (NumberFormatException e) {
                pausedSince = ctx.loop().now();
            }
            pauseReason = space < 0 ? "paused" : value.substring(space + 1);
            LOG.info("Reclamation policy paused since {} (recorded in the catalog): {}", pausedSince, pauseReason);
        }
        changed();
    }

    /**
     * Something that may make or unmake a candidate happened: a look is due (at most one per interval). A look
     * already set for later (a cartridge too young) is brought forward to the interval's end.
     */
    public void changed() {
        if (!config.enabled()) {
            return;
        }
        if (looking) {
            lookAgain = true;
            return;
        }
        long now = ctx.loop().now();
        schedule(lastLook == 0 ? now : Math.max(now, lastLook + config.intervalMillis()));
    }

    /** Sets the next look for {@code due}, or keeps the one set if it comes sooner. */
    private void schedule(long due) {
        if (lookTimer != null) {
            if (lookDue <= due) {
                return;
            }
            lookTimer.cancel();
        }
        lookDue = due;
        lookTimer = ctx.loop().schedule(Math.max(0, due - ctx.loop().now()), this::look);
    }

    private void look() {
        lookTimer = null;
        looking = true;
        long now = ctx.loop().now();
        lastLook = now;
        ctx.writer().submit(CatalogWriter.Kind.READ, () -> scan(now), new CatalogWriter.Done<Scan>() {
            @Override
            public void succeeded(Scan s) {
                looking = false;
                apply(s);
                if (s.nextDue() > 0) {
                    schedule(s.nextDue());
                }
                if (lookAgain) {
                    lookAgain = false;
                    changed();
                }
            }

            @Override
            public void failed(RuntimeException e) {
                looking = false;
                LOG.warn("Reclamation policy: cannot read the catalog ({}); looking again after the next change",
                        e.getMessage());
            }
        });
    }

    /** On the catalog writer: the candidates by the catalog's counts, SUSPECT first, then the emptiest. */
    private Scan scan(long now) {
        Map<String, RepackJob> jobs = new HashMap<>();
        for (RepackJob j : ctx.catalog().repackJobs()) {
            jobs.put(j.source(), j);
        }
        List<CartridgeRecord> found = new ArrayList<>();
        List<String> leftAlone = new ArrayList<>();
        long nextDue = 0;
        for (CartridgeRecord c : ctx.catalog().cartridges()) {
            long live = c.usedBytes() - c.reclaimableBytes();
            boolean suspect = c.state() == CartridgeState.SUSPECT && live > 0;
            boolean sparse = c.state() == CartridgeState.FULL && c.usedBytes() > 0
                    && (double) live / c.usedBytes() < config.threshold();
            if (c.family() == null || c.disabled() || !(suspect || sparse)) {
                continue;
            }
            RepackJob last = jobs.get(c.barcode());
            if (last != null && last.unfinished()) {
                continue; // resumed at start, or started already
            }
            if (last != null && (RepackJob.FAILED.equals(last.state()) || RepackJob.CANCELLED.equals(last.state())
                    || (RepackJob.DONE.equals(last.state()) && last.filesFailed() > 0))) {
                leftAlone.add(c.barcode());
                continue;
            }
            if (sparse && !suspect && config.minAgeMillis() > 0) {
                long lastWrite = 0;
                for (AggregateRecord a : ctx.catalog().aggregates(c.barcode())) {
                    lastWrite = Math.max(lastWrite, a.writtenAt());
                }
                long due = lastWrite + config.minAgeMillis();
                if (due > now) {
                    nextDue = nextDue == 0 ? due : Math.min(nextDue, due);
                    continue;
                }
            }
            found.add(c);
        }
        found.sort(Comparator.comparing((CartridgeRecord c) -> c.state() != CartridgeState.SUSPECT)
                .thenComparingDouble(c -> (double) (c.usedBytes() - c.reclaimableBytes()) / c.usedBytes())
                .thenComparing(CartridgeRecord::barcode));
        List<String> barcodes = new ArrayList<>(found.size());
        found.forEach(c -> barcodes.add(c.barcode()));
        return new Scan(barcodes, leftAlone, nextDue);
    }

    /** On the loop: keeps the candidates still usable as the loop knows them, and starts repacks of the first. */
    private void apply(Scan s) {
        List<String> usable = new ArrayList<>();
        for (String barcode : s.candidates()) {
            CartridgeRecord c = ctx.cartridges().get(barcode);
            if (c != null && !c.disabled() && !c.state().writable() && c.state() != CartridgeState.EMPTY
                    && ctx.cartridges().writing(barcode) == 0 && work.handling(c) == null
                    && !c.equals(refused.get(barcode))) {
                refused.remove(barcode);
                usable.add(barcode);
            }
        }
        candidates = usable;
        needOperator = s.needOperator();
        if (pausedSince != 0) {
            return;
        }
        for (String barcode : usable) {
            if (repacks.unfinished() >= config.maxRepacks()) {
                break;
            }
            CartridgeRecord c = ctx.cartridges().get(barcode);
            onStarting.accept(barcode);
            CompletableFuture<RepackReport> run = repacks.start(barcode, null);
            if (run.isCompletedExceptionally()) {
                onRefused.accept(barcode);
                refused.put(barcode, c);
                run.whenComplete((r, e) -> LOG.warn("Reclamation policy: repack of {} refused (not tried again"
                        + " until the cartridge changes): {}", barcode, e.getMessage()));
                continue;
            }
            started.add(barcode);
            LOG.info("Reclamation policy: repacking {} ({})", barcode, c.state() == CartridgeState.SUSPECT
                    ? "SUSPECT: its good files" : "live fraction below " + config.threshold());
            run.whenComplete((r, e) -> {
                if (e != null) {
                    // failed before its task was queued (spool, plan read): no repack ends to forget it
                    LOG.warn("Reclamation policy: repack of {} failed: {}", barcode, e.getMessage());
                    onRefused.accept(barcode);
                }
            });
        }
    }

    /**
     * Pauses the policy: no repack starts until {@link #resume}, across restarts too (recorded in the catalog).
     * The future ends once the catalog has it; repacks already started run on.
     */
    public CompletableFuture<ReclaimStatus> pause(String reason) {
        if (pausedSince == 0) {
            pausedSince = Math.max(1, ctx.loop().now());
        }
        pauseReason = reason;
        LOG.info("Reclamation policy paused: {}", reason);
        return record(pausedSince + " " + reason);
    }

    /** Resumes the policy (recorded in the catalog) and looks for candidates at once. */
    public CompletableFuture<ReclaimStatus> resume() {
        pausedSince = 0;
        pauseReason = null;
        LOG.info("Reclamation policy resumed");
        if (lookTimer != null) {
            lookTimer.cancel();
            lookTimer = null;
        }
        lastLook = 0;
        changed();
        return record("");
    }

    private CompletableFuture<ReclaimStatus> record(String value) {
        CompletableFuture<ReclaimStatus> done = new CompletableFuture<>();
        long now = ctx.loop().now();
        ctx.writer().submit(CatalogWriter.Kind.CARTRIDGE, () -> {
            ctx.catalog().putSetting(PAUSED_SETTING, value, now);
            return null;
        }, new CatalogWriter.Done<Object>() {
            @Override
            public void succeeded(Object v) {
                done.complete(status());
            }

            @Override
            public void failed(RuntimeException e) {
                done.completeExceptionally(new IllegalStateException("reclamation " + (value.isEmpty() ? "resumed"
                        : "paused") + " in this run, but the catalog did not record it (a restart would forget it): "
                        + e.getMessage(), e));
            }
        });
        return done;
    }

    /** The policy as it is now. */
    public ReclaimStatus status() {
        int queued = 0;
        for (String s : started) {
            queued += repacks.unfinished(s) ? 1 : 0;
        }
        String state = !config.enabled() ? "off" : pausedSince != 0 ? "paused" : "on";
        return new ReclaimStatus(state, pausedSince, pauseReason, config.threshold(), candidates.size(),
                candidates.subList(0, Math.min(ReclaimStatus.LISTED, candidates.size())), queued, started.size(),
                needOperator, lastLook);
    }

    /**
     * Tells {@code starting}, on the loop, the source of each repack this policy starts, just before it starts
     * (so a catalog write it submits comes before the repack's own), and {@code refused} the source if the repack
     * was refused at once.
     */
    void whenStarting(Consumer<String> starting, Consumer<String> refused) {
        onStarting = onStarting.andThen(starting);
        onRefused = onRefused.andThen(refused);
    }
}
