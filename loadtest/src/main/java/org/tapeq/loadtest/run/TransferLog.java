package org.tapeq.loadtest.run;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.tapeq.scheduler.engine.drive.DriveObserver;

/**
 * Records every transfer the daemon's drives end ({@link DriveObserver#transferred}) with its start and end in the
 * daemon's loop time, so that the report can spread each transfer's bytes over its interval. Called on the daemon's
 * event loop: adding to a lock-free queue, nothing more.
 */
final class TransferLog implements DriveObserver {

    private record Told(String drive, boolean write, long bytes, long started, long ended) {
    }

    private final ConcurrentLinkedQueue<Told> told = new ConcurrentLinkedQueue<>();

    @Override
    public void transferred(String drive, boolean write, long bytes, long started, long ended) {
        told.add(new Told(drive, write, bytes, started, ended));
    }

    /**
     * The transfers that ended after loop time {@code origin} (the start of the measured phase), in library
     * milliseconds since then; a transfer begun before it starts at 0.
     */
    List<Transfer> since(double origin) {
        List<Transfer> out = new ArrayList<>();
        for (Told t : told) {
            if (t.ended() > origin) {
                out.add(new Transfer(t.drive(), t.write(), t.bytes(), Math.max(0, t.started() - origin),
                        t.ended() - origin));
            }
        }
        return out;
    }
}
