package org.tapeq.scheduler.tape.scsi;

import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;

/**
 * The library's robot as {@link ScsiLibrary} uses it: {@code mtx status}, load and unload, one command at a time
 * (one robot), and the steps of every unload: {@code mt offline} first only when the drive reports a tape (on
 * an empty drive, DR_OPEN, it waits for the next tape and ejects that one), then the robot's move to a slot.
 *
 * <p>Design notes. Called from the library's jobs on the runner's threads; the fair lock is the only state.
 * What the library remembers about a drive (its cartridge, end of data) stays in its {@link DriveState}, which
 * {@link MountSequence} and {@link LibraryInventory} update from what these methods return.
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

    /** The changer's status and one drive's element in it. */
    record View(ChangerStatus status, ChangerStatus.Element drive) {
    }

    /** The changer's status and the drive's element in it; a changer without that drive is the drive's fault. */
    View look(ScsiSettings.Drive drive, String what) throws TapeFault {
        ChangerStatus status = status(what);
        return new View(status, status.drive(drive.changerIndex()).orElseThrow(() -> new TapeFault(FaultKind.DRIVE,
                what + ": the changer has no drive " + drive.changerIndex())));
    }

    /** {@code mtx load SLOT DRIVE} or {@code mtx unload SLOT DRIVE}. */
    CommandRunner.Result move(String verb, int slot, int driveIndex) {
        return runner.run(Shell.line("mtx", "-f", settings.changer(), verb, slot, driveIndex),
                settings.robotTimeoutMillis());
    }

    /**
     * Moves the cartridge in the drive back to a slot: {@link #offline} first, then {@link #unload}. The caller
     * reads the drive's TapeAlert flags afterwards, as after any unload.
     */
    void returnToSlot(ScsiSettings.Drive drive, ChangerStatus status, ChangerStatus.Element e, String what)
            throws TapeFault {
        CommandRunner.Result offline = offline(drive.device(), what);
        int slot = unload(drive, status, e, what + " (returning the cartridge in the drive)", offline);
        LOG.info("{}: returned {} from the drive to slot {}", what, e.barcode(), slot);
    }

    /**
     * {@code mt offline}, only if the drive reports a tape: on an empty drive (DR_OPEN: the tape was already
     * ejected, e.g. by an unmount whose robot move failed) it waits for the next tape and ejects that one. Null
     * if skipped; a failure is logged (the robot may still take the cartridge, a drive that lost its connection).
     * Not under the robot lock: a rewind before the eject takes minutes.
     */
    CommandRunner.Result offline(String device, String what) {
        if (!holdsTape(device)) {
            LOG.info("{}: the drive has no tape loaded (DR_OPEN); only the robot is asked", what);
            return null;
        }
        CommandRunner.Result r = mt(device, "offline");
        if (!r.ok()) {
            LOG.warn("{}: {} failed: {}; trying the robot anyway", what, r.line(), r.diagnostic());
        }
        return r;
    }

    /**
     * {@code mtx unload} of the cartridge in the drive to its return slot (under the robot lock); the fault names
     * a failed {@code offline} before it. Returns the slot.
     */
    int unload(ScsiSettings.Drive drive, ChangerStatus status, ChangerStatus.Element e, String what,
            CommandRunner.Result offline) throws TapeFault {
        int slot = status.returnSlot(e).orElseThrow(() -> new TapeFault(FaultKind.ROBOT, what
                + ": no free storage slot to return the cartridge to"));
        CommandRunner.Result r = move("unload", slot, drive.changerIndex());
        if (!r.ok()) {
            throw FaultMap.fault(FaultMap.Op.ROBOT, what + (offline == null || offline.ok() ? "" : " (after "
                    + offline.line() + ": " + offline.diagnostic() + ")"), r);
        }
        return slot;
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
