package org.tapeq.mover;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import io.grpc.stub.StreamObserver;
import org.tapeq.mover.proto.Drive;
import org.tapeq.mover.proto.InventoryReply;

/**
 * A lost mover that answers again is asked what its drives hold before they go back into service: a mount or
 * unload in flight when it was lost may have happened, and the engine must take the mover's view, not its own.
 * While a drive still runs a command nobody waits for any more (its call broke with the connection or ran past
 * its deadline: the mover reports it {@code orphan_running}), what it holds may still change with no answer to say
 * so, and the mover stays out of service until a later probe asks again. A command whose call is still open (a
 * mover lost for slow probes, its transfers going on) is no obstacle: its own answer will tell the engine.
 * Callbacks on the call threads; what
 * the drives reported of their cartridges (capacity, wrap ends) is kept on the loop before the engine hears of the
 * return, so a cartridge adopted then is known as one adopted at start.
 */
final class MoverReturn {

    private final RemoteLibrary library;
    private final MoverWatch watch;

    MoverReturn(RemoteLibrary library, MoverWatch watch) {
        this.library = library;
        this.watch = watch;
    }

    /**
     * Asks {@code m}'s drives what they hold, as return attempt {@code attempt}; ends in {@link MoverWatch#back},
     * {@code notBack} or {@code lost}, each ignored by the watch once that attempt is void.
     */
    void check(MoverClient m, long attempt) {
        library.inventoryCall(m, new StreamObserver<>() {
            private InventoryReply reply;

            @Override
            public void onNext(InventoryReply r) {
                reply = r;
            }

            @Override
            public void onError(Throwable t) {
                if (MoverClient.unreachable(t)) {
                    watch.lost(m, attempt, m.unreachableReason(t));
                } else {
                    watch.notBack(m, attempt, "asking what its drives hold failed: " + m.unreachableReason(t));
                }
            }

            @Override
            public void onCompleted() {
                answered(m, attempt, reply);
            }
        });
    }

    private void answered(MoverClient m, long attempt, InventoryReply reply) {
        if (reply == null || !reply.hasLibrary()) {
            watch.notBack(m, attempt, "asking what its drives hold failed: " + (reply == null ? "no answer"
                    : reply.getFault().getMessage()));
            return;
        }
        Map<String, Drive> reported = new HashMap<>();
        reply.getLibrary().getDrivesList().forEach(d -> reported.put(d.getId(), d));
        Map<String, Optional<String>> holding = new HashMap<>();
        for (String id : m.drives()) {
            Drive d = reported.get(id);
            if (d == null) {
                continue; // not reported: the engine keeps its view of that drive
            }
            if (d.getOrphanRunning()) {
                watch.notBack(m, attempt, "drive " + id
                        + " still runs a command of a deposed scheduler or whose caller has gone");
                return;
            }
            holding.put(id, d.getLoadedBarcode().isEmpty() ? Optional.empty() : Optional.of(d.getLoadedBarcode()));
        }
        library.loop().execute(() -> m.drives().forEach(id -> library.reported(id, reported.get(id))));
        watch.back(m, attempt, holding);
    }
}
