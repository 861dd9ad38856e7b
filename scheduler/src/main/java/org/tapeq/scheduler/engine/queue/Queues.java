package org.tapeq.scheduler.engine.queue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.tape.CartridgeCapacity;

/**
 * Every work queue (one per cartridge, one per tape family for unbound writes), the index of those not held by
 * a drive, and the moves between them when a cartridge changes: a closed, disabled or fuller cartridge sends
 * its bound writes back to their family queue.
 */
public final class Queues {

    private final Map<String, WorkQueue> cartridgeQueues = new HashMap<>();
    private final Map<String, WorkQueue> familyQueues = new HashMap<>();
    private final QueueIndex index;
    private final Cartridges cartridges;
    private final Runnable requestDispatch;
    private long queueSeq;
    /** Told after each cartridge record change made here (the reclamation policy looks again). */
    private Runnable cartridgeChanged = () -> { };

    public Queues(QueueIndex index, Cartridges cartridges, Runnable requestDispatch) {
        this.index = index;
        this.cartridges = cartridges;
        this.requestDispatch = requestDispatch;
    }

    public QueueIndex index() {
        return index;
    }

    /** Tells {@code then}, on the loop, after each {@link #updateCartridge}. */
    public void whenCartridgeChanged(Runnable then) {
        cartridgeChanged = then;
    }

    /** The cartridge's queue, created (accounted to {@code group}) if it has none. */
    public WorkQueue cartridgeQueue(String barcode, String group) {
        return cartridgeQueues.computeIfAbsent(barcode,
                b -> new WorkQueue(b, null, cartridges.mediaOf(b), () -> usedBytesOf(b), group, queueSeq++));
    }

    /** The family's write queue, created (accounted to {@code group}) if it has none. */
    public WorkQueue familyQueue(String family, String group) {
        return familyQueues.computeIfAbsent(family,
                f -> new WorkQueue(null, f, cartridges.familyMedia(f), () -> -1, group, queueSeq++));
    }

    private long usedBytesOf(String barcode) {
        CartridgeRecord c = cartridges.get(barcode);
        return c == null ? -1 : c.usedBytes();
    }

    /** The cartridge's queue, or null. */
    public WorkQueue cartridgeQueueIfAny(String barcode) {
        return cartridgeQueues.get(barcode);
    }

    /** The family's write queue, or null. */
    public WorkQueue familyQueueIfAny(String family) {
        return familyQueues.get(family);
    }

    public Collection<WorkQueue> cartridgeQueues() {
        return Collections.unmodifiableCollection(cartridgeQueues.values());
    }

    public Collection<WorkQueue> familyQueues() {
        return Collections.unmodifiableCollection(familyQueues.values());
    }

    /** Files the queue again in the index if no drive holds it. */
    public void refileIfFree(WorkQueue q) {
        if (!q.isHeld()) {
            index.update(q);
        }
    }

    /** Keeps a changed cartridge record; a cartridge that can no longer be written gives its writes back. */
    public void updateCartridge(CartridgeRecord updated) {
        cartridges.save(updated);
        cartridgeChanged.run();
        if (!updated.state().writable() || updated.disabled()) {
            rebindWrites(updated.barcode(), true);
        }
    }

    /**
     * What the cartridge's memory said at a mount (the SCSI backend's {@code TapeLibrary.capacity}): the record
     * takes its real capacity, and a cartridge nearly full by it is closed for writing.
     */
    public void capacityRead(String barcode, CartridgeCapacity cap) {
        CartridgeRecord c = cartridges.get(barcode);
        CartridgeRecord measured = c == null ? null : cartridges.withMeasuredCapacity(c, cap);
        if (measured == null) {
            return;
        }
        if (cartridges.nearlyFull(measured)) {
            updateCartridge(measured.withState(CartridgeState.FULL, "closed with " + measured.freeBytes()
                    + " bytes free by its cartridge memory"));
        } else {
            updateCartridge(measured);
            rebindWrites(barcode, false);
        }
    }

    /**
     * Takes a cartridge's use as the catalog had it right after a commit ({@link Cartridges#committed}), and
     * closes it for writing when nearly full.
     */
    public void refreshCartridge(CartridgeRecord fromCatalog) {
        CartridgeRecord c = cartridges.committed(fromCatalog);
        if (c == null) {
            return;
        }
        String barcode = c.barcode();
        if (cartridges.nearlyFull(c)) {
            updateCartridge(c.withState(CartridgeState.FULL, "closed with " + c.freeBytes() + " bytes free"));
        } else {
            rebindWrites(barcode, false); // aggregates bound while there was room may no longer fit
        }
    }

    /** A cartridge stuck in a drive out of service: its queue says why, and its bound writes go to the family. */
    public void stuck(String barcode, WorkQueue q, String reason) {
        q.blocked(reason);
        rebindWrites(barcode, true);
    }

    /**
     * Aggregates bound to a cartridge go back to their family queue when it can no longer take them: all of
     * them ({@code all}, the cartridge is closed or disabled) or those that no longer fit.
     */
    private void rebindWrites(String barcode, boolean all) {
        WorkQueue q = cartridgeQueues.get(barcode);
        CartridgeRecord c = cartridges.get(barcode);
        if (q == null || c == null || !q.hasWrites()) {
            return;
        }
        List<PendingAggregate> keep = new ArrayList<>();
        List<PendingAggregate> moved = new ArrayList<>();
        PendingAggregate agg;
        while ((agg = q.takeWrite()) != null) {
            (!all && cartridges.writable(c, agg.liveBytes()) ? keep : moved).add(agg);
        }
        keep.forEach(q::addWrite);
        if (moved.isEmpty()) {
            return;
        }
        refileIfFree(q);
        for (PendingAggregate a : moved) {
            WorkQueue fq = familyQueue(a.family(), a.group());
            fq.addWrite(a);
            index.update(fq);
        }
        requestDispatch.run();
    }
}
