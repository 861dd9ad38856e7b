package org.tapeq.scheduler.engine.lifecycle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.RepackJob;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.FileRecord;
import org.tapeq.scheduler.model.MediaType;

/**
 * The cartridge repacks of this run, on the loop: starts one ({@code tapeq cartridge repack}), resumes the ones
 * the catalog holds unfinished at start, cancels, and keeps each source's latest report for status (the running
 * ones and the last {@link Verifications#KEEP_ENDED} ended ones).
 */
public final class Repacks {

    private static final Logger LOG = LoggerFactory.getLogger(Repacks.class);

    private final LifecycleContext ctx;
    private final RepackSpool spool;
    private final Map<String, RepackTask> latest = new LinkedHashMap<>();
    /** Sources whose plan is being read (not yet a task). */
    private final Set<String> starting = new HashSet<>();
    /** Told on the loop each time a repack ends ({@link ReclaimPolicy} looks again, {@link ScratchReturn}). */
    private final List<Consumer<RepackReport>> onEnded = new ArrayList<>();
    /** Cartridges no repack may write to ({@link #neverTarget}). */
    private Predicate<CartridgeRecord> neverTarget = c -> false;
    /** Cartridges a verification has in hand ({@link #verifiedBy}): no repack starts on one. */
    private Predicate<String> verifying = b -> false;

    public Repacks(LifecycleContext ctx) {
        this.ctx = ctx;
        this.spool = ctx.spoolDirectory() == null ? null : new RepackSpool(ctx.spoolDirectory());
    }

    /** What a repack starts from: the source's contents and where the target family holds each dataset. */
    private record Start(RepackPlan plan, Map<String, List<String>> colocated, Set<String> spooled) {
    }

    /**
     * Queues the repack of cartridge {@code source} onto other cartridges of {@code family} (null: the source's
     * own family) as background work. The future ends with its first report once it is queued, or fails: unknown
     * cartridge or family, no family given for a cartridge without one, a repack of it already running, no spool
     * directory, background work off, the catalog known to be unreachable. On the loop.
     */
    public CompletableFuture<RepackReport> start(String source, String family) {
        return start(source, family, null);
    }

    /**
     * As {@link #start(String, String)}, onto cartridges of {@code media} only (a {@link MediaType} name; null:
     * any): a repack onto new media. Also refused for an unknown media type.
     */
    public CompletableFuture<RepackReport> start(String source, String family, String media) {
        CompletableFuture<RepackReport> queued = new CompletableFuture<>();
        String problem = media != null && MediaType.byName(media).isEmpty()
                ? "unknown media type '" + media + "' (known: LTO-8, LTO-9, TS1160)" : refusal(source, family, media);
        if (problem != null) {
            queued.completeExceptionally(problem.startsWith("unknown") ? new IllegalArgumentException(problem)
                    : new IllegalStateException(problem));
            return queued;
        }
        String target = family != null ? family : ctx.cartridges().get(source).family();
        String targetMedia = media == null ? null : MediaType.byName(media).orElseThrow().name();
        launch(new RepackJob(source, target, RepackJob.RUNNING, ctx.loop().now(), 0, -1, -1, 0, null, targetMedia),
                queued);
        return queued;
    }

    private String refusal(String source, String family, String media) {
        CartridgeRecord c = ctx.cartridges().get(source);
        if (c == null) {
            return "unknown cartridge '" + source + "'";
        }
        if (family == null && c.family() == null) {
            return "repack " + source + ": the cartridge has no family; name the target family (--to FAMILY)";
        }
        String target = family != null ? family : c.family();
        boolean known = false;
        for (CartridgeRecord r : ctx.cartridges().all()) {
            known |= target.equals(r.family()) && !r.barcode().equals(source) && ofMedia(r, media);
        }
        if (!known) {
            return "repack " + source + ": no other cartridge" + (media == null ? "" : " of media " + media)
                    + " is labelled for family " + target + " (tapeq cartridge label)";
        }
        if (spool == null) {
            return "repack " + source + ": no repack spool directory is configured";
        }
        if (ctx.background().maxDrives() == 0) {
            return "repack " + source + ": background work is off (scheduler.maxBackgroundDrives is 0), the repack"
                    + " would never run";
        }
        if (!ctx.writer().reachable()) {
            return "repack " + source + ": the catalog is unreachable; ask again once it is back (tapeq status)";
        }
        RepackTask running = latest.get(source);
        if (starting.contains(source) || (running != null && !running.ended())) {
            return "cartridge " + source + " is already being repacked"
                    + (running != null && !running.ended() ? " (" + running.report().state() + ")" : "");
        }
        if (verifying.test(source)) {
            // emptied under it, the verification would find its files gone and mark the cartridge SUSPECT
            return "repack " + source + ": a verification of the cartridge is queued or running; cancel it"
                    + " (tapeq cartridge verify --cancel " + source + ") or repack once it has ended";
        }
        return null;
    }

    /** Tells which cartridges a verification has in hand (queued or running): no repack of one starts. */
    public void verifiedBy(Predicate<String> busy) {
        verifying = busy;
    }

    /** Whether a verification has the cartridge in hand, so a repack of it would be refused. */
    boolean verifying(String barcode) {
        return verifying.test(barcode);
    }

    /** Rules a cartridge out as any repack's target from now on (a migration: the media it is moving off). */
    public void neverTarget(Predicate<CartridgeRecord> rule) {
        neverTarget = neverTarget.or(rule);
    }

    /**
     * Whether {@code task} may write to {@code r}: never to a cartridge ruled out ({@link #neverTarget}), nor,
     * unless {@code shared}, to one another unfinished repack is writing to (each running repack has targets of
     * its own, so two never wait on each other's mount).
     */
    boolean mayTarget(RepackTask task, CartridgeRecord r, boolean shared) {
        if (neverTarget.test(r)) {
            return false;
        }
        if (!shared) {
            for (RepackTask t : latest.values()) {
                if (t != task && !t.ended() && r.barcode().equals(t.target())) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether the cartridge is of the media type (a {@link MediaType#byName} name; null: any). */
    static boolean ofMedia(CartridgeRecord r, String media) {
        if (media == null) {
            return true;
        }
        MediaType want = MediaType.byName(media).orElse(null);
        return want != null && r.mediaType() != null && want.equals(MediaType.byName(r.mediaType()).orElse(null));
    }

    /**
     * Resumes the repacks the catalog holds unfinished (a restart, kill -9 included): each plans again from what
     * is still live on its source and reuses its spool. Called once at start, on the loop.
     */
    public void resume(List<RepackJob> jobs) {
        for (RepackJob job : jobs) {
            if (!job.unfinished()) {
                continue;
            }
            if (ctx.cartridges().get(job.source()) == null || spool == null) {
                LOG.warn("Repack of {} not resumed: {}", job.source(), spool == null
                        ? "no repack spool directory is configured" : "the cartridge is no longer in the library");
                RepackJob ended = job.ended(RepackJob.FAILED, ctx.loop().now(), job.filesFailed(), "not resumed");
                ctx.writer().submit(CatalogWriter.Kind.CARTRIDGE, () -> ctx.catalog().putRepackJob(ended),
                        "record the repack of " + job.source() + " as not resumed");
                continue;
            }
            LOG.info("Resuming the repack of {} to family {}", job.source(), job.targetFamily());
            CompletableFuture<RepackReport> resumed = new CompletableFuture<>();
            resumed.whenComplete((r, e) -> {
                if (e != null) {
                    LOG.warn("Repack of {} not resumed: {}", job.source(), e.getMessage());
                }
            });
            launch(job, resumed);
        }
    }

    /** Closes the source for writing, reads the plan (catalog writer), opens the spool (I/O executor), then queues the task (loop). */
    private void launch(RepackJob asked, CompletableFuture<RepackReport> queued) {
        String source = asked.source();
        starting.add(source);
        CartridgeRecord c = ctx.cartridges().get(source);
        if (c != null && c.state() == CartridgeState.APPENDABLE) {
            // closed before its files are read: a cartridge being emptied takes no new write (one begun before
            // is waited for at the end, RepackTask#finish); it stays closed if the repack cannot start
            ctx.queues().updateCartridge(c.withState(CartridgeState.FULL, "closed for writing: being repacked"));
        }
        ctx.writer().submit(CatalogWriter.Kind.READ, () -> {
            List<FileRecord> live = ctx.catalog().files(source);
            RepackPlan plan = RepackPlan.of(ctx.catalog().aggregates(source), live, ctx.spoolBytes());
            Map<String, List<String>> colocated = new HashMap<>();
            for (RepackPlan.Unit u : plan.units()) {
                for (FileRecord f : u.members()) {
                    String ds = f.dataset() == null ? "" : f.dataset();
                    if (!colocated.containsKey(ds)) {
                        colocated.put(ds, f.dataset() == null ? List.of()
                                : ctx.catalog().cartridgesHoldingDataset(asked.targetFamily(), f.dataset()));
                    }
                }
            }
            return new Start(plan, colocated, null);
        }, new CatalogWriter.Done<Start>() {
            @Override
            public void succeeded(Start s) {
                Set<String> live = new HashSet<>();
                s.plan().units().forEach(u -> u.members().forEach(f -> live.add(f.pnfsid())));
                ctx.io().execute(() -> {
                    try {
                        Set<String> kept = spool.open(source, live);
                        ctx.loop().execute(() -> queue(asked, new Start(s.plan(), s.colocated(), kept), queued));
                    } catch (IOException | RuntimeException e) {
                        ctx.loop().execute(() -> {
                            starting.remove(source);
                            queued.completeExceptionally(new IllegalStateException("repack " + source
                                    + ": cannot open its spool directory: " + e, e instanceof IOException io
                                    ? new UncheckedIOException(io) : e));
                        });
                    }
                });
            }

            @Override
            public void failed(RuntimeException e) {
                starting.remove(source);
                queued.completeExceptionally(e);
            }
        });
    }

    private void queue(RepackJob asked, Start s, CompletableFuture<RepackReport> queued) {
        String source = asked.source();
        starting.remove(source);
        RepackJob job = asked;
        if (asked.filesTotal() < 0) { // a new repack: its totals are what is live now
            job = new RepackJob(source, asked.targetFamily(), RepackJob.RUNNING, asked.requestedAt(), 0,
                    s.plan().files() + s.plan().hints().size(), s.plan().bytes() + RepackTask.hintBytes(s.plan()), 0,
                    null, asked.targetMedia());
        }
        RepackJob record = job.inState(RepackJob.RUNNING);
        RepackTask task = new RepackTask(ctx, this, spool, record, s.plan(), s.spooled(), s.colocated());
        task.onEnded = () -> onEnded.forEach(l -> l.accept(task.report()));
        keep(task);
        ctx.writer().submit(CatalogWriter.Kind.CARTRIDGE, () -> ctx.catalog().putRepackJob(record),
                "record the repack of " + source);
        LOG.info("Repack of {} to family {} queued: {} files ({} bytes) to move, {} already in the spool, {} that"
                + " tapeq cannot read", source, record.targetFamily(), s.plan().files(), s.plan().bytes(),
                s.spooled().size(), s.plan().hints().size());
        task.begin();
        queued.complete(task.report());
    }

    /**
     * Cancels the repack of a cartridge: a queued one ends at once, a running one at the end of the read or write
     * in progress (files already moved stay moved). Returns its report as it is now.
     *
     * @throws IllegalArgumentException if no repack of the cartridge is queued or running
     */
    public RepackReport cancel(String source) {
        RepackTask task = latest.get(source);
        if (task == null || task.ended()) {
            throw new IllegalArgumentException("no repack of cartridge '" + source + "' to cancel");
        }
        task.cancel();
        return task.report();
    }

    /** The latest repack of the cartridge in this run, or null. */
    public RepackReport report(String source) {
        RepackTask t = latest.get(source);
        return t == null ? null : t.report();
    }

    /** Tells {@code then}, on the loop, each time a repack ends (after those added before it). */
    public void whenEnded(Runnable then) {
        onEnded.add(r -> then.run());
    }

    /** Tells {@code then}, on the loop, the final report of each repack that ends. */
    public void whenEndedReport(Consumer<RepackReport> then) {
        onEnded.add(then);
    }

    /** Whether a repack of {@code source} is starting, queued or running. */
    public boolean unfinished(String source) {
        RepackTask t = latest.get(source);
        return starting.contains(source) || (t != null && !t.ended());
    }

    /** Repacks starting, queued or running. */
    public int unfinished() {
        int n = starting.size();
        for (RepackTask t : latest.values()) {
            n += t.ended() ? 0 : 1;
        }
        return n;
    }

    /** The latest repack of each cartridge repacked in this run, in the order they were asked for. */
    public List<RepackReport> reports() {
        List<RepackReport> all = new ArrayList<>(latest.size());
        for (RepackTask t : latest.values()) {
            all.add(t.report());
        }
        return all;
    }

    private void keep(RepackTask task) {
        latest.remove(task.source());
        latest.put(task.source(), task);
        int ended = 0;
        for (RepackTask t : latest.values()) {
            ended += t.ended() ? 1 : 0;
        }
        for (var it = latest.values().iterator(); it.hasNext() && ended > Verifications.KEEP_ENDED; ) {
            if (it.next().ended()) {
                it.remove();
                ended--;
            }
        }
    }
}
