package org.tapeq.mover;

import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.mover.proto.Done;
import org.tapeq.mover.proto.HelloReply;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;

/**
 * Mount and unmount of a drive at a site whose changer one mover drives ({@code movers.robot: changer}), when the
 * drive is another mover's: the changer's mover makes the robot's move and the drive's mover loads or unloads.
 * A mount is {@code RobotLoad} (changer's mover), then {@code Load} (drive's mover); an unmount is {@code Unload}
 * (drive's mover), then {@code RobotUnload} (changer's mover). Each call is a command of its own, fenced with the
 * scheduler's lease epoch when it is sent, so a scheduler deposed between the two steps is refused the second.
 *
 * <p>Design notes. Runs on the scheduler's loop (each step is sent from the completion of the one before, which
 * {@link RemoteLibrary} delivers there) and keeps no state: what is left midway is told by the completion.
 * <ul>
 * <li>The robot step fails (a fault, a refusal, the changer's mover unreachable): nothing was loaded, the drive's
 *     mover was not asked, the mount fails with that fault. The robot refuses a cartridge that is not in a slot
 *     (in another drive), so a cartridge is never in two drives whatever a scheduler believes.</li>
 * <li>The load fails at the drive: the cartridge is given back (unload, then the robot's return) and the mount
 *     fails, the drive empty as the scheduler then takes it.</li>
 * <li>The drive's mover is lost during the load, or the load is refused (a newer epoch: the successor owns the
 *     site): nothing is given back. The drive keeps the cartridge; a lost mover's drives are unavailable with the
 *     reason, and what it reports at its return (its inventory: the cartridge in the drive) is adopted.</li>
 * <li>The robot's return after an unload fails: the unmount fails (the cartridge ejected, still in the drive), and
 *     the scheduler's retry of the unmount unloads again (nothing to do) and asks the robot again.</li>
 * </ul>
 */
final class RobotSplit {

    private static final Logger LOG = LoggerFactory.getLogger(RobotSplit.class);

    private final RemoteLibrary library;
    private final MoverClient changer;

    RobotSplit(RemoteLibrary library, MoverClient changer) {
        this.library = library;
        this.changer = changer;
    }

    /**
     * Why mover {@code m}'s answer to the probe does not fit the robot's roles, or null: at a site whose changer
     * one mover drives, the changer's mover must say it drives it and no other mover may.
     */
    String roleMismatch(MoverClient m, HelloReply r) {
        if (!library.robotByChanger()) {
            return null;
        }
        if (m == changer && !r.getChanger()) {
            return "refused: mover " + m.name() + " is the site's changer mover (movers.changer) but does not drive"
                    + " the changer (mover.changer in its configuration)";
        }
        if (m != changer && r.getChanger()) {
            return "refused: mover " + m.name() + " drives the changer too (mover.changer in its configuration);"
                    + " the site's changer mover is " + changer.name();
        }
        return null;
    }

    /**
     * A robot step's fault as the engine must take it: the changer's mover unreachable is the robot's failure
     * ({@code ROBOT}: counted against the robot, the unload retried), not the drive's, whose mover is fine; a
     * {@code DRIVE} fault would count a drive error at a mount and take the drive down at an unload.
     */
    private TapeFault robotFault(TapeFault f) {
        return !f.refusal() && f.kind() == FaultKind.DRIVE && library.lost(changer.name())
                ? new TapeFault(FaultKind.ROBOT, f.getMessage(), f) : f;
    }

    /** The robot moves {@code barcode} into {@code drive}, then {@code owner} (the drive's mover) loads it. */
    void mount(MoverClient owner, String drive, String barcode, Consumer<Done> learnt, Completion<Void> done) {
        String what = "mount of " + barcode + " into drive " + drive;
        library.call(changer, MoverRpc.ROBOT_LOAD, drive, "robot move of " + barcode, c -> c.setBarcode(barcode),
                new Completion<Void>() {
                    @Override
                    public void succeeded(Void v) {
                        load(owner, drive, barcode, what, learnt, done);
                    }

                    @Override
                    public void failed(TapeFault f) {
                        done.failed(robotFault(f)); // nothing was loaded: the drive's mover was not asked
                    }
                }, d -> null, d -> { });
    }

    private void load(MoverClient owner, String drive, String barcode, String what, Consumer<Done> learnt,
                      Completion<Void> done) {
        library.call(owner, MoverRpc.LOAD, drive, "load of " + barcode, c -> c.setBarcode(barcode),
                new Completion<Void>() {
                    @Override
                    public void succeeded(Void v) {
                        done.succeeded(null);
                    }

                    @Override
                    public void failed(TapeFault f) {
                        if (f.refusal() || library.lost(owner.name())) {
                            LOG.warn("{}: the load did not happen ({}); {} stays in the drive", what,
                                    f.getMessage(), barcode);
                            done.failed(f);
                        } else {
                            giveBack(owner, drive, barcode, what, f, done);
                        }
                    }
                }, d -> null, learnt);
    }

    /** After a failed load: the drive ejects the cartridge and the robot returns it; then the mount fails. */
    private void giveBack(MoverClient owner, String drive, String barcode, String what, TapeFault cause,
                          Completion<Void> done) {
        unmount(owner, drive, d -> { }, new Completion<>() {
            @Override
            public void succeeded(Void v) {
                LOG.warn("{}: {}; the cartridge was returned to a slot", what, cause.getMessage());
                done.failed(new TapeFault(cause.kind(), cause.getMessage() + "; " + barcode
                        + " was returned to a slot", cause));
            }

            @Override
            public void failed(TapeFault f) {
                LOG.error("{}: {}; returning the cartridge failed: {}: {} stays in the drive", what,
                        cause.getMessage(), f.getMessage(), barcode);
                done.failed(new TapeFault(cause.kind(), cause.getMessage() + "; returning " + barcode
                        + " to a slot failed (" + f.getMessage() + "): it stays in drive " + drive, cause));
            }
        });
    }

    /** {@code owner} (the drive's mover) unloads {@code drive}, then the robot returns the cartridge to a slot. */
    void unmount(MoverClient owner, String drive, Consumer<Done> forget, Completion<Void> done) {
        library.call(owner, MoverRpc.UNLOAD, drive, "unload", c -> { }, new Completion<Void>() {
            @Override
            public void succeeded(Void v) {
                library.call(changer, MoverRpc.ROBOT_UNLOAD, drive, "robot move out of the drive", c -> { },
                        new Completion<Void>() {
                            @Override
                            public void succeeded(Void v) {
                                done.succeeded(null);
                            }

                            @Override
                            public void failed(TapeFault f) {
                                String m = f.getMessage() + "; the cartridge is unloaded but still in drive " + drive;
                                done.failed(f.refusal() ? TapeFault.refusal(m)
                                        : new TapeFault(robotFault(f).kind(), m, f));
                            }
                        }, d -> null, forget);
            }

            @Override
            public void failed(TapeFault f) {
                done.failed(f);
            }
        }, d -> null, d -> { });
    }
}
