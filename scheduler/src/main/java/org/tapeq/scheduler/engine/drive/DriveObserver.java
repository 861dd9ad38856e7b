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

    /** A fault counted against the drive. */
    default void error(String drive) { }
}
