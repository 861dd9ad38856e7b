package org.tapeq.scheduler.tape.scsi;

import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.DriveAlerts;
import org.tapeq.scheduler.time.EventLoop;

/**
 * Reads a drive's TapeAlert flags at the points of a cartridge's stay where they tell something (before a load,
 * after the load, after an unload, after a failed transfer) and acts on them: who is to blame, what is reported
 * to the scheduler ({@link DriveAlerts}, on its loop), and which fault the operation fails with.
 *
 * <p>Design notes. Reading the flags clears them, so each reading is blamed on the cartridge it concerns then:
 * with a cartridge loaded, that one; with the drive empty, the one this library last unloaded from it (the
 * reading after that unload cleared the older flags); before any unload since the start, nobody (logged only).
 * The fault of the drive flags read after an unload is kept in {@link DriveState#pendingFault} and thrown at the
 * next mount, before any robot move (the unload itself succeeded). Called from the library's jobs on the runner's
 * threads, one per drive at a time; the only state of its own is where findings go.
 */
final class AlertBlame {

    private static final Logger LOG = LoggerFactory.getLogger(AlertBlame.class);

    private final EventLoop loop;
    private final DriveProbe probe;
    private volatile DriveAlerts alerts = DriveAlerts.NONE;

    AlertBlame(EventLoop loop, DriveProbe probe) {
        this.loop = loop;
        this.probe = probe;
    }

    /** Where findings go from now on. */
    void reportTo(DriveAlerts alerts) {
        this.alerts = Objects.requireNonNull(alerts, "alerts");
    }

    /**
     * Before a load into the empty drive: the fault to fail the mount with (kept from the last unload, or read
     * now), or null. Flags read now concern the cartridge unloaded last.
     */
    TapeFault beforeLoad(DriveState d, String what) {
        TapeFault unfit = strongest(d.pendingFault, react(d, probe.tapeAlert(d.device()), d.lastUnloaded,
                what + " (flags read before the load)"));
        d.pendingFault = null;
        return unfit;
    }

    /**
     * After any unload: the drive is empty, and the flags it raises now concern {@code barcode}. Media flags make
     * it suspect; the fault of drive flags is reported at the next mount, before any robot move (the unload
     * itself succeeded).
     */
    void unloaded(DriveState d, String barcode, String what) {
        d.forget();
        d.lastUnloaded = barcode;
        d.pendingFault = strongest(d.pendingFault, react(d, probe.tapeAlert(d.device()), barcode,
                what + " (flags read after the unload)"));
    }

    /**
     * Reads the drive's TapeAlert flags with a cartridge loaded (after the load, before its first write): cleaning
     * and hardware flags fail the operation, media flags keep the cartridge from being written.
     */
    void checkLoaded(DriveState d, String what) throws TapeFault {
        TapeFault fault = react(d, probe.tapeAlert(d.device()), d.barcode, what);
        if (fault != null) {
            throw fault;
        }
    }

    /**
     * After a transfer failed with {@code f} (a media or drive fault): what the flags say instead, or null if
     * they say nothing about it. A drive flag's fault wins (media flags beside it were reported: the cartridge is
     * suspect all the same); media flags alone make it a media fault.
     */
    TapeFault afterTransferError(DriveState d, TapeFault f) {
        TapeAlert alert = probe.tapeAlert(d.device());
        TapeFault byDrive = react(d, alert, d.barcode, f.getMessage());
        if (byDrive != null) {
            return byDrive;
        }
        if (!alert.only(TapeAlert.MEDIA).isEmpty()) {
            return new TapeFault(FaultKind.MEDIA, f.getMessage() + " (TapeAlert " + alert.only(TapeAlert.MEDIA)
                    + ")");
        }
        return null;
    }

    /**
     * Acts on one TapeAlert reading, every part of it ({@link TapeAlert#react}): media flags make
     * {@code cartridge} suspect (reported to the scheduler; while it is loaded it is not written either), a
     * periodic cleaning request is reported (the drive stays in service), and the fault of the drive flags (clean
     * now, hardware) is returned for the caller to throw. {@code cartridge} null: no cartridge is known to blame
     * for media flags (read before the first unload since the start: stale or the previous owner's), logged only.
     */
    private TapeFault react(DriveState d, TapeAlert alert, String cartridge, String what) {
        if (alert.isEmpty()) {
            return null;
        }
        TapeAlert.Reaction r = alert.react(what);
        String drive = d.name();
        DriveAlerts to = alerts;
        if (!r.media().isEmpty()) {
            if (cartridge == null) {
                LOG.warn("{}: TapeAlert {}, but no cartridge is known to have caused it (the drive was not unloaded"
                        + " by tapeq since its start); not acted on", what, r.media());
            } else {
                String reason = what + ": the drive raised TapeAlert " + r.media() + " for cartridge " + cartridge;
                LOG.warn("{}; the cartridge becomes suspect", reason);
                if (cartridge.equals(d.barcode)) {
                    d.mediaAlert = r.media().plus(d.mediaAlert == null ? TapeAlert.NONE : d.mediaAlert);
                }
                loop.execute(() -> to.cartridgeSuspect(drive, cartridge, reason));
            }
        }
        if (!r.periodic().isEmpty()) {
            String reason = "the drive asks for routine cleaning (TapeAlert " + r.periodic() + "); it stays in service";
            LOG.warn("{}: {}", what, reason);
            loop.execute(() -> to.cleaningDue(drive, reason));
        }
        return r.fault();
    }

    /** Of two faults, the one that takes the drive out (cleaning) first; null if both are. */
    private static TapeFault strongest(TapeFault a, TapeFault b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        return b.kind() == FaultKind.CLEANING && a.kind() != FaultKind.CLEANING ? b : a;
    }
}
