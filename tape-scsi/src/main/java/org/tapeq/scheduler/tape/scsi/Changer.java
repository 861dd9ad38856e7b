package org.tapeq.scheduler.tape.scsi;

import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;

/**
 * The library's robot as {@link ScsiLibrary} uses it: {@code mtx status}, load and unload, one command at a time
 * (one robot), and the reconcile that makes a drive as empty as the scheduler takes it to be: a cartridge the
 * changer reports in a drive goes back to a slot, with {@code mt offline} first only when the drive reports a
 * tape (on an empty drive, DR_OPEN, it waits for the next tape and ejects that one).
 *
 * <p>Design notes. Called from the library's jobs on the runner's threads; the fair lock is the only state.
 * What the library remembers about a drive (its cartridge, end of data) stays in {@link ScsiLibrary}, which
 * updates it from what these methods return.
 */
final class Changer {

    private static final Logger LOG = LoggerFactory.getLogger(Changer.class);

    private final CommandRunner runner;
    private final ScsiSettings settings;
    private final ReentrantLock robot = new ReentrantLock(true);

    Changer(CommandRunner runner, ScsiSettings settings) {
        this.runner = runner;
        this.settings = settings;
    }

    /** Takes the robot; every method below but {@link #holdsTape} runs under it. */
    void lock() {
        robot.lock();
    }

    void unlock() {
        robot.unlock();
    }

    ChangerStatus status(String what) throws TapeFault {
        CommandRunner.Result r = runner.run(Shell.line("mtx", "-f", settings.changer(), "status"),
                settings.robotTimeoutMillis());
        if (!r.ok()) {
            throw FaultMap.fault(FaultMap.Op.ROBOT, what, r);
        }
        try {
            return ChangerStatus.parse(r.stdout());
        } catch (IllegalArgumentException e) {
            throw new TapeFault(FaultKind.ROBOT, what + ": " + e.getMessage());
        }
    }

    /** {@code mtx load SLOT DRIVE} or {@code mtx unload SLOT DRIVE}. */
    CommandRunner.Result move(String verb, int slot, int driveIndex) {
        return runner.run(Shell.line("mtx", "-f", settings.changer(), verb, slot, driveIndex),
                settings.robotTimeoutMillis());
    }

    /**
     * After a failed mount: a cartridge the changer reports in the drive goes back to a slot, so that the drive
     * is empty as the scheduler takes it to be. Logs instead of throwing (the caller reports the original fault);
     * returns whether the drive is known to be empty now.
     */
    boolean reconcile(ScsiSettings.Drive drive, String what, TapeFault cause) {
        try {
            ChangerStatus status = status(what + " (checking the drive after: " + cause.getMessage() + ")");
            ChangerStatus.Element e = status.drive(drive.changerIndex()).orElse(null);
            if (e != null && e.full()) {
                returnToSlot(drive, status, e, what);
            }
            return true;
        } catch (TapeFault f) {
            LOG.error("{}: after {}: could not check or empty the drive: {}", what, cause.getMessage(),
                    f.getMessage());
            return false;
        }
    }

    /**
     * Moves the cartridge in the drive back to a slot: {@code mt offline} first only if the drive reports a tape,
     * then {@code mtx unload}.
     */
    void returnToSlot(ScsiSettings.Drive drive, ChangerStatus status, ChangerStatus.Element e, String what)
            throws TapeFault {
        if (holdsTape(drive.device())) {
            CommandRunner.Result offline = mt(drive.device(), "offline");
            if (!offline.ok()) {
                LOG.warn("{}: {} failed: {}; trying the robot anyway", what, offline.line(), offline.diagnostic());
            }
        }
        int slot = status.returnSlot(e).orElseThrow(() -> new TapeFault(FaultKind.ROBOT, what
                + ": no free storage slot to return the cartridge in the drive to"));
        CommandRunner.Result r = move("unload", slot, drive.changerIndex());
        if (!r.ok()) {
            TapeFault fault = FaultMap.fault(FaultMap.Op.ROBOT, what + " (returning the cartridge in the drive)", r);
            LOG.warn("{}: robot fault: {}", what, fault.getMessage());
            throw fault;
        }
        LOG.info("{}: returned {} from the drive to slot {}", what, e.barcode(), slot);
    }

    /** Whether {@code mt status} shows a tape in the drive; true if it cannot tell (then unloading is tried). */
    boolean holdsTape(String device) {
        CommandRunner.Result r = mt(device, "status");
        if (!r.ok()) {
            return true;
        }
        try {
            return !DriveStatus.parse(r.stdout()).noTape();
        } catch (IllegalArgumentException e) {
            return true;
        }
    }

    private CommandRunner.Result mt(String device, String command) {
        return runner.run(Shell.line("mt", "-f", device, command), settings.tapeTimeoutMillis());
    }
}
