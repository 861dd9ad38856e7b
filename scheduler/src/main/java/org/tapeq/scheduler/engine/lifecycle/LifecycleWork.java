package org.tapeq.scheduler.engine.lifecycle;

import org.tapeq.scheduler.catalog.CartridgeRecord;

/**
 * Which lifecycle work of this run has a cartridge in hand: a repack starting, queued or running, a relabel being
 * recorded or run, a verification queued or running, or a running migration moving data off its media. The
 * reclamation policy leaves such a cartridge alone; periodic verification ({@link #busy}) leaves alone only the
 * ones work is being done on now, not every cartridge a migration will reach some day (until it is reached, the
 * old copy is the only one). On the loop.
 */
public final class LifecycleWork {

    private final Repacks repacks;
    private final Migrations migrations;
    private final Relabels relabels;
    private final Verifications verifications;

    public LifecycleWork(Repacks repacks, Migrations migrations, Relabels relabels, Verifications verifications) {
        this.repacks = repacks;
        this.migrations = migrations;
        this.relabels = relabels;
        this.verifications = verifications;
    }

    /**
     * What has the cartridge in hand ("a repack", "a relabel", "a verification", "a migration"), or null if
     * nothing does.
     */
    public String handling(CartridgeRecord c) {
        String now = busy(c);
        return now != null ? now : migrations.movingOff(c) ? "a migration" : null;
    }

    /**
     * What is working on the cartridge now ("a repack", also a migration's, "a relabel", "a verification"), or
     * null: {@link #handling} without the cartridges a migration has yet to reach.
     */
    public String busy(CartridgeRecord c) {
        if (repacks.unfinished(c.barcode())) {
            return "a repack";
        }
        if (relabels.busy(c.barcode())) {
            return "a relabel";
        }
        return verifications.busy(c.barcode()) ? "a verification" : null;
    }
}
