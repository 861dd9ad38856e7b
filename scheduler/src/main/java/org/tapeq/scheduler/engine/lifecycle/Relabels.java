package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.catalog.RelabelIntent;
import org.tapeq.scheduler.engine.store.CatalogWriter;

/**
 * The relabels of this run, on the loop ({@code tapeq cartridge relabel}): an emptied cartridge returns to the
 * scratch pool. Starts one (refused unless the cartridge is {@code EMPTY}, or with force has no live file, and no
 * write to it is under way), resumes the intents the catalog holds at start, and keeps each cartridge's latest
 * report for status.
 *
 * <p>Design notes. Order of a relabel: the cartridge is closed for writing (on the loop, so no write can begin
 * after the check that none is under way), then the intent is recorded in the catalog (refused there if a file is
 * live on it), then {@link RelabelTask} writes the label and commits, which removes the intent. A kill at any point
 * leaves either no intent (nothing on tape changed) or an intent, which the next start runs again.
 */
public final class Relabels {

    private static final Logger LOG = LoggerFactory.getLogger(Relabels.class);

    /** Start of the reason of an EMPTY cartridge that was SUSPECT before its repack (see {@link RepackTask}). */
    static final String WAS_SUSPECT = "was SUSPECT";

    private final LifecycleContext ctx;
    private final Repacks repacks;
    private final Migrations migrations;
    private final Verifications verifications;
    private final Map<String, RelabelTask> latest = new LinkedHashMap<>();
    /** Cartridges whose intent is being recorded (not yet a task). */
    private final Map<String, String> starting = new LinkedHashMap<>();

    public Relabels(LifecycleContext ctx, Repacks repacks, Migrations migrations, Verifications verifications) {
        this.ctx = ctx;
        this.repacks = repacks;
        this.migrations = migrations;
        this.verifications = verifications;
    }

    /**
     * Queues the relabel of a cartridge for {@code family} (null: its own) as background work. The future ends with
     * its report once the intent is recorded, or fails with the reason it is refused.
     */
    public CompletableFuture<RelabelReport> start(String barcode, String family, boolean force) {
        CompletableFuture<RelabelReport> queued = new CompletableFuture<>();
        CartridgeRecord c = ctx.cartridges().get(barcode);
        String problem = refusal(barcode, c, family, force);
        if (problem != null) {
            queued.completeExceptionally(c == null ? new IllegalArgumentException(problem)
                    : new IllegalStateException(problem));
            return queued;
        }
        String target = family != null ? family : c.family();
        if (c.state().writable()) {
            ctx.queues().updateCartridge(c.withState(CartridgeState.FULL, "closed for writing: being relabelled"));
        }
        starting.put(barcode, target);
        RelabelIntent intent = new RelabelIntent(barcode, target, ctx.loop().now());
        ctx.writer().submit(CatalogWriter.Kind.CARTRIDGE, () -> {
            ctx.catalog().putRelabelIntent(intent);
            return null;
        }, new CatalogWriter.Done<Object>() {
            @Override
            public void succeeded(Object v) {
                starting.remove(barcode);
                queued.complete(queue(barcode, target));
            }

            @Override
            public void failed(RuntimeException e) {
                starting.remove(barcode);
                CartridgeRecord now = ctx.cartridges().get(barcode);
                if (now != null && c.state().writable() && now.state() == CartridgeState.FULL) {
                    ctx.queues().updateCartridge(now.withState(c.state(), c.reason())); // reopened as it was
                }
                queued.completeExceptionally(new IllegalStateException("relabel " + barcode + ": "
                        + e.getMessage(), e));
            }
        });
        return queued;
    }

    private String refusal(String barcode, CartridgeRecord c, String family, boolean force) {
        if (c == null) {
            return "unknown cartridge '" + barcode + "'";
        }
        if (family == null && c.family() == null) {
            return "relabel " + barcode + ": the cartridge has no family; name one (--family FAMILY)";
        }
        if (c.state() != CartridgeState.EMPTY && !force) {
            return "relabel " + barcode + ": the cartridge is " + c.state() + ", not EMPTY (emptied by a repack);"
                    + " a cartridge with no live file is relabelled only with --force";
        }
        if (c.state() == CartridgeState.UNKNOWN || c.state() == CartridgeState.BLANK) {
            return "relabel " + barcode + ": the cartridge is " + c.state() + ", it has no tapeq label to replace"
                    + " (tapeq cartridge label)";
        }
        if (c.state() == CartridgeState.FOREIGN) {
            return "relabel " + barcode + ": the cartridge is FOREIGN (another application's tape); tapeq never"
                    + " overwrites it, not even with --force";
        }
        if (wasSuspect(c) && !force) {
            return "relabel " + barcode + ": the cartridge was SUSPECT before it was emptied (" + c.reason()
                    + "); check the media first, then relabel it with --force to use it again";
        }
        if (repacks.unfinished(barcode)) {
            return "relabel " + barcode + ": a repack of the cartridge is under way; relabel it once the repack"
                    + " has ended (tapeq status)";
        }
        if (verifications.busy(barcode)) {
            return "relabel " + barcode + ": a verification of the cartridge is queued or running; cancel it"
                    + " (tapeq cartridge verify --cancel " + barcode + ") or relabel once it has ended";
        }
        String migrating = migrations.relabelRefusal(c, family != null ? family : c.family());
        if (migrating != null) {
            return migrating;
        }
        if (ctx.cartridges().writing(barcode) > 0) {
            return "relabel " + barcode + ": " + ctx.cartridges().writing(barcode) + " writes to it are under way";
        }
        if (ctx.background().maxDrives() == 0) {
            return "relabel " + barcode + ": background work is off (scheduler.maxBackgroundDrives is 0), the"
                    + " relabel would never run";
        }
        if (!ctx.writer().reachable()) {
            return "relabel " + barcode + ": the catalog is unreachable; ask again once it is back (tapeq status)";
        }
        if (busy(barcode)) {
            return "cartridge " + barcode + " is already being relabelled";
        }
        return null;
    }

    /** Whether an EMPTY cartridge was emptied while SUSPECT (its reason says so). */
    static boolean wasSuspect(CartridgeRecord c) {
        return c.state() == CartridgeState.EMPTY && c.reason() != null && c.reason().startsWith(WAS_SUSPECT);
    }

    /** Whether a relabel of the cartridge is being recorded, queued or running. */
    boolean busy(String barcode) {
        RelabelTask running = latest.get(barcode);
        return starting.containsKey(barcode) || (running != null && !running.ended());
    }

    /**
     * Runs again the relabels the catalog holds intents for (a restart after a kill between intent and commit):
     * each cartridge is closed for writing first. Called once at start, before any dispatch, on the loop.
     */
    public void resume(List<RelabelIntent> intents) {
        for (RelabelIntent intent : intents) {
            CartridgeRecord c = ctx.cartridges().get(intent.barcode());
            if (c == null) {
                LOG.warn("Relabel of {} not resumed: the cartridge is no longer in the library", intent.barcode());
                continue;
            }
            if (c.state().writable()) {
                ctx.queues().updateCartridge(c.withState(CartridgeState.FULL, "closed for writing: being relabelled"));
            }
            LOG.info("Resuming the relabel of {} for family {}: its label may or may not have been written",
                    intent.barcode(), intent.family());
            queue(intent.barcode(), intent.family());
        }
    }

    private RelabelReport queue(String barcode, String family) {
        RelabelTask task = new RelabelTask(ctx, barcode, family);
        latest.remove(barcode);
        latest.put(barcode, task);
        int ended = 0;
        for (RelabelTask t : latest.values()) {
            ended += t.ended() ? 1 : 0;
        }
        for (var it = latest.values().iterator(); it.hasNext() && ended > Verifications.KEEP_ENDED; ) {
            if (it.next().ended()) {
                it.remove();
                ended--;
            }
        }
        ctx.background().submit(task);
        return task.report();
    }

    /** The latest relabel of each cartridge relabelled in this run, in the order they were asked for. */
    public List<RelabelReport> reports() {
        List<RelabelReport> all = new ArrayList<>(latest.size());
        for (RelabelTask t : latest.values()) {
            all.add(t.report());
        }
        return all;
    }
}
