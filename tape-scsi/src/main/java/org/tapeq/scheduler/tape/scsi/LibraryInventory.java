package org.tapeq.scheduler.tape.scsi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.MediaType;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Inventory;

/**
 * What the library holds, for {@link ScsiLibrary#inventory}: the changer's view and, at the scheduler's start,
 * the drives' (which cartridge each holds, adopted as if this library had loaded it, whether it answers, and its
 * generation: {@link DriveGeneration}).
 * Called on the runner's threads; the only state of its own is whether the drives were reconciled.
 */
final class LibraryInventory {

    private static final Logger LOG = LoggerFactory.getLogger(LibraryInventory.class);

    private final Changer changer;
    private final DriveProbe probe;
    private final DriveOrder order;
    private final DriveCommands mt;
    private final Collection<DriveState> drives;
    private final String changerDevice;
    /** The first inventory (at start) reconciled the drives; later ones only read the changer. */
    private volatile boolean drivesReconciled;

    LibraryInventory(Changer changer, DriveProbe probe, DriveOrder order, DriveCommands mt,
                     Collection<DriveState> drives, String changerDevice) {
        this.changer = changer;
        this.probe = probe;
        this.order = order;
        this.mt = mt;
        this.drives = drives;
        this.changerDevice = changerDevice;
    }

    /**
     * The changer's view, and at the first call (the scheduler's start) the drives': which cartridge each holds
     * (adopted: used as if this library had loaded it) and whether it answers {@code mt status}. Later calls
     * (on-demand inventories while drives work) read only the changer, under the robot lock, and report the
     * drives online: from then on the scheduler's own fault counting decides about drives.
     */
    Inventory read() throws TapeFault {
        ChangerStatus status;
        changer.lock();
        try {
            status = changer.status("inventory");
        } finally {
            changer.unlock();
        }
        boolean reconcile = !drivesReconciled;
        List<Inventory.Drive> driveList = new ArrayList<>();
        List<Inventory.Cartridge> cartridges = new ArrayList<>();
        for (DriveState d : drives) {
            ChangerStatus.Element e = status.drive(d.config.changerIndex()).orElse(null);
            if (e == null) {
                LOG.error("Drive {}: the changer {} has no drive {} (it reports {} drives)", d.config.name(),
                        changerDevice, d.config.changerIndex(), status.drives().size());
                driveList.add(new Inventory.Drive(d.config.name(), null, false));
                continue;
            }
            String loaded = e.full() ? e.barcode() : null;
            boolean online = true;
            if (reconcile) {
                DriveGeneration.find(d, probe);
                if (e.full() && loaded == null) {
                    LOG.warn("Drive {} holds a cartridge without a readable barcode; it is ignored", d.config.name());
                }
                if (!Objects.equals(loaded, d.barcode)) {
                    d.forget();
                    d.barcode = loaded;
                }
                CommandRunner.Result r = mt.run(d, "status");
                online = r.ok();
                if (online && loaded != null) {
                    d.capacity = probe.capacity(d.device()).orElse(null);
                    order.loaded(d);
                }
                if (!online) {
                    LOG.warn("Drive {} ({}) does not answer: {}", d.config.name(), d.device(), r.diagnostic());
                }
            }
            driveList.add(new Inventory.Drive(d.config.name(), loaded, online));
        }
        drivesReconciled = true;
        for (ChangerStatus.Element e : status.drives()) {
            if (e.full() && e.barcode() != null) {
                String name = drives.stream().filter(d -> d.config.changerIndex() == e.number())
                        .map(d -> d.config.name()).findFirst().orElse("#" + e.number());
                cartridges.add(cartridge(e.barcode(), "drive:" + name));
            }
        }
        for (ChangerStatus.Element e : status.slots()) {
            if (e.full() && e.barcode() != null) {
                cartridges.add(cartridge(e.barcode(), (e.importExport() ? "ie:" : "slot:") + e.number()));
            } else if (e.full()) {
                LOG.warn("Slot {} holds a cartridge without a readable barcode; it is ignored", e.number());
            }
        }
        return new Inventory(driveList, cartridges);
    }

    private static Inventory.Cartridge cartridge(String barcode, String location) {
        return new Inventory.Cartridge(barcode, MediaType.fromBarcode(barcode).map(MediaType::name).orElse(null),
                location);
    }
}
