package org.tapeq.scheduler.engine.lifecycle;

import java.io.ByteArrayOutputStream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.drive.BackgroundTask;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.format.TapeLabel;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * Relabels one cartridge whose relabel intent is in the catalog, as background work in one slice: reads the label
 * at the start of the tape (a tapeq label of another barcode stops it: the robot brought the wrong tape; so does
 * readable data that is not a tapeq label: another application's tape), writes a
 * new label there (everything after it is gone), then commits ({@code Catalog#commitRelabel}: the old tape files
 * forgotten, the intent removed, the cartridge appendable with nothing used). A failure at any step leaves the
 * intent, so the cartridge stays closed and a restart runs the relabel again.
 */
final class RelabelTask implements BackgroundTask {

    private static final Logger LOG = LoggerFactory.getLogger(RelabelTask.class);

    private final LifecycleContext ctx;
    private final String barcode;
    private final String family;
    private final long requested;
    private String state = "queued";
    private long ended;
    private String error;

    RelabelTask(LifecycleContext ctx, String barcode, String family) {
        this.ctx = ctx;
        this.barcode = barcode;
        this.family = family;
        this.requested = ctx.loop().now();
    }

    @Override
    public String barcode() {
        return barcode;
    }

    RelabelReport report() {
        return new RelabelReport(barcode, family, state, requested, ended, error);
    }

    boolean ended() {
        return ended != 0;
    }

    @Override
    public void runSlice(DriveRunner drive, Slice slice) {
        state = "running";
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        String id = drive.id();
        Completion<Long> labelRead = new Completion<>() {
            @Override
            public void succeeded(Long n) {
                String other = otherLabel(buf.toByteArray());
                if (other != null) {
                    stop(drive, slice, false, "cartridge " + barcode + " carries " + other + "; not relabelled");
                } else {
                    write(drive, slice);
                }
            }

            @Override
            public void failed(TapeFault fault) {
                if (fault.kind() == FaultKind.NOT_FOUND || fault.kind() == FaultKind.MEDIA) {
                    // blank, or an unreadable start of tape: the new label overwrites it
                    LOG.warn("Relabel of {}: the old label could not be read ({}); writing the new one",
                            barcode, fault.getMessage());
                    write(drive, slice);
                } else {
                    stop(drive, slice, false, "cannot read the label: " + fault.getMessage());
                }
            }
        };
        ctx.library().locate(id, 0, new Completion<>() {
            @Override
            public void succeeded(Void v) {
                ctx.library().read(id, 0, DriveRunner.LABEL_BYTES, () -> buf, labelRead);
            }

            @Override
            public void failed(TapeFault fault) {
                stop(drive, slice, false, "cannot locate to the label: " + fault.getMessage());
            }
        });
    }

    /**
     * What the start of the tape holds if it must not be overwritten, else null: a tapeq label of another barcode,
     * or any data that is not a tapeq label (another application's tape). Only this cartridge's own label, or a
     * blank or unreadable start of tape (a failed read, see {@code runSlice}), may be overwritten.
     */
    private String otherLabel(byte[] labelBytes) {
        try {
            TapeLabel old = TapeLabel.parse(labelBytes);
            return old.barcode().equals(barcode) ? null : "the label of " + old.barcode();
        } catch (TapeFault notALabel) {
            return labelBytes.length == 0 ? null
                    : "data that is not a tapeq label (" + notALabel.getMessage() + ")";
        }
    }

    private void write(DriveRunner drive, Slice slice) {
        TapeLabel label = new TapeLabel(barcode, family, ctx.loop().now(), ctx.library().blockSize());
        drive.labelWriting();
        ctx.library().writeLabel(drive.id(), label.source(), new Completion<WrittenFile>() {
            @Override
            public void succeeded(WrittenFile w) {
                commit(drive, slice);
            }

            @Override
            public void failed(TapeFault fault) {
                stop(drive, slice, false, "cannot write the label: " + fault.getMessage());
            }
        });
    }

    private void commit(DriveRunner drive, Slice slice) {
        CartridgeRecord now = ctx.cartridges().get(barcode);
        if (now == null) {
            stop(drive, slice, true, "the cartridge is no longer in the catalog");
            return;
        }
        CartridgeRecord fresh = new CartridgeRecord(barcode, now.mediaType(), family, CartridgeState.APPENDABLE,
                now.capacityBytes(), 0, 0, 0, now.mountCount(), now.lastMount(), now.disabled(), null);
        ctx.writer().submit(CatalogWriter.Kind.REPLACE, () -> {
            ctx.catalog().commitRelabel(fresh);
            return null;
        }, new CatalogWriter.Done<Object>() {
            @Override
            public void succeeded(Object v) {
                ctx.queues().updateCartridge(fresh);
                LOG.info("Cartridge {} relabelled for family {}: appendable, its old tape files forgotten", barcode,
                        family);
                drive.adminDone(true);
                end("done", null);
                slice.finished();
            }

            @Override
            public void failed(RuntimeException e) {
                stop(drive, slice, true, "the label is written but the catalog did not take the relabel ("
                        + e.getMessage() + "); it stays closed and is relabelled again at the next start");
            }
        });
    }

    private void stop(DriveRunner drive, Slice slice, boolean labelChecked, String why) {
        LOG.error("Relabel of {} failed: {}", barcode, why);
        drive.adminDone(labelChecked);
        end("failed", why);
        slice.finished();
    }

    @Override
    public void failed(TapeFault fault) {
        end("failed", "cannot mount " + barcode + ": " + fault.getMessage());
    }

    @Override
    public void dropped(String why) {
        LOG.warn("Relabel of {} ended: {}", barcode, why);
        end("failed", why);
    }

    private void end(String how, String why) {
        state = how;
        error = why;
        ended = ctx.loop().now();
    }
}
