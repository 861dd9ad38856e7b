package org.tapeq.scheduler.tape.scsi;

import static org.tapeq.scheduler.tape.scsi.DriveCommands.check;
import static org.tapeq.scheduler.tape.scsi.DriveCommands.pause;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;

/**
 * The steps of a mount and of an unmount on a real library: the TapeAlert check before the load, the robot's
 * move, waiting for the drive to report the tape, and after a failed mount the reconcile that leaves the drive
 * empty, as the scheduler takes it to be. At a site whose changer one host drives, the robot's part and the
 * drive's part run apart, on different hosts ({@code RobotMoves}): no reconcile then, the scheduler gives a
 * cartridge back itself, and the TapeAlert check before the load is not made (flags read after the robot put
 * the new cartridge in would be blamed on it).
 *
 * <p>Design notes. A mount fails before any robot move if the flags read while the drive is empty take it out
 * ({@link AlertBlame#beforeLoad}); a cartridge the changer reports in a drive this library holds none in is
 * returned to a slot first. Every robot step runs under the {@link Changer}'s lock, the wait for the drive
 * outside it. Every unload (an unmount, a return to a slot) is followed by {@link AlertBlame#unloaded}, which
 * forgets the drive's cartridge. Called from the library's jobs on the runner's threads, one per drive at a time;
 * no state of its own.
 */
final class MountSequence {

    private static final Logger LOG = LoggerFactory.getLogger(MountSequence.class);

    private final Changer changer;
    private final DriveProbe probe;
    private final DriveOrder order;
    private final AlertBlame blame;
    private final DriveCommands mt;
    private final long tapeTimeoutMillis;

    MountSequence(Changer changer, DriveProbe probe, DriveOrder order, AlertBlame blame, DriveCommands mt,
                  long tapeTimeoutMillis) {
        this.changer = changer;
        this.probe = probe;
        this.order = order;
        this.blame = blame;
        this.mt = mt;
        this.tapeTimeoutMillis = tapeTimeoutMillis;
    }

    /** Loads the cartridge from its slot into the empty drive and waits until the tape is ready at block 0. */
    Void mount(DriveState d, String barcode) throws TapeFault {
        String what = "mount " + barcode + " into " + d.config.name();
        // Flags read while the drive is empty concern the cartridge unloaded last (the reading after that unload
        // cleared the older ones); before the first unload since the start nobody is known to blame (logged).
        TapeFault unfit = blame.beforeLoad(d, what);
        if (unfit != null) {
            throw unfit; // before any robot move: the cartridge stays where it is
        }
        changer.lock();
        try {
            Changer.View seen = changer.look(d.config, what);
            if (seen.drive().full() && d.barcode == null) {
                // The changer says full, this library says empty (a cartridge ejected by a stale command, or
                // moved by hand): give it back first.
                LOG.warn("{}: the changer reports {} in the drive, which this library holds no cartridge in;"
                        + " returning it to a slot", what, seen.drive().barcode() == null ? "a cartridge"
                        : seen.drive().barcode());
                try {
                    returnToSlot(d, seen.status(), seen.drive(), what);
                } catch (TapeFault f) { // the drive will not give it up: the drive's fault, not the robot's
                    throw new TapeFault(FaultKind.DRIVE, what + ": the drive holds a cartridge it does not give"
                            + " back: " + f.getMessage(), f);
                }
                seen = changer.look(d.config, what);
            }
            ChangerStatus.Element slot = source(seen, barcode, what);
            CommandRunner.Result r = changer.move("load", slot.number(), d.config.changerIndex());
            if (!r.ok()) {
                TapeFault fault = FaultMap.fault(FaultMap.Op.ROBOT, what, r);
                reconcile(d, what, fault);
                throw fault;
            }
        } finally {
            changer.unlock();
        }
        try {
            ready(d, barcode, what);
        } catch (TapeFault fault) {
            changer.lock();
            try {
                reconcile(d, what, fault); // the scheduler takes a failed mount for an empty drive: make it so
            } finally {
                changer.unlock();
            }
            throw fault;
        }
        return null;
    }

    /**
     * The robot's part of a mount of a drive another host loads ({@code RobotMoves.robotLoad}): {@code mtx load}
     * of the cartridge from its slot into the empty drive, under the robot lock; the drive is not asked (its
     * device may be on another host), so nothing is reconciled after a failed move.
     */
    Void robotLoad(ScsiSettings.Drive drive, String barcode) throws TapeFault {
        String what = "robot move of " + barcode + " into " + drive.name();
        changer.lock();
        try {
            ChangerStatus.Element slot = source(changer.look(drive, what), barcode, what);
            CommandRunner.Result r = changer.move("load", slot.number(), drive.changerIndex());
            if (!r.ok()) {
                throw FaultMap.fault(FaultMap.Op.ROBOT, what, r);
            }
        } finally {
            changer.unlock();
        }
        return null;
    }

    /**
     * The robot's part of an unmount of a drive another host unloaded ({@code RobotMoves.robotUnload}):
     * {@code mtx unload} of the cartridge in the drive to a free slot, under the robot lock.
     */
    Void robotUnload(ScsiSettings.Drive drive) throws TapeFault {
        String what = "robot move out of " + drive.name();
        changer.lock();
        try {
            Changer.View seen = changer.look(drive, what);
            if (!seen.drive().full()) {
                throw new TapeFault(FaultKind.DRIVE, what + ": the drive is empty");
            }
            changer.unload(drive, seen.status(), seen.drive(), what, null);
        } finally {
            changer.unlock();
        }
        return null;
    }

    /**
     * The drive's part of a mount whose robot move another host made ({@code RobotMoves.load}): waits until the
     * drive reports the tape the robot put in ready, rewound and checked. No robot command: on failure the cartridge
     * stays in the drive for the scheduler to give back.
     */
    Void load(DriveState d, String barcode) throws TapeFault {
        ready(d, barcode, "load " + barcode + " in " + d.config.name());
        return null;
    }

    /**
     * The drive's part of an unmount whose robot move another host makes ({@code RobotMoves.unload}): {@code mt
     * offline} when the drive reports a tape (an ejected one is left as it is), then the TapeAlert reading of every
     * unload. No robot command.
     */
    Void unload(DriveState d) throws TapeFault {
        String what = "unload " + (d.barcode == null ? "" : d.barcode + " ") + "from " + d.config.name();
        String unloaded = d.barcode;
        CommandRunner.Result offline = changer.offline(d.device(), what);
        if (offline != null && !offline.ok()) {
            throw FaultMap.fault(FaultMap.Op.POSITION, what, offline);
        }
        blame.unloaded(d, unloaded, what);
        return null;
    }

    /** The slot {@code barcode} is in, the drive {@code seen} being empty; else why the robot must not move it. */
    private static ChangerStatus.Element source(Changer.View seen, String barcode, String what) throws TapeFault {
        ChangerStatus status = seen.status();
        ChangerStatus.Element drive = seen.drive();
        if (drive.full()) {
            throw new TapeFault(FaultKind.DRIVE, what + ": the drive already holds "
                    + (drive.barcode() == null ? "a cartridge without barcode" : drive.barcode()));
        }
        return status.slotOf(barcode).orElseThrow(() -> new TapeFault(FaultKind.ROBOT, what + ": "
                + status.driveOf(barcode).map(e -> "the cartridge is in drive " + e.number())
                .orElse("no such cartridge in the library's slots")));
    }

    /** After the robot's load: the drive holds {@code barcode}, ready at block 0, its flags and capacity read. */
    private void ready(DriveState d, String barcode, String what) throws TapeFault {
        d.forget();
        d.barcode = barcode;
        awaitReady(d, what);
        mt.prepare(d, what);
        check(mt.run(d, "rewind"), FaultMap.Op.POSITION, what);
        blame.checkLoaded(d, what);
        d.capacity = probe.capacity(d.device()).orElse(null);
        order.loaded(d);
    }

    /**
     * After a failed mount: a cartridge the changer reports in the drive goes back to a slot, so that the drive is
     * empty as the scheduler takes it to be (under the robot lock). Logs instead of throwing (the caller reports
     * the original fault); the drive is forgotten once it is known to be empty.
     */
    private void reconcile(DriveState d, String what, TapeFault cause) {
        try {
            ChangerStatus status = changer.status(what + " (checking the drive after: " + cause.getMessage() + ")");
            ChangerStatus.Element drive = status.drive(d.config.changerIndex()).orElse(null);
            if (drive != null && drive.full()) {
                returnToSlot(d, status, drive, what);
            }
            d.forget();
        } catch (TapeFault f) {
            LOG.error("{}: after {}: could not check or empty the drive: {}", what, cause.getMessage(),
                    f.getMessage());
        }
    }

    /** Returns the cartridge the changer reports in the drive to a slot (under the robot lock). */
    private void returnToSlot(DriveState d, ChangerStatus status, ChangerStatus.Element drive, String what)
            throws TapeFault {
        d.lastUnloaded = drive.barcode();
        changer.returnToSlot(d.config, status, drive, what);
        blame.unloaded(d, drive.barcode(), what);
    }

    /** Rewinds and unloads the cartridge in the drive and returns it to a free slot. */
    Void unmount(DriveState d) throws TapeFault {
        String what = "unmount " + (d.barcode == null ? "" : d.barcode + " ") + "from " + d.config.name();
        if (d.barcode == null) { // not loaded by this library: ask the changer before unloading an empty drive
            changer.lock();
            try {
                ChangerStatus.Element drive = changer.status(what).drive(d.config.changerIndex()).orElse(null);
                if (drive == null || !drive.full()) {
                    throw new TapeFault(FaultKind.DRIVE, what + ": the drive is empty");
                }
            } finally {
                changer.unlock();
            }
        }
        CommandRunner.Result offline = changer.offline(d.device(), what);
        String unloaded;
        changer.lock();
        try {
            Changer.View seen = changer.look(d.config, what);
            ChangerStatus status = seen.status();
            ChangerStatus.Element drive = seen.drive();
            if (!drive.full()) {
                d.forget();
                throw new TapeFault(FaultKind.DRIVE, what + ": the drive is empty");
            }
            unloaded = d.barcode != null ? d.barcode : drive.barcode();
            changer.unload(d.config, status, drive, what, offline);
        } catch (TapeFault f) {
            LOG.warn("{}: {} fault during the unload: {}", what, f.kind(), f.getMessage());
            throw f;
        } finally {
            changer.unlock();
        }
        blame.unloaded(d, unloaded, what);
        return null;
    }

    /** Waits until the drive reports the loaded tape online (a physical drive threads and calibrates first). */
    private void awaitReady(DriveState d, String what) throws TapeFault {
        long deadline = System.nanoTime() + tapeTimeoutMillis * 1_000_000L;
        CommandRunner.Result last;
        while (true) {
            last = mt.run(d, "status");
            if (last.ok()) {
                try {
                    if (DriveStatus.parse(last.stdout()).online()) {
                        return;
                    }
                } catch (IllegalArgumentException e) {
                    throw new TapeFault(FaultKind.DRIVE, what + ": " + e.getMessage());
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TapeFault(FaultKind.DRIVE, what + ": the drive did not report the tape online within "
                        + tapeTimeoutMillis + " ms: " + (last.ok() ? last.stdout().strip()
                        : last.diagnostic()));
            }
            pause(DriveCommands.POLL_MILLIS);
        }
    }
}
