package org.tapeq.scheduler.tape.scsi;

import org.tapeq.scheduler.model.DriveType;
import org.tapeq.scheduler.model.TapeFault;
import org.tapeq.scheduler.tape.CartridgeCapacity;

/**
 * What {@link ScsiLibrary} knows about one drive: the cartridge it loaded or found, its end of data, and what
 * the drive's TapeAlert flags said. Touched only by the operation running on the drive (one at a time, the
 * scheduler's contract), on the runner's threads; the fields are volatile because consecutive operations may run
 * on different threads.
 */
final class DriveState {
    final ScsiSettings.Drive config;
    /** Barcode of the cartridge this library loaded or found, or null. */
    volatile String barcode;
    /** End-of-data block of the loaded cartridge, or -1 if not known yet. */
    volatile long eod = -1;
    /** Tape files on the loaded cartridge (the file number at end of data), or -1 if not known yet. */
    volatile int files = -1;
    /** The loaded cartridge's label was checked (or written) since it was loaded. */
    volatile boolean labelVerified;
    /** The drive was put into variable-block mode since the library started or it was loaded. */
    volatile boolean prepared;
    /** The fault of the drive flags (clean now, hardware) read after the last unload, not yet reported. */
    volatile TapeFault pendingFault;
    /** The cartridge this library last unloaded from the drive: flags read while it is empty concern it. */
    volatile String lastUnloaded;
    /** Media flags the drive raised for the loaded cartridge: it is not written. Null if none. */
    volatile TapeAlert mediaAlert;
    /** What the loaded cartridge's memory said about its capacity at the load, or null. */
    volatile CartridgeCapacity capacity;
    /** The end-of-wrap positions the drive reported for the loaded cartridge at its load ({@link DriveOrder}). */
    volatile long[] wrapEnds;
    /** How many segments the drive orders at once for the loaded cartridge ({@link DriveOrder}); 0: none. */
    volatile int accessOrderLimit;
    /** The drive lacks READ END OF WRAP POSITION ({@link FaultMap#lacksCommand}): not asked again. Kept on unload. */
    volatile boolean noWrapEnds;
    /** The drive lacks the recommended access order commands ({@link FaultMap#lacksCommand}): not asked again. */
    volatile boolean noAccessOrder;

    /** The drive's generation (configured, or from its INQUIRY at the first inventory), or null if not known. */
    volatile DriveType type;

    DriveState(ScsiSettings.Drive config) {
        this.config = config;
    }

    String device() {
        return config.device();
    }

    String name() {
        return config.name();
    }

    /** The drive is empty (or holds a cartridge this library does not know): nothing about a cartridge is kept. */
    void forget() {
        barcode = null;
        eod = -1;
        files = -1;
        labelVerified = false;
        prepared = false;
        mediaAlert = null;
        capacity = null;
        wrapEnds = null;
        accessOrderLimit = 0;
    }
}
