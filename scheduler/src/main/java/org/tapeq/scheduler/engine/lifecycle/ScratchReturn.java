package org.tapeq.scheduler.engine.lifecycle;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.store.CatalogWriter;

/**
 * Returns to the scratch pool the cartridges the reclamation policy emptied ({@code reclaim.relabel}): when a
 * repack the policy started ends with its source {@code EMPTY}, never SUSPECT and with no file it could not move,
 * the source is relabelled for its own family through {@link Relabels#start}, whose refusals all apply (a
 * refused or failed relabel is logged and the cartridge stays {@code EMPTY} for the operator,
 * {@code tapeq cartridge relabel VID}). On the loop.
 *
 * <p>Design notes. Which cartridges the policy is emptying is durable: the catalog setting {@link #PENDING_SETTING}
 * lists them, written when the policy starts a repack (before the repack's own job row, the catalog writer keeping
 * the order) and rewritten once the relabel's intent is recorded (from then on {@link Relabels} owns it) or the
 * cartridge turns out not to be returned (the repack failed, left files, or the cartridge was SUSPECT). At start
 * ({@link #start}) a listed cartridge whose repack resumed is waited for again, and one already {@code EMPTY} is
 * relabelled now: a restart between "emptied" and the relabel does not keep it out of the scratch pool. A relabel
 * refused (the catalog failed, a write under way...) keeps it listed, tried again at the next start.
 */
public final class ScratchReturn {

    private static final Logger LOG = LoggerFactory.getLogger(ScratchReturn.class);

    /** The catalog setting listing (space-separated) the cartridges the policy empties for the scratch pool. */
    public static final String PENDING_SETTING = "reclaim.toScratch";

    private final LifecycleContext ctx;
    private final Repacks repacks;
    private final Relabels relabels;
    private final boolean enabled;
    /** Cartridges the policy is emptying or emptied, not yet handed to a relabel; as the catalog setting has them. */
    private final Set<String> pending = new LinkedHashSet<>();

    public ScratchReturn(LifecycleContext ctx, Repacks repacks, ReclaimPolicy policy, Relabels relabels,
                         ReclaimConfig config) {
        this.ctx = ctx;
        this.repacks = repacks;
        this.relabels = relabels;
        this.enabled = config.relabel();
        if (enabled) {
            policy.whenStarting(this::intend, this::forget);
            repacks.whenEndedReport(this::ended);
        }
    }

    /**
     * Takes the cartridges the catalog lists: waits again for those whose repack resumed, relabels those already
     * emptied. Called once at start, after repacks and relabels were resumed, on the loop.
     */
    public void start(Optional<String> setting) {
        if (!enabled || setting.orElse("").isBlank()) {
            return;
        }
        for (String barcode : setting.get().trim().split(" +")) {
            pending.add(barcode);
        }
        for (String barcode : new ArrayList<>(pending)) {
            if (repacks.unfinished(barcode)) {
                LOG.info("Reclamation: {} returns to the scratch pool once its resumed repack has emptied it", barcode);
            } else if (relabels.busy(barcode)) {
                pending.remove(barcode); // its relabel intent was recorded: resumed by the relabels
            } else {
                returnToScratch(barcode);
            }
        }
        record();
    }

    /** The policy starts a repack of {@code barcode}: listed before the repack is recorded. */
    private void intend(String barcode) {
        if (pending.add(barcode)) {
            record();
        }
    }

    private void ended(RepackReport r) {
        if (!pending.contains(r.source())) {
            return;
        }
        if (!"done".equals(r.state()) || !r.emptied() || r.filesFailed() > 0) {
            forget(r.source());
            return;
        }
        returnToScratch(r.source());
    }

    /** Relabels the cartridge if it is EMPTY and was not SUSPECT; forgets it once the relabel's intent is recorded. */
    private void returnToScratch(String barcode) {
        CartridgeRecord c = ctx.cartridges().get(barcode);
        if (c == null || c.state() != CartridgeState.EMPTY || Relabels.wasSuspect(c)) {
            LOG.info("Reclamation: {} is not relabelled: {}", barcode, c == null ? "no longer in the library"
                    : c.state() + (c.reason() == null ? "" : " (" + c.reason() + ")"));
            forget(barcode);
            return;
        }
        LOG.info("Reclamation: relabelling {} for family {}, it returns to the scratch pool", barcode, c.family());
        relabels.start(barcode, null, false).whenComplete((report, e) -> {
            if (e != null) {
                LOG.warn("Reclamation: {} stays EMPTY, its relabel was refused (tried again at the next start, or"
                        + " tapeq cartridge relabel {}): {}", barcode, barcode, e.getMessage());
            } else {
                forget(barcode);
            }
        });
    }

    private void forget(String barcode) {
        if (pending.remove(barcode)) {
            record();
        }
    }

    private void record() {
        String value = String.join(" ", pending);
        long now = ctx.loop().now();
        ctx.writer().submit(CatalogWriter.Kind.CARTRIDGE, () -> ctx.catalog().putSetting(PENDING_SETTING, value, now),
                "record the cartridges reclamation returns to the scratch pool");
    }
}
