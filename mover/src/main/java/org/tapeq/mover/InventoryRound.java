package org.tapeq.mover;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.grpc.stub.StreamObserver;
import org.tapeq.mover.proto.Cartridge;
import org.tapeq.mover.proto.Drive;
import org.tapeq.mover.proto.InventoryReply;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.Inventory;

/**
 * One inventory of a site's library: every mover is asked who it is (its answer checked against the
 * configuration before anything it reports is used), then for its drives, the changer's mover also for the
 * cartridges. A mover that does not answer, answers late or does not fit is lost: its drives are reported
 * unreachable, holding what the changer sees in them (out of service until it returns, not recorded down);
 * without the changer's answer there is no inventory. A mover one of whose drives still runs a command nobody
 * waits for ({@code orphan_running}: a deposed scheduler's mount at a failover, say) is lost the same way, since
 * what that drive holds may still change; {@link MoverReturn} takes its view once the command has ended.
 * The answers are gathered on the scheduler's loop.
 */
final class InventoryRound {

    private final RemoteLibrary library;
    private final List<MoverClient> movers;
    private final MoverClient changer;
    private final Completion<Inventory> done;
    /** Owned by the loop from here on. */
    private final Map<String, InventoryReply> replies = new HashMap<>();
    private final Map<String, Throwable> errors = new HashMap<>();

    InventoryRound(RemoteLibrary library, List<MoverClient> movers, MoverClient changer, Completion<Inventory> done) {
        this.library = library;
        this.movers = movers;
        this.changer = changer;
        this.done = done;
    }

    void start() {
        for (MoverClient m : movers) {
            library.checkedInventoryCall(m, new StreamObserver<>() {
                private InventoryReply reply;

                @Override
                public void onNext(InventoryReply r) {
                    reply = r;
                }

                @Override
                public void onError(Throwable t) {
                    library.lostAtInventory(m, t);
                    library.loop().execute(() -> answered(m, null, t));
                }

                @Override
                public void onCompleted() {
                    library.loop().execute(() -> answered(m, reply, null));
                }
            });
        }
    }

    private void answered(MoverClient m, InventoryReply reply, Throwable error) {
        if (reply != null) {
            replies.put(m.name(), reply);
        } else {
            errors.put(m.name(), error);
        }
        if (replies.size() + errors.size() < movers.size()) {
            return;
        }
        InventoryReply fromChanger = replies.get(changer.name());
        if (fromChanger == null) {
            done.failed(new TapeFault(FaultKind.ROBOT, "inventory: the changer's mover " + changer.name()
                    + " did not answer: " + errors.get(changer.name())));
            return;
        }
        if (fromChanger.hasFault()) {
            done.failed(RemoteLibrary.fault(changer, fromChanger.getFault()));
            return;
        }
        Map<String, String> inDrives = new HashMap<>(); // drive:ID -> barcode, as the changer sees them
        for (Cartridge c : fromChanger.getLibrary().getCartridgesList()) {
            if (c.getLocation().startsWith("drive:")) {
                inDrives.put(c.getLocation().substring("drive:".length()), c.getBarcode());
            }
        }
        List<Inventory.Drive> drives = new ArrayList<>();
        for (MoverClient mover : movers) {
            InventoryReply r = replies.get(mover.name());
            String orphan = r == null ? null : orphanRunning(mover, r);
            if (orphan != null) {
                // a deposed scheduler's mount or unload still runs there (it cannot be interrupted): what the drive
                // holds now may change with no answer to say so, so the mover is lost and its return reconciles it
                library.lostAtInventory(mover, orphan);
                r = null;
            }
            if (r == null) {
                // its drives are unavailable, not offline: they come back with it, and the cartridge the changer
                // places in one stays that drive's (the robot cannot take it out before the drive ejects it)
                for (String id : mover.drives()) {
                    drives.add(new Inventory.Drive(id, inDrives.get(id), false, "mover " + mover.name()
                            + " unreachable: " + (orphan != null ? orphan
                            : mover.unreachableReason(errors.get(mover.name())))));
                }
                continue;
            }
            Map<String, Drive> reported = new HashMap<>();
            if (r.hasLibrary()) {
                r.getLibrary().getDrivesList().forEach(d -> reported.put(d.getId(), d));
            }
            for (String id : mover.drives()) {
                Drive d = reported.get(id);
                library.reported(id, d);
                drives.add(d == null ? new Inventory.Drive(id, null, false)
                        : new Inventory.Drive(id, d.getLoadedBarcode().isEmpty() ? null : d.getLoadedBarcode(),
                        d.getOnline()));
            }
        }
        List<Inventory.Cartridge> cartridges = new ArrayList<>();
        for (Cartridge c : fromChanger.getLibrary().getCartridgesList()) {
            cartridges.add(new Inventory.Cartridge(c.getBarcode(), c.getMediaType().isEmpty() ? null
                    : c.getMediaType(), c.getLocation()));
        }
        done.succeeded(new Inventory(drives, cartridges));
    }

    /** Why {@code mover}'s inventory cannot be taken as it is (one of its drives runs an orphaned command), or null. */
    private static String orphanRunning(MoverClient mover, InventoryReply r) {
        if (!r.hasLibrary()) {
            return null;
        }
        for (Drive d : r.getLibrary().getDrivesList()) {
            if (d.getOrphanRunning() && mover.drives().contains(d.getId())) {
                return "drive " + d.getId() + " still runs a command of a deposed scheduler or whose caller has gone";
            }
        }
        return null;
    }
}
