package org.tapeq.scheduler.engine;

import java.io.ByteArrayOutputStream;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.format.TapeLabel;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * Labels a cartridge for a family ({@code tapeq cartridge label}). A cartridge that already carries tapeq
 * data is only relabelled with {@code force}, which also forgets its files in the catalog. A cartridge of the
 * media a running migration is moving its family off is refused ({@link
 * org.tapeq.scheduler.engine.lifecycle.Migrations#labelRefusal}).
 */
final class LabelTask extends CartridgeTask<CartridgeRecord> {

    private static final Logger LOG = LoggerFactory.getLogger(LabelTask.class);

    private final String family;
    private final boolean force;

    LabelTask(Engine engine, String barcode, String family, boolean force) {
        super(engine, barcode);
        this.family = family;
        this.force = force;
        CartridgeRecord c = engine.cartridges.get(barcode);
        String migrating = c == null ? null : engine.migrations.labelRefusal(c, family);
        if (migrating != null) {
            throw new IllegalStateException(migrating);
        }
    }

    @Override
    public void run(DriveRunner drive) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        // A blank tape has no data at block 0: the read ends with NOT_FOUND, which here means "empty". With force
        // an unreadable beginning of tape (MEDIA) does not stop the label either: it is overwritten.
        java.util.function.Consumer<TapeFault> blankOrFail = fault -> {
            if (fault.kind() == FaultKind.NOT_FOUND) {
                checkAndWrite(drive, new byte[0]);
            } else if (force && fault.kind() == FaultKind.MEDIA) {
                LOG.warn("Cartridge {}: the old label could not be read ({}); labelling with force anyway", barcode,
                        fault.getMessage());
                checkAndWrite(drive, new byte[0]);
            } else {
                fail(drive, fault);
            }
        };
        engine.library.locate(drive.id(), 0, Steps.then(v ->
                engine.library.read(drive.id(), 0, DriveRunner.LABEL_BYTES, () -> buf, Steps.then(n ->
                        checkAndWrite(drive, buf.toByteArray()), blankOrFail)), blankOrFail));
    }

    /** Whether the catalog lists files on the cartridge: read on the catalog writer, after its pending writes. */
    private void checkAndWrite(DriveRunner drive, byte[] existing) {
        CartridgeRecord c = engine.cartridges.get(barcode);
        if (c == null || c.tapeFiles() > 0) {
            checkAndWrite(drive, existing, c != null);
            return;
        }
        engine.writer.submit(CatalogWriter.Kind.READ, () -> !engine.catalog.files(barcode).isEmpty(),
                catalogStep(drive, "look up the files", (Boolean listed) -> checkAndWrite(drive, existing, listed)));
    }

    private void checkAndWrite(DriveRunner drive, byte[] existing, boolean hasData) {
        if (existing.length > 0 && !force) {
            String what;
            try {
                TapeLabel old = TapeLabel.parse(existing);
                what = "a tapeq label for family " + old.family();
            } catch (TapeFault f) {
                what = "data that is not a tapeq label (" + f.getMessage() + ")";
            }
            if (hasData || !what.startsWith("a tapeq label")) {
                fail(drive, new TapeFault(FaultKind.LABEL, "cartridge " + barcode + " already holds " + what
                        + (hasData ? " and tapeq files" : "") + "; relabelling would erase it (use force)"));
                return;
            }
        }
        TapeLabel label = new TapeLabel(barcode, family, engine.loop.now(), engine.library.blockSize());
        drive.labelWriting();
        engine.library.writeLabel(drive.id(), label.source(), step(drive, (WrittenFile w) -> {
            CartridgeRecord now = engine.cartridges.get(barcode);
            CartridgeRecord fresh = new CartridgeRecord(barcode, now.mediaType(), family, CartridgeState.APPENDABLE,
                    now.capacityBytes(), 0, 0, 0, now.mountCount(), now.lastMount(), now.disabled(), null);
            // the new label starts the cartridge over: its counters (and any files) are replaced, not just its state
            engine.writer.submit(CatalogWriter.Kind.REPLACE, () -> {
                engine.catalog.replaceCartridgeContents(fresh, List.of(), List.of());
                return null;
            }, catalogStep(drive, "forget the files", v -> {
                engine.aggregator.forgetDatasets();
                labelled(drive, fresh);
            }));
        }));
    }

    private void labelled(DriveRunner drive, CartridgeRecord fresh) {
        engine.queues.updateCartridge(fresh);
        LOG.info("Cartridge {} labelled for family {}", barcode, family);
        succeed(drive, fresh);
        engine.requestDispatch();
    }
}
