package org.tapeq.scheduler.engine.lifecycle;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;

/**
 * Returns to the scratch pool the cartridges the reclamation policy emptied ({@code reclaim.relabel}): when a
 * repack the policy started ends with its source {@code EMPTY}, never SUSPECT and with no file it could not move,
 * the source is relabelled for its own family through {@link Relabels#start}, whose refusals all apply (a
 * refused or failed relabel is logged and the cartridge stays {@code EMPTY} for the operator,
 * {@code tapeq cartridge relabel VID}). On the loop.
 */
public final class ScratchReturn {

    private static final Logger LOG = LoggerFactory.getLogger(ScratchReturn.class);

    private final LifecycleContext ctx;
    private final ReclaimPolicy policy;
    private final Relabels relabels;

    public ScratchReturn(LifecycleContext ctx, Repacks repacks, ReclaimPolicy policy, Relabels relabels,
                         ReclaimConfig config) {
        this.ctx = ctx;
        this.policy = policy;
        this.relabels = relabels;
        if (config.relabel()) {
            repacks.whenEndedReport(this::ended);
        }
    }

    private void ended(RepackReport r) {
        if (!policy.started(r.source()) || !"done".equals(r.state()) || !r.emptied() || r.filesFailed() > 0) {
            return;
        }
        CartridgeRecord c = ctx.cartridges().get(r.source());
        if (c == null || c.state() != CartridgeState.EMPTY || Relabels.wasSuspect(c)) {
            LOG.info("Reclamation: {} is not relabelled: {}", r.source(), c == null ? "no longer in the library"
                    : c.state() + (c.reason() == null ? "" : " (" + c.reason() + ")"));
            return;
        }
        LOG.info("Reclamation: relabelling {} for family {}, it returns to the scratch pool", r.source(),
                c.family());
        relabels.start(r.source(), null, false).whenComplete((report, e) -> {
            if (e != null) {
                LOG.warn("Reclamation: {} stays EMPTY, its relabel was refused: {}", r.source(), e.getMessage());
            }
        });
    }
}
