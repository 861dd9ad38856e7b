package org.tapeq.scheduler.engine.drive;

import org.tapeq.scheduler.model.TapeFault;

/**
 * Low-priority work on one cartridge (verification; later repack), run in slices on a drive no user work wants.
 * A slice works on the mounted cartridge until a natural boundary (an aggregate read) at which it should yield
 * ({@link Slice#shouldYield()}: user work is waiting for the drive), then ends with {@link Slice#yielded()};
 * the task is queued again and resumes, on this or another drive, once a drive is free with nothing else to do.
 * The dispatcher runs it (docs/scheduler.md, "Background work").
 */
public interface BackgroundTask {

    /** The cartridge it works on. */
    String barcode();

    /**
     * Runs one slice on a drive that holds the cartridge. The slice ends by freeing the drive
     * ({@link DriveRunner#adminDone}) and then calling {@code slice.yielded()} (more to do) or
     * {@code slice.finished()}.
     */
    void runSlice(DriveRunner drive, Slice slice);

    /** The drive could not mount the cartridge: the task ends here. */
    void failed(TapeFault fault);

    /** The task was taken off the queue before it ran again (cancelled, or its cartridge is unknown): it ends. */
    void dropped(String why);

    /** How a slice ends. */
    interface Slice {
        /**
         * Whether the slice should end at this boundary: user work is waiting for this drive, the drive was
         * taken out of service, or the cartridge was disabled (the task then waits until it is enabled).
         */
        boolean shouldYield();

        /** The slice ended with work left; the task is queued again. */
        void yielded();

        /** The task is done. */
        void finished();
    }
}
