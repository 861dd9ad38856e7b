package org.tapeq.scheduler.engine.drive;

/**
 * Told of each drive's mounts, unmounts, locates, data moved and errors, for metrics. Called on the event
 * loop: an implementation must not block (counting and histogram observations only). Durations are loop time,
 * in milliseconds: the library's own time on a simulated library that runs faster than real time.
 */
public interface DriveObserver {

    /** Tells nothing. */
    DriveObserver NONE = new DriveObserver() { };

    /** The drive exists (called once, when the engine starts), so its series can be created at zero. */
    default void drive(String drive) { }

    /** A cartridge was mounted in {@code millis}. */
    default void mounted(String drive, String barcode, long millis) { }

    /** A cartridge was unloaded in {@code millis}, after being in the drive for {@code heldMillis}. */
    default void unmounted(String drive, String barcode, long millis, long heldMillis) { }

    /** A locate (positioning) took {@code millis}. */
    default void located(String drive, long millis) { }

    /** Bytes read from ({@code write} false) or written to tape. */
    default void moved(String drive, boolean write, long bytes) { }

    /**
     * One transfer on tape ended: {@code bytes} read (one read of a pass: the members of one tape file read in one
     * go) or written (one aggregate) between loop times {@code started} and {@code ended}. Tells {@link #moved}
     * unless overridden.
     */
    default void transferred(String drive, boolean write, long bytes, long started, long ended) {
        moved(drive, write, bytes);
    }

    /** Tells {@code first}, then {@code second}, of everything. */
    static DriveObserver both(DriveObserver first, DriveObserver second) {
        return new DriveObserver() {
            @Override public void drive(String drive) { first.drive(drive); second.drive(drive); }

            @Override public void mounted(String drive, String barcode, long millis) {
                first.mounted(drive, barcode, millis);
                second.mounted(drive, barcode, millis);
            }

            @Override public void unmounted(String drive, String barcode, long millis, long heldMillis) {
                first.unmounted(drive, barcode, millis, heldMillis);
                second.unmounted(drive, barcode, millis, heldMillis);
            }

            @Override public void located(String drive, long millis) {
                first.located(drive, millis);
                second.located(drive, millis);
            }

            @Override public void moved(String drive, boolean write, long bytes) {
                first.moved(drive, write, bytes);
                second.moved(drive, write, bytes);
            }

            @Override public void transferred(String drive, boolean write, long bytes, long started, long ended) {
                first.transferred(drive, write, bytes, started, ended);
                second.transferred(drive, write, bytes, started, ended);
            }

            @Override public void error(String drive) { first.error(drive); second.error(drive); }
        };
    }

    /** A fault counted against the drive. */
    default void error(String drive) { }
}
