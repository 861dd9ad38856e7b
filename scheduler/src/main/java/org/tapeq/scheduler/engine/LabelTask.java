package org.tapeq.scheduler.engine;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tapeq.scheduler.catalog.CartridgeRecord;
import org.tapeq.scheduler.catalog.CartridgeState;
import org.tapeq.scheduler.format.TapeLabel;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.WrittenFile;

/**
 * Labels a cartridge for a family ({@code tapeq cartridge label}). A cartridge that already carries tapeq
 * data is only relabelled with {@code force}, which also forgets its files in the catalog.
 */
final class LabelTask implements Engine.AdminTask {

    private static final Logger LOG = LoggerFactory.getLogger(LabelTask.class);

    private final Engine engine;
    private final String barcode;
    private final String family;
    private final boolean force;
    final CompletableFuture<CartridgeRecord> result = new CompletableFuture<>();

    LabelTask(Engine engine, String barcode, String family, boolean force) {
        this.engine = engine;
        this.barcode = barcode;
        this.family = family;
        this.force = force;
    }

    @Override
    public String barcode() {
        return barcode;
    }

    @Override
    public void run(DriveRunner drive) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        // A blank tape has no data at block 0: the read ends with NOT_FOUND, which here means "empty".
        java.util.function.Consumer<TapeFault> blankOrFail = fault -> {
            if (fault.kind() == FaultKind.NOT_FOUND) {
                checkAndWrite(drive, new byte[0]);
            } else {
                fail(drive, fault);
            }
        };
        engine.library.locate(drive.id, 0, Steps.then(v ->
                engine.library.read(drive.id, 0, DriveRunner.LABEL_BYTES, () -> buf, Steps.then(n ->
                        checkAndWrite(drive, buf.toByteArray()), blankOrFail)), blankOrFail));
    }

    private void checkAndWrite(DriveRunner drive, byte[] existing) {
        CartridgeRecord c = engine.cartridges.get(barcode);
        boolean hasData = c != null && (c.tapeFiles() > 0 || !engine.catalog.files(barcode).isEmpty());
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
        engine.library.writeLabel(drive.id, label.source(), step(drive, (WrittenFile w) -> {
            CartridgeRecord now = engine.cartridges.get(barcode);
            CartridgeRecord fresh = new CartridgeRecord(barcode, now.mediaType(), family, CartridgeState.APPENDABLE,
                    now.capacityBytes(), 0, 0, 0, now.mountCount(), now.lastMount(), now.disabled(), null);
            if (hasData) {
                engine.catalog.replaceCartridgeContents(fresh, List.of(), List.of());
                engine.aggregator.forgetDatasets();
            }
            engine.updateCartridge(fresh);
            LOG.info("Cartridge {} labelled for family {}", barcode, family);
            drive.adminDone(true);
            result.complete(fresh);
            engine.requestDispatch();
        }));
    }

    private void fail(DriveRunner drive, TapeFault fault) {
        drive.adminDone(false);
        failed(fault);
    }

    @Override
    public void failed(TapeFault fault) {
        result.completeExceptionally(fault);
    }

    private <T> Completion<T> step(DriveRunner drive, java.util.function.Consumer<T> next) {
        return Steps.then(next, fault -> fail(drive, fault));
    }
}
