package org.tapeq.scheduler.tape.scsi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.TapeFault;

/**
 * What a drive offers towards the read order: the end-of-wrap positions of the loaded cartridge (READ END OF WRAP
 * POSITION, {@link WrapEnds}) and its recommended access order ({@link AccessOrder}), asked once per load and kept in
 * the drive's {@link DriveState} until the unload.
 *
 * <p>Design notes. {@link #loaded} runs in the mount (or the adoption at start) job on the drive's own worker, like
 * the capacity read, so the scheduler's questions on its loop ({@code wrapEnds}, {@code accessOrderLimit}) read
 * what is cached and never wait on the drive. A drive that lacks a command ({@link FaultMap#lacksCommand}:
 * ILLEGAL REQUEST with an invalid operation code, or an invalid field at the service action) is marked in its state
 * and not asked again while the library runs: that is the virtual labs and every drive before LTO-7 (REOWP) or
 * without RAO (enterprise drives and LTO-9 full height have it). Any other failure of the probe at the load (another
 * ILLEGAL REQUEST, which may come from the cartridge, a timeout, a tape host without {@code sg_raw}) only leaves that
 * load without the facts (logged once per drive; the mount goes on, as without cartridge memory); a failed order
 * request is the drive's fault, as the other operations' are. No state of its own besides the log-once set of {@link DriveProbe}.
 */
final class DriveOrder {

    private static final Logger LOG = LoggerFactory.getLogger(DriveOrder.class);

    private final DriveProbe probe;

    DriveOrder(DriveProbe probe) {
        this.probe = probe;
    }

    /** After a load (or on finding a cartridge at start): asks the drive what it offers for this cartridge. */
    void loaded(DriveState d) {
        d.wrapEnds = null;
        d.accessOrderLimit = 0;
        if (!d.noWrapEnds) {
            DriveAnswer<long[]> ends = probe.wrapEnds(d.device());
            if (ends.ok()) {
                d.wrapEnds = ends.value();
            } else {
                d.noWrapEnds = ends.unsupported();
                note(d, "end-of-wrap positions", ends);
            }
        }
        if (!d.noAccessOrder) {
            DriveAnswer<Integer> limit = probe.accessOrderLimit(d.device());
            if (limit.ok()) {
                d.accessOrderLimit = limit.value();
            } else {
                d.noAccessOrder = limit.unsupported();
                note(d, "recommended access order", limit);
            }
        }
    }

    /** The end-of-wrap positions reported at the load of the cartridge in the drive (null: none configured), if any. */
    Optional<long[]> wrapEnds(DriveState d) {
        long[] ends = d == null || d.barcode == null ? null : d.wrapEnds;
        return ends == null ? Optional.empty() : Optional.of(ends.clone());
    }

    /**
     * The commands the drive (null: none configured) was found to lack for good and is not asked again:
     * {@code "wrap ends"}, {@code "access order"}, both or none.
     */
    static List<String> lacking(DriveState d) {
        List<String> lacks = new ArrayList<>();
        if (d != null && d.noWrapEnds) {
            lacks.add("wrap ends");
        }
        if (d != null && d.noAccessOrder) {
            lacks.add("access order");
        }
        return lacks;
    }

    /** How many block ranges the drive (null: none configured) orders at once for the loaded cartridge; 0: none. */
    int limit(DriveState d) {
        return d == null || d.barcode == null || d.noAccessOrder ? 0 : d.accessOrderLimit;
    }

    /**
     * The drive's order of the ranges {@code [starts[i], ends[i])}: a {@link TapeFault#refusal} without asking the
     * drive if it does not offer one or the ranges are more than it orders; after asking, the refusal or fault of
     * {@link DriveProbe#accessOrder}, and a drive found to lack the commands is not asked again.
     */
    int[] order(DriveState d, long[] starts, long[] ends) throws TapeFault {
        String what = "recommended access order of " + starts.length + " ranges on " + d.name();
        if (d.barcode == null) {
            throw TapeFault.refusal(what + ": no cartridge in the drive");
        }
        int limit = limit(d);
        if (starts.length == 0 || starts.length != ends.length || starts.length > limit) {
            throw TapeFault.refusal(what + ": the drive " + (limit == 0 ? "offers none"
                    : "orders 1.." + limit + " ranges") + (starts.length != ends.length ? " (" + ends.length
                    + " ends)" : ""));
        }
        DriveAnswer<int[]> order;
        try {
            order = probe.accessOrder(d.device(), starts, ends);
        } catch (IllegalArgumentException e) { // ranges that are no block ranges: the drive is not asked
            throw TapeFault.refusal(what + ": " + e.getMessage());
        }
        if (order.unsupported()) {
            d.noAccessOrder = true;
            LOG.info("Drive {}: {}; its recommended access order is not asked again", d.name(),
                    order.fault().getMessage());
        }
        return order.get();
    }

    private void note(DriveState d, String what, DriveAnswer<?> a) {
        if (a.unsupported()) {
            LOG.info("Drive {} offers no {} ({}); not asked again", d.name(), what, a.fault().getMessage());
        } else { // asked again at the next load; a tape host without sg_raw would otherwise log at every load
            probe.once(d.device(), what, a.fault().toString());
        }
    }
}
