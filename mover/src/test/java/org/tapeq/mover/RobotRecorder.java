package org.tapeq.mover;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.tapeq.scheduler.model.FaultKind;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.Completion;
import org.tapeq.scheduler.tape.DriveAlerts;
import org.tapeq.scheduler.tape.ForwardingLibrary;
import org.tapeq.scheduler.tape.RobotMoves;
import org.tapeq.scheduler.tape.TapeLibrary;

/**
 * One mover's view of a library shared in this process, which records every robot move and every load and unload
 * the mover asks of it ({@code "m1 robotLoad drive2 A00001"}) in a log shared by all movers, with how many robot
 * moves ran at once at most. The simulated library makes the robot's move and the drive's load in one mount: here
 * {@link #robotLoad} is that mount and {@link #load} only checks the drive holds the cartridge (or fails as told);
 * {@link #unload} does nothing and {@link #robotUnload} is the simulated unmount. Everything else is passed on
 * ({@link ForwardingLibrary}), buffered appends and flushes too.
 */
final class RobotRecorder extends ForwardingLibrary implements RobotMoves {

    private final String mover;
    private final TapeLibrary library;
    private final List<String> log;
    private final AtomicInteger robotBusy;
    private final AtomicInteger robotMostBusy;
    /** Non-null: the next loads fail with this reason (a drive that does not come ready). */
    volatile String failLoads;
    /** Non-null: the next loads end (succeed) only when this completes, on the thread that completes it. */
    volatile java.util.concurrent.CompletableFuture<Void> holdLoads;

    RobotRecorder(String mover, TapeLibrary library, List<String> log, AtomicInteger robotBusy,
                  AtomicInteger robotMostBusy) {
        super(library);
        this.mover = mover;
        this.library = library;
        this.log = log;
        this.robotBusy = robotBusy;
        this.robotMostBusy = robotMostBusy;
    }

    @Override
    public void robotLoad(String drive, String barcode, Completion<Void> done) {
        log.add(mover + " robotLoad " + drive + " " + barcode);
        robot(done, d -> library.mount(drive, barcode, d));
    }

    @Override
    public void robotUnload(String drive, Completion<Void> done) {
        log.add(mover + " robotUnload " + drive);
        robot(done, d -> library.unmount(drive, d));
    }

    private void robot(Completion<Void> done, java.util.function.Consumer<Completion<Void>> move) {
        robotMostBusy.accumulateAndGet(robotBusy.incrementAndGet(), Math::max);
        move.accept(new Completion<>() {
            @Override
            public void succeeded(Void v) {
                robotBusy.decrementAndGet();
                done.succeeded(v);
            }

            @Override
            public void failed(TapeFault f) {
                robotBusy.decrementAndGet();
                done.failed(f);
            }
        });
    }

    @Override
    public void load(String drive, String barcode, Completion<Void> done) {
        log.add(mover + " load " + drive + " " + barcode);
        String fail = failLoads;
        java.util.concurrent.CompletableFuture<Void> hold = holdLoads;
        if (hold != null) {
            hold.thenRun(() -> done.succeeded(null));
            return;
        }
        if (fail != null) {
            done.failed(new TapeFault(FaultKind.DRIVE, "load " + barcode + " in " + drive + ": " + fail));
            return;
        }
        done.succeeded(null);
    }

    @Override
    public void unload(String drive, Completion<Void> done) {
        log.add(mover + " unload " + drive);
        done.succeeded(null);
    }

    @Override
    public void mount(String drive, String barcode, Completion<Void> done) {
        log.add(mover + " mount " + drive + " " + barcode);
        library.mount(drive, barcode, done);
    }

    @Override
    public void unmount(String drive, Completion<Void> done) {
        log.add(mover + " unmount " + drive);
        library.unmount(drive, done);
    }

    @Override
    public void alerts(DriveAlerts alerts) {
        // the shared library reports to the box registered on it once
    }
}
