package org.tapeq.scheduler.engine.lifecycle;

import org.tapeq.scheduler.catalog.CartridgeRecord;

/**
 * Which lifecycle work of this run has a cartridge in hand: a repack starting, queued or running, a relabel being
 * recorded or run, or a running migration moving data off its media. The automatic policies (reclamation,
 * periodic verification) leave such a cartridge alone. On the loop.
 */
public final class LifecycleWork {

    private final Repacks repacks;
    private final Migrations migrations;
    private final Relabels relabels;

    public LifecycleWork(Repacks repacks, Migrations migrations, Relabels relabels) {
        this.repacks = repacks;
        this.migrations = migrations;
        this.relabels = relabels;
    }

    /** What has the cartridge in hand ("a repack", "a relabel", "a migration"), or null if nothing does. */
    public String handling(CartridgeRecord c) {
        if (repacks.unfinished(c.barcode())) {
            return "a repack";
        }
        if (relabels.busy(c.barcode())) {
            return "a relabel";
        }
        return migrations.movingOff(c) ? "a migration" : null;
    }
}
