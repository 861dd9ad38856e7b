package org.tapeq.scheduler.tape;

/**
 * What a library learns about a cartridge or a drive besides an operation's result (the SCSI backend: the
 * drive's TapeAlert flags), reported on the scheduler's event loop, before the completion of the operation during
 * which it was learnt. The scheduler acts on each report whatever the operation's outcome: a media flag makes the
 * cartridge suspect even when the operation succeeded or failed for another reason (a drive that also asks for
 * cleaning).
 */
public interface DriveAlerts {

    /** Reports nothing anywhere. */
    DriveAlerts NONE = new DriveAlerts() {
        @Override
        public void cartridgeSuspect(String drive, String barcode, String reason) {
        }

        @Override
        public void cleaningDue(String drive, String reason) {
        }
    };

    /** The drive raised media flags for this cartridge (loaded now, or just unloaded): it must not be written. */
    void cartridgeSuspect(String drive, String barcode, String reason);

    /** The drive asks for a routine cleaning but goes on working (TapeAlert 0x15, cleaning requested). */
    void cleaningDue(String drive, String reason);
}
