package org.tapeq.scheduler.engine.drive;

import org.tapeq.scheduler.model.TapeFault;

/** An administrative job that needs a drive (labelling, rebuild). */
public interface AdminTask {

    /** The cartridge it works on. */
    String barcode();

    /** Runs it on a drive that holds the cartridge; must end with {@link DriveRunner#adminDone}. */
    void run(DriveRunner drive);

    /** The drive could not mount the cartridge. */
    void failed(TapeFault fault);
}
