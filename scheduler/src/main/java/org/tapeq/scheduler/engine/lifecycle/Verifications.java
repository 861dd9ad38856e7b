package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.engine.store.CatalogWriter;

/**
 * The cartridge verifications of this run, on the loop: starts one ({@code tapeq cartridge verify}) and keeps
 * each cartridge's latest report for status, the running ones and the last {@link #KEEP_ENDED} ended ones.
 */
public final class Verifications {

    /** Ended verifications kept for status. */
    static final int KEEP_ENDED = 100;

    private final LifecycleContext ctx;
    private final Map<String, VerifyTask> latest = new LinkedHashMap<>();

    public Verifications(LifecycleContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Queues the verification of a cartridge ({@code sample} > 0: that many aggregates spread over it) as
     * background work. The future ends with the queued verification's report (what it will read) once the
     * catalog gave its contents, or fails: unknown cartridge, one already being verified, no aggregate to read,
     * background work off, the catalog known to be unreachable.
     * On the loop; the progress and the result are in {@link #reports()}.
     */
    public CompletableFuture<VerifyReport> start(String barcode, int sample) {
        CompletableFuture<VerifyReport> queued = new CompletableFuture<>();
        CartridgeRecord c = ctx.cartridges().get(barcode);
        if (c == null) {
            queued.completeExceptionally(new IllegalArgumentException("unknown cartridge '" + barcode + "'"));
            return queued;
        }
        if (ctx.background().maxDrives() == 0) {
            queued.completeExceptionally(new IllegalStateException("verify " + barcode
                    + ": background work is off (scheduler.maxBackgroundDrives is 0), the verification would never"
                    + " run"));
            return queued;
        }
        if (!ctx.writer().reachable()) {
            // the plan is read from the catalog: asked now, it would wait behind the outage and the caller time out
            queued.completeExceptionally(new IllegalStateException("verify " + barcode
                    + ": the catalog is unreachable; ask again once it is back (tapeq status)"));
            return queued;
        }
        if (sample < 0) {
            queued.completeExceptionally(new IllegalArgumentException("verify " + barcode
                    + ": the sample must be a positive number of aggregates, not " + sample));
            return queued;
        }
        VerifyTask running = latest.get(barcode);
        if (running != null && !running.ended()) {
            queued.completeExceptionally(new IllegalStateException("cartridge " + barcode
                    + " is already being verified (" + running.report().state() + ")"));
            return queued;
        }
        ctx.writer().submit(CatalogWriter.Kind.READ, () -> VerifyPlan.of(ctx.catalog().aggregates(barcode),
                ctx.catalog().files(barcode), sample), new CatalogWriter.Done<VerifyPlan>() {
            @Override
            public void succeeded(VerifyPlan plan) {
                VerifyTask again = latest.get(barcode);
                if (again != null && !again.ended()) {
                    queued.completeExceptionally(new IllegalStateException("cartridge " + barcode
                            + " is already being verified"));
                } else if (plan.units().isEmpty()) {
                    queued.completeExceptionally(new IllegalArgumentException("cartridge " + barcode
                            + " holds no live file written by tapeq: nothing to verify"));
                } else {
                    VerifyTask task = new VerifyTask(ctx, barcode, plan);
                    keep(task);
                    ctx.background().submit(task);
                    queued.complete(task.report());
                }
            }

            @Override
            public void failed(RuntimeException e) {
                queued.completeExceptionally(e);
            }
        });
        return queued;
    }

    /**
     * Cancels the verification of a cartridge: a queued one ends at once, a running one at the end of the
     * aggregate being read. Returns its report as it is now.
     *
     * @throws IllegalArgumentException if no verification of the cartridge is queued or running
     */
    public VerifyReport cancel(String barcode) {
        VerifyTask task = latest.get(barcode);
        if (task == null || task.ended()) {
            throw new IllegalArgumentException("no verification of cartridge '" + barcode + "' to cancel");
        }
        if (ctx.background().remove(task)) {
            task.dropped(VerifyTask.CANCELLED);
        } else {
            task.cancelRunning();
        }
        return task.report();
    }

    /** Whether a verification of the cartridge is queued or running. */
    public boolean busy(String barcode) {
        VerifyTask task = latest.get(barcode);
        return task != null && !task.ended();
    }

    /** The latest verification of each cartridge verified in this run, in the order they were asked for. */
    public List<VerifyReport> reports() {
        List<VerifyReport> all = new ArrayList<>(latest.size());
        for (VerifyTask t : latest.values()) {
            all.add(t.report());
        }
        return all;
    }

    private void keep(VerifyTask task) {
        latest.remove(task.barcode());
        latest.put(task.barcode(), task);
        int ended = 0;
        for (VerifyTask t : latest.values()) {
            ended += t.ended() ? 1 : 0;
        }
        for (var it = latest.values().iterator(); it.hasNext() && ended > KEEP_ENDED; ) {
            if (it.next().ended()) {
                it.remove();
                ended--;
            }
        }
    }
}
