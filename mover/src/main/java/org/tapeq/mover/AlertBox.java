package org.tapeq.mover;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.tapeq.mover.proto.Alert;
import org.tapeq.scheduler.tape.DriveAlerts;

/**
 * What a mover's library reports about its drives besides results ({@link DriveAlerts}), kept per drive until
 * the answer to that drive's operation carries it to the scheduler, which reports it there before the
 * operation's completion, as the interface promises. Registered once on the library. Any thread (the library
 * reports on its loop; the mover drains on the same loop, but a shared library may have several movers).
 */
public final class AlertBox implements DriveAlerts {

    private final Map<String, List<Alert>> pending = new HashMap<>();

    @Override
    public synchronized void cartridgeSuspect(String drive, String barcode, String reason) {
        pending.computeIfAbsent(drive, d -> new ArrayList<>())
                .add(Alert.newBuilder().setBarcode(barcode == null ? "" : barcode).setReason(reason).build());
    }

    @Override
    public synchronized void cleaningDue(String drive, String reason) {
        pending.computeIfAbsent(drive, d -> new ArrayList<>())
                .add(Alert.newBuilder().setCleaning(true).setReason(reason).build());
    }

    /** The alerts reported for {@code drive} since the last call, in order. */
    synchronized List<Alert> drain(String drive) {
        List<Alert> a = pending.remove(drive);
        return a == null ? List.of() : a;
    }
}
