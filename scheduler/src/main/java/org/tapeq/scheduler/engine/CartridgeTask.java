package org.tapeq.scheduler.engine;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.tapeq.scheduler.engine.drive.AdminTask;
import org.tapeq.scheduler.engine.drive.DriveRunner;
import org.tapeq.scheduler.engine.store.CatalogWriter;
import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;

/**
 * The frame of an administrative job on one cartridge: it runs on a drive that holds the cartridge, ends by
 * freeing the drive, and completes its result or fails it with the tape fault.
 */
abstract class CartridgeTask<R> implements AdminTask {

    final Engine engine;
    final String barcode;
    final CompletableFuture<R> result = new CompletableFuture<>();

    CartridgeTask(Engine engine, String barcode) {
        this.engine = engine;
        this.barcode = barcode;
    }

    @Override
    public String barcode() {
        return barcode;
    }

    @Override
    public void failed(TapeFault fault) {
        result.completeExceptionally(fault);
    }

    /** Ends the task with a fault; the drive keeps the cartridge and is free again. */
    void fail(DriveRunner drive, TapeFault fault) {
        drive.adminDone(false);
        failed(fault);
    }

    /** Ends the task with its result. */
    void succeed(DriveRunner drive, R value) {
        drive.adminDone(true);
        result.complete(value);
    }

    /** A completion that goes on with {@code next}, or ends the task on a fault. */
    <T> Completion<T> step(DriveRunner drive, Consumer<T> next) {
        return Steps.then(next, fault -> fail(drive, fault));
    }

    /** A catalog task's end that goes on with {@code next}, or ends the task with a {@code CATALOG} fault. */
    <T> CatalogWriter.Done<T> catalogStep(DriveRunner drive, String what, Consumer<T> next) {
        return new CatalogWriter.Done<>() {
            @Override
            public void succeeded(T value) {
                next.accept(value);
            }

            @Override
            public void failed(RuntimeException e) {
                fail(drive, new TapeFault(FaultKind.CATALOG, "cannot " + what + " of " + barcode + " in the catalog: "
                        + e.getMessage(), e));
            }
        };
    }
}
