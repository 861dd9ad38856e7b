package org.tapeq.scheduler.engine.drive;

import java.io.ByteArrayOutputStream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.fault.FaultReactions;
import org.tapeq.scheduler.format.TapeLabel;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;

/**
 * Reads and checks the label once per mount: a blank or foreign cartridge is marked so and never written,
 * and its reads get the {@code LABEL} fault; a cartridge whose family was unknown learns it from its label.
 */
final class LabelCheck {

    private static final Logger LOG = LoggerFactory.getLogger(LabelCheck.class);

    private final DriveRunner drive;
    private final DriveContext context;
    private boolean checked;

    LabelCheck(DriveRunner drive) {
        this.drive = drive;
        this.context = drive.context;
    }

    /** Whether the label of the cartridge in the drive was checked since its mount. */
    boolean checked() {
        return checked;
    }

    /** A new cartridge (or none) is in the drive. */
    void forget() {
        checked = false;
    }

    /** An admin task ended; it may have checked (or written) the label. */
    void done(boolean nowChecked) {
        checked = nowChecked;
    }

    void check(String barcode) {
        String id = drive.id();
        drive.set(DriveRunner.State.BUSY, "checking label of " + barcode);
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        context.library().locate(id, 0, new Step<>() {
            @Override
            public void succeeded(Void v) {
                context.library().read(id, 0, DriveRunner.LABEL_BYTES, () -> buf, new Step<>() {
                    @Override
                    public void succeeded(Long n) {
                        labelRead(barcode, buf.toByteArray());
                    }

                    @Override
                    public void failed(TapeFault fault) {
                        if (fault.kind() == FaultKind.NOT_FOUND) {
                            labelRead(barcode, new byte[0]); // no data at block 0: a blank tape
                        } else {
                            super.failed(fault);
                        }
                    }
                });
            }
        });
    }

    private void labelRead(String barcode, byte[] bytes) {
        drive.position(-1);
        CartridgeRecord c = context.cartridges().get(barcode);
        TapeLabel label;
        try {
            label = TapeLabel.parseFor(bytes, barcode);
        } catch (TapeFault fault) {
            CartridgeState newState = bytes.length == 0 ? CartridgeState.BLANK : CartridgeState.FOREIGN;
            context.fault(FaultKind.LABEL, drive.id(), barcode, "label check: the cartridge is "
                    + newState.name().toLowerCase(java.util.Locale.ROOT) + ": " + fault.getMessage());
            LOG.error("Drive {}: cartridge {} is {}: {}", drive.id(), barcode, newState, fault.getMessage());
            failed(fault, c, newState);
            return;
        }
        checked = true;
        if (c != null && (c.state() == CartridgeState.UNKNOWN || c.state() == CartridgeState.BLANK
                || c.family() == null)) {
            context.queues().updateCartridge(new CartridgeRecord(c.barcode(), c.mediaType(), label.family(),
                    c.state() == CartridgeState.UNKNOWN || c.state() == CartridgeState.BLANK
                            ? CartridgeState.APPENDABLE : c.state(),
                    c.capacityBytes(), c.usedBytes(), c.reclaimableBytes(), c.tapeFiles(), c.mountCount(),
                    c.lastMount(), c.disabled(), null));
        }
        drive.work();
    }

    /**
     * The reaction of {@link FaultReactions.Operation#LABEL_CHECK}: {@code c} (if known) takes
     * {@code labelState} when the table says so, the queue's reads get the fault, the drive goes on as told.
     */
    private void failed(TapeFault fault, CartridgeRecord c, CartridgeState labelState) {
        FaultReactions.Reaction r = FaultReactions.of(FaultReactions.Operation.LABEL_CHECK, fault.kind());
        if (r.cartridge() == FaultReactions.Cartridge.BLANK_OR_FOREIGN && c != null) {
            context.queues().updateCartridge(c.withState(labelState, fault.getMessage()));
        }
        if (r.driveError()) {
            drive.driveError(fault);
        }
        drive.reads().failAll(drive.queue(), fault, FaultReactions.Operation.LABEL_CHECK);
        drive.afterFault(r.then());
    }

    /** A completion of the label check whose failure is a {@code LABEL_CHECK} fault. */
    private abstract class Step<T> implements Completion<T> {
        @Override
        public void failed(TapeFault fault) {
            context.fault(fault.kind(), drive.id(), drive.mounted(), drive.activity() + " failed: "
                    + fault.getMessage());
            LOG.warn("Drive {}: {} failed: {}", drive.id(), drive.activity(), fault.toString());
            LabelCheck.this.failed(fault, null, null);
        }
    }
}
