package org.tapeq.scheduler.engine.lifecycle;

import java.io.ByteArrayOutputStream;

import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.format.TapeLabel;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;

/** Background work checks the label of the cartridge a drive mounted for it, once per mount. */
final class MountedLabel {

    private MountedLabel() {
    }

    /** Reads the label at the start of the tape and checks it names {@code barcode}; {@code done} on the loop. */
    static void check(LifecycleContext ctx, DriveRunner drive, String barcode, Completion<Void> done) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        String id = drive.id();
        ctx.library().locate(id, 0, new Completion<>() {
            @Override
            public void succeeded(Void v) {
                ctx.library().read(id, 0, DriveRunner.LABEL_BYTES, () -> buf, new Completion<>() {
                    @Override
                    public void succeeded(Long n) {
                        try {
                            TapeLabel.parseFor(buf.toByteArray(), barcode);
                        } catch (TapeFault f) {
                            done.failed(f);
                            return;
                        }
                        done.succeeded(null);
                    }

                    @Override
                    public void failed(TapeFault fault) {
                        done.failed(fault);
                    }
                });
            }

            @Override
            public void failed(TapeFault fault) {
                done.failed(fault);
            }
        });
    }
}
